/** The one JSON answer both contenders send, byte for byte. */
export const FIXED_ANSWER = JSON.stringify({
  nzbn: '9429032530384',
  entityName: 'KOWHAI RIDGE HOLDINGS LIMITED',
  entityStatusCode: '50',
  entityTypeCode: 'LTD',
  registrationDate: '2009-03-24T00:00:00.000+1300',
});
