import fc from 'fast-check';
import type { Values } from '../../../support/service-fixture.ts';
import { FIXTURE } from './api.ts';

/**
 * What the operation fuzzer (test/support/fuzz-operations.ts) draws from for the register's fields and
 * parameters whose schema is a bare string: values the register accepts, then near misses.
 */
/** A business number: mostly ones the owner acts for, some the register holds or not, some broken. */
const nzbnText = fc.oneof(
  { weight: 6, arbitrary: fc.constant<string>(FIXTURE.authority) },
  fc.constantFrom<string>(...Object.values(FIXTURE), '9429876543210', '9429000000000'),
  fc.stringMatching(/^[0-9]{13}$/),
);

/** Values of fields whose schema is a bare string, by name: ones the register accepts, then odd ones. */
const HINTS: Record<string, [valid: string[], odd: string[]]> = {
  classificationCode: [
    ['C121220', 'I490008', 'c121220'],
    ['Z999999', 'C12122'],
  ],
  'industry-code': [
    ['C121220', 'I490008', 'A041410'],
    ['Z999999', 'I'],
  ],
  gstNumber: [
    ['49-091-850', '49091850', '049091850'],
    ['123456789', '49-091-851', '0'],
  ],
  bankId: [
    ['01', '12'],
    ['99', '1'],
  ],
  bankBranch: [
    ['0902', '3456'],
    ['9999', '12'],
  ],
  accountBase: [
    ['0068389', '00683890'],
    ['9999999', '1'],
  ],
  accountSuffix: [
    ['00', '000'],
    ['99', '1'],
  ],
  paymentBankAccountNumber: [['01-0902-0068389-00'], ['12-3456-7890123-00']],
  tradingArea: [
    ['waikato', 'Auckland', "hawke's bay", 'Chatham Islands'],
    ['Mars', 'WAIKATO '],
  ],
  australianBusinessNumber: [
    ['51 824 753 556', '51824753556'],
    ['12 345 678 901', '00000000000'],
  ],
  entityStatusCode: [
    ['50', '62', '70', '80', '90', '91'],
    ['Registered', '0', '-1', '999'],
  ],
  entityTypeCode: [
    ['Sole_Trader', 'Partnership', 'Trading_Trust', 'SoleTrader', 'Trust'],
    ['LTD', 'GovtCentral'],
  ],
  changeEventTypes: [
    ['ALL', 'NEW', 'ENTITY_NAME', 'ROLES_DIRECTOR', 'ADDRESS'],
    ['NOT_A_TYPE', 'entity'],
  ],
  'change-event-type': [
    ['ALL', 'NEW', 'ENTITY', 'ENTITY_NAME', 'ROLES_DIRECTOR', 'ADDRESS'],
    ['NOPE', 'all,new'],
  ],
  'change-event-types': [['ALL', 'NEW', 'ENTITY_NAME'], ['NOPE']],
  'entity-status': [
    ['Registered', '50', '70', 'InLiquidation'],
    ['removed/closed', 'Nope'],
  ],
  'entity-type': [
    ['NZCompany', 'SoleTrader', 'LTD', 'ltd'],
    ['g', 'GovtCentral', 'Nope'],
  ],
  'search-term': [
    ['kowhai', 'Ōtāhuhu', "o'brien", '9429000001007', 'ltd'],
    ['&&', 'ltd*', 'a:b | c', "'"],
  ],
  'sort-by': [
    ['NZBN', 'ENTITY_NAME', 'ENTITY_STATUS', 'ENTITY_TYPE_CODE', 'name', 'fromDate', 'watchlistId'],
    ['id; DROP', 'changeDate'],
  ],
  'sort-order': [['ASC', 'DESC', 'asc'], ['UP']],
  sortorder: [['ASC', 'DESC', 'desc'], ['UP']],
  'organisation-id': [['org-1'], ['12345', '']],
  organisationId: [['org-1'], ['12345']],
  privacy: [
    ['PUBLIC', 'PRIVATE', 'public'],
    ['SHARED', 'secret'],
  ],
  organisationPartStatus: [['ACTIVE', 'INACTIVE', 'Active'], ['Sleeping']],
  'organisation-part-status': [['ACTIVE', 'INACTIVE', 'inactive'], ['Sleeping']],
  function: [['FUNCTION', 'PHYSICAL_LOCATION', 'DIGITAL_LOCATION'], ['Warehouse']],
  purpose: [['E_INVOICING', 'OTHER', 'LOCATIONARRIVAL'], ['Sales']],
  addressType: [['POSTAL', 'DELIVERY', 'PHYSICAL', 'INVOICE', 'REGISTERED'], ['HOME']],
  phonePurpose: [['Primary', 'Mobile', 'Fax', 'Invoice'], ['Pager']],
  emailPurpose: [['Primary', 'Invoice', 'Enquiries', 'Orders', 'INVOICE_ADDRESS', 'OTHER'], ['Spam']],
  websitePurpose: [['Primary', 'Online store', 'Social media'], ['Blog']],
  channel: [
    ['EMAIL', 'PUSH'],
    ['SMS', 'email'],
  ],
  frequency: [['ONEVENT', 'DAILY', 'WEEKLY', 'IMMEDIATE'], ['HOURLY']],
  wildcard: [['ALL', 'NEW'], ['SOME']],
  'address-type': [
    ['REGISTERED', 'POSTAL', 'OFFICE', 'ALL', 'all'],
    ['HOME', ''],
  ],
  identifyingFactorOtherDescription: [['Whakapapa'], ['']],
  startDate: [
    ['2024-01-01', '2024-03-24T00:00:00.000+1300', '2023-06-30T12:00:00Z'],
    ['yesterday', '24/03/2009'],
  ],
  endDate: [['2024-06-01'], ['tomorrow']],
  url: [
    ['https://kowhai.example', 'http://rata.example/shop'],
    ['kowhai.example', 'ftp://x'],
  ],
  purchaseRedirectUrl: [
    ['https://kowhai.example/bought', 'http://localhost:3000/back'],
    ['http://kowhai.example/back', 'kowhai.example', 'https://user:pass@kowhai.example/'],
  ],
  purchaserEmailAddress: [['buyer@kowhai.example'], ['buyer', '@kowhai.example']],
  purchaserPhoneNumber: [
    ['+64 4 499 1234', '021 555 0123'],
    ['phone', '1'],
  ],
  requestStatus: [
    ['APPROVED', 'DECLINED', 'approved'],
    ['PENDING', 'MAYBE'],
  ],
  'request-status': [['PENDING', 'APPROVED', 'declined'], ['LOST']],
};

export function fieldValues(name: string): Values | undefined {
  if (/nzbn|gln/i.test(name)) return nzbnText;
  const hint = HINTS[name];
  return hint && { valid: hint[0], odd: hint[1] };
}
