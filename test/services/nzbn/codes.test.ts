import { describe, expect, it } from 'vitest';
import {
  ADDRESS_PRIVACY_FLAG,
  ADDRESS_TYPES,
  CHANGE_EVENT_TYPES,
  changeEventMatches,
  ENTITY_STATUS_CODES,
  ENTITY_STATUS_FILTER_NAMES,
  ENTITY_STATUSES,
  ENTITY_TYPE_CODES,
  ENTITY_TYPE_FILTERS,
  ENTITY_TYPES,
  entityTypesForFilter,
  isChangeEventType,
  isCompanyType,
  isEntityStatusCode,
  isEntityTypeCode,
  PRIVACY_FLAGS,
  parseEntityStatusFilter,
  REGISTRABLE_ENTITY_TYPES,
  statusCodesForFilter,
} from '../../../src/services/nzbn/domain/codes.ts';

/** The entity type codes published clients know (reference/nzbn.md): nothing else may appear. */
const CLIENT_KNOWN_TYPE_CODES = new Set([
  'NZCompany',
  'OverseasCompany',
  'SoleTrader',
  'Partnership',
  'Trust',
  'BuildingSociety',
  'CharitableTrust',
  'CreditUnion',
  'FriendlySociety',
  'IncorporatedSociety',
  'IndustrialAndProvidentSociety',
  'LimitedPartnershipNz',
  'LimitedPartnershipOverseas',
  'SpecialBodies',
  'SpecialBody',
  'Trading_Trust',
  'Sole_Trader',
  'GovtCentral',
  'GovtEdu',
  'GovtLocal',
  'GovtOther',
  'LTD',
  'ULTD',
  'COOP',
  'ASIC',
  'NON_ASIC',
  'B',
  'I',
  'D',
  'F',
  'N',
  'S',
  'T',
  'Y',
  'Z',
  'G',
]);

describe('entity types', () => {
  it('uses only codes that published clients know', () => {
    for (const code of ENTITY_TYPE_CODES) expect(CLIENT_KNOWN_TYPE_CODES.has(code)).toBe(true);
    for (const name of Object.keys(ENTITY_TYPE_FILTERS)) expect(CLIENT_KNOWN_TYPE_CODES.has(name)).toBe(true);
  });

  it('accepts every client-known name as a search filter', () => {
    for (const name of CLIENT_KNOWN_TYPE_CODES) expect(entityTypesForFilter(name)?.length).toBeGreaterThan(0);
    expect(entityTypesForFilter('Company')).toBeUndefined();
    expect(entityTypesForFilter('toString')).toBeUndefined();
  });

  it.each([
    ['LTD', 'NZ Limited Company', 'company', 'COMPANY'],
    ['ULTD', 'NZ Unlimited Company', 'company', 'COMPANY'],
    ['COOP', 'NZ Co-operative Company', 'company', 'COMPANY'],
    ['ASIC', 'Overseas ASIC Company', 'company', 'COMPANY'],
    ['NON_ASIC', 'Overseas Non-ASIC Company', 'company', 'COMPANY'],
    ['I', 'Incorporated Society', 'non-company', 'INCORPORATED_SOCIETIES'],
    ['T', 'Charitable Trust', 'non-company', 'CHARITABLE_TRUSTS'],
    ['Sole_Trader', 'Sole Trader', 'non-company', 'NZBN'],
    ['Trading_Trust', 'Trust', 'non-company', 'NZBN'],
    ['GovtEdu', 'Education', 'non-company', 'NZBN'],
  ] as const)('%s is "%s", a %s entity from %s', (code, description, kind, register) => {
    expect(ENTITY_TYPES[code]).toMatchObject({ code, description, kind, sourceRegister: register });
  });

  it('knows companies from everything else', () => {
    const companies = ENTITY_TYPE_CODES.filter(isCompanyType);
    expect(companies).toEqual(['LTD', 'ULTD', 'COOP', 'ASIC', 'NON_ASIC']);
    expect(entityTypesForFilter('NZCompany')).toEqual(['LTD', 'ULTD', 'COOP']);
    expect(entityTypesForFilter('OverseasCompany')).toEqual(['ASIC', 'NON_ASIC']);
  });

  it('lets only sole traders, partnerships and trusts register through the API', () => {
    expect(REGISTRABLE_ENTITY_TYPES).toEqual(['Sole_Trader', 'Partnership', 'Trading_Trust']);
  });

  it('reads both spellings of a sole trader and of special bodies', () => {
    expect(entityTypesForFilter('SoleTrader')).toEqual(entityTypesForFilter('Sole_Trader'));
    expect(entityTypesForFilter('SpecialBodies')).toEqual(entityTypesForFilter('SpecialBody'));
    expect(entityTypesForFilter('G')).toEqual(['GovtCentral', 'GovtLocal', 'GovtEdu', 'GovtOther']);
  });

  it('guards against prototype keys', () => {
    expect(isEntityTypeCode('constructor')).toBe(false);
    expect(isEntityTypeCode('LTD')).toBe(true);
  });
});

describe('entity statuses', () => {
  it('covers 50 to 91 with the published anchors', () => {
    expect(ENTITY_STATUS_CODES[0]).toBe('50');
    expect(ENTITY_STATUS_CODES.at(-1)).toBe('91');
    expect(ENTITY_STATUSES['50'].description).toBe('Registered');
    expect(ENTITY_STATUSES['60'].description).toBe('In Liquidation');
    expect(ENTITY_STATUSES['70'].description).toBe('In Receivership');
    expect(ENTITY_STATUSES['72'].description).toBe('In Statutory Administration');
    expect(ENTITY_STATUSES['80'].description).toBe('Removed');
    expect(ENTITY_STATUSES['90'].description).toBe('Inactive');
    expect(ENTITY_STATUSES['91'].description).toBe('Removed/Closed');
  });

  it('gives every status at least one filter name and every filter name at least one status', () => {
    for (const code of ENTITY_STATUS_CODES) expect(ENTITY_STATUSES[code].filters.length).toBeGreaterThan(0);
    for (const name of ENTITY_STATUS_FILTER_NAMES)
      expect(statusCodesForFilter(name).length).toBeGreaterThan(0);
  });

  it.each([
    ['Registered', ['50']],
    ['VoluntaryAdministration', ['55', '56', '57', '62', '64']],
    ['InReceivership', ['56', '57', '61', '64', '65', '66', '70']],
    ['InLiquidation', ['60', '61', '62', '63', '64', '65']],
    ['InStatutoryAdministration', ['63', '65', '66', '72']],
    ['Inactive', ['90']],
    ['RemovedClosed', ['80', '91']],
  ] as const)('the %s filter selects %j', (name, codes) => {
    expect(statusCodesForFilter(name)).toEqual(codes);
  });

  it.each([
    [['Registered'], ['50'], []],
    [['registered,removedclosed'], ['50', '80', '91'], []],
    [['InLiquidation', ' Inactive '], ['60', '61', '62', '63', '64', '65', '90'], []],
    [['60,Bogus', ''], ['60'], ['Bogus']],
    [[',,'], [], []],
  ])('parses entity-status %j', (values, codes, unknown) => {
    const parsed = parseEntityStatusFilter(values);
    expect([...parsed.codes].sort()).toEqual(codes);
    expect(parsed.unknown).toEqual(unknown);
  });

  it('guards status lookups against prototype keys', () => {
    expect(isEntityStatusCode('toString')).toBe(false);
    expect(isEntityStatusCode('55')).toBe(true);
  });
});

describe('part codes', () => {
  it('has the published address types, and a privacy flag for each private-able one', () => {
    expect(ADDRESS_TYPES).toEqual([
      'REGISTERED',
      'POSTAL',
      'SERVICE',
      'OFFICE',
      'DELIVERY',
      'INVOICE',
      'RECORDS',
      'SHAREREGISTER',
    ]);
    for (const flag of Object.values(ADDRESS_PRIVACY_FLAG)) expect(PRIVACY_FLAGS).toContain(flag);
  });

  it('has the privacy flags the reference names', () => {
    for (const flag of [
      'namePrivateInformation',
      'tradingNamePrivateInformation',
      'phonePrivateInformation',
      'emailPrivateInformation',
      'registeredAddressPrivateInformation',
      'postalAddressPrivateInformation',
      'gstNumberPrivateInformation',
      'paymentBankAccountNumbersPrivateInformation',
      'businessEthnicityPrivateInformation',
    ]) {
      expect(PRIVACY_FLAGS).toContain(flag);
    }
  });

  it('has every published change event type, each once', () => {
    const codes = CHANGE_EVENT_TYPES.map((type) => type.code);
    expect(new Set(codes).size).toBe(codes.length);
    const published = CHANGE_EVENT_TYPES.filter((type) => type.published).map((type) => type.code);
    expect(published).toEqual([
      'ALL',
      'NEW',
      'ENTITY',
      'ROLES_DIRECTOR',
      'ENTITY_NAME',
      'ENTITY_STATUS',
      'COMPANYDETAILS_ANNUALRETURNS',
      'COMPANYDETAILS_FINANCIALSTATEMENTS',
      'COMPANYDETAILS_REMOVALCOMMENCED',
      'BUSINESSETHNICITYIDENTIFIER',
      'PAYMENTBANKACCOUNT',
    ]);
    expect(isChangeEventType('TRADINGNAME')).toBe(true);
    expect(isChangeEventType('tradingname')).toBe(false);
  });

  it.each([
    ['ALL', 'NEW', true],
    ['ALL', 'ROLES_DIRECTOR', true],
    ['ENTITY', 'ROLES_DIRECTOR', true],
    ['ENTITY', 'NEW', false],
    ['NEW', 'NEW', true],
    ['ENTITY_NAME', 'ENTITY_STATUS', false],
  ])('a %s filter matches a recorded %s: %s', (filter, recorded, expected) => {
    expect(changeEventMatches(filter, recorded)).toBe(expected);
  });
});
