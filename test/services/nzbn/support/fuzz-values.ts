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
  bankAccountNumber: [
    ['01-0902-0068389-00', '01-0902-0068389-000'],
    ['99-9999-9999999-99', '0109020068389'],
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
    ['changeDate', 'entityName', 'nzbn', 'name', 'fromDate', 'watchlistId'],
    ['id; DROP', 'NZBN'],
  ],
  'sort-order': [['ASC', 'DESC', 'asc'], ['UP']],
  sortorder: [['ASC', 'DESC', 'desc'], ['UP']],
  'organisation-id': [['org-1'], ['12345', '']],
  organisationId: [['org-1'], ['12345']],
  privacy: [
    ['public', 'private'],
    ['PRIVATE', 'secret'],
  ],
  organisationPartStatus: [['Active', 'Inactive'], ['Sleeping']],
  status: [['Active', 'Inactive'], ['Sleeping']],
  phonePurpose: [['Primary', 'Mobile', 'Fax', 'Invoice'], ['Pager']],
  emailPurpose: [['Primary', 'Invoice', 'Enquiries', 'Orders'], ['Spam']],
  websitePurpose: [['Primary', 'Online store', 'Social media'], ['Blog']],
  channel: [
    ['EMAIL', 'PUSH'],
    ['SMS', 'email'],
  ],
  frequency: [['IMMEDIATE', 'DAILY', 'WEEKLY'], ['HOURLY']],
  wildcard: [['ALL', 'NEW'], ['SOME']],
  'address-type': [['REGISTERED', 'POSTAL', 'OFFICE'], ['HOME']],
  identifyingFactorOtherDescription: [['Whakapapa'], ['']],
};

export function fieldValues(name: string): Values | undefined {
  if (/nzbn|gln/i.test(name)) return nzbnText;
  const hint = HINTS[name];
  return hint && { valid: hint[0], odd: hint[1] };
}
