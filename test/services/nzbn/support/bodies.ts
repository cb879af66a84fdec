/** One valid item per Primary Business Data list, its change event type and its key in the entity. */
export const LISTS: [string, unknown, string, string][] = [
  [
    'addresses',
    { addressType: 'OFFICE', address1: '12 Kauri Street', address3: 'Taupo', postCode: '3330' },
    'ADDRESS',
    'addresses',
  ],
  [
    'phone-numbers',
    { phonePurpose: 'Mobile', phoneAreaCode: '21', phoneNumber: '5550123' },
    'PHONENUMBER',
    'phoneNumbers',
  ],
  [
    'email-addresses',
    { emailAddress: 'accounts@kowhai.example', emailPurpose: 'Invoice' },
    'EMAILADDRESS',
    'emailAddresses',
  ],
  ['websites', { url: 'https://kowhai.example', websitePurpose: 'Primary' }, 'WEBSITE', 'websites'],
  ['trading-names', { name: 'Kowhai Ridge Bakery' }, 'TRADINGNAME', 'tradingNames'],
  [
    'industry-classifications',
    { classificationCode: 'C121220' },
    'INDUSTRYCLASSIFICATION',
    'industryClassifications',
  ],
  ['gst-numbers', { gstNumber: '49-091-850' }, 'GSTNUMBER', 'gstNumbers'],
  ['trading-areas', { tradingArea: 'waikato' }, 'TRADINGAREA', 'tradingAreas'],
  [
    'payment-bank-accounts',
    { bankId: '01', bankBranch: '0902', accountBase: '0068389', accountSuffix: '00', accountName: 'Kowhai' },
    'PAYMENTBANKACCOUNT',
    'paymentBankAccounts',
  ],
  [
    'business-ethnicity-identifiers',
    { ethnicity: 'MAORI', identifyingFactors: [{ identifyingFactor: 'OWNERSHIP_50_PERCENT_OR_MORE' }] },
    'BUSINESSETHNICITYIDENTIFIER',
    'businessEthnicityIdentifiers',
  ],
];

/** The published purchaserDetails of an organisation part: who buys one beyond an entity's free ones. */
export const PURCHASER = {
  purchaserName: 'Kowhai Buyer',
  purchaserEmailAddress: 'buyer@kowhai.example',
  purchaserPhoneNumber: '+64 4 499 1234',
  purchaseRedirectUrl: 'https://kowhai.example/parts/bought',
};

/** The published OrganisationPartRequest around a part, with a purchaser (read when a fee applies). */
export const partRequest = (organisationPart: unknown) => ({
  termsAndConditionsAccepted: true,
  organisationPart,
  purchaserDetails: PURCHASER,
});
