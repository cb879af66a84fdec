import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { isValidGln } from '../../../src/platform/gs1.ts';
import { nzLocalToEpoch, parseNzDateTime } from '../../../src/platform/nz-time.ts';
import { findBic } from '../../../src/services/nzbn/domain/bic.ts';
import { ENTITY_STATUSES, ENTITY_TYPES, isCompanyType } from '../../../src/services/nzbn/domain/codes.ts';
import {
  isValidAbn,
  isValidAcn,
  isValidBankAccount,
  isValidIrdNumber,
} from '../../../src/services/nzbn/domain/identifiers.ts';
import { Entity } from '../../../src/services/nzbn/domain/schema.ts';
import {
  DEFAULT_AS_OF,
  entityRandom,
  generateEntity,
  generateEntityAt,
} from '../../../src/services/nzbn/sandbox/entity.ts';
import { nzbnForIndex } from '../../../src/services/nzbn/sandbox/numbers.ts';
import { geography } from './support/geo-fixture.ts';

const context = { geography };
const batch = Array.from({ length: 3_000 }, (_, index) => generateEntityAt('test', index, context));

const DATE_KEYS = new Set([
  'registrationDate',
  'lastUpdatedDate',
  'startDate',
  'endDate',
  'appointmentDate',
  'vacationDate',
  'annualReturnLastFiled',
  'effectiveDate',
  'commenced',
  'balanceDate',
  'date',
]);

/** Every [key, value] pair in a JSON tree, with the path that led to it. */
function* walk(value: unknown, path = ''): Generator<[string, string, unknown]> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* walk(item, `${path}[${i}]`);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      yield [`${path}.${key}`, key, item];
      yield* walk(item, `${path}.${key}`);
    }
  }
}

const datesOf = (entity: Entity) =>
  [...walk(entity)].filter(([, key, value]) => DATE_KEYS.has(key) && value !== null) as [
    string,
    string,
    string,
  ][];

describe('generateEntity: shape', () => {
  it('gives the published shape (the service schema, no extra or missing keys)', () => {
    for (const entity of batch) {
      const errors = [...Value.Errors(Entity, entity)]
        .slice(0, 3)
        .map((error) => `${error.path}: ${error.message}`);
      expect(errors).toEqual([]);
    }
  });

  it('writes unknown values as null, never leaves them undefined', () => {
    const undefinedAt: string[] = [];
    for (const entity of batch.slice(0, 500)) {
      for (const [path, , value] of walk(entity)) if (value === undefined) undefinedAt.push(path);
      expect(JSON.parse(JSON.stringify(entity))).toEqual(entity);
    }
    expect(undefinedAt).toEqual([]);
  });

  it('writes every date with time, milliseconds and offset, never after the register moment', () => {
    const wrong: string[] = [];
    for (const entity of batch) {
      for (const [path, , value] of datesOf(entity)) {
        const form = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+1[123][03]0$/.test(value);
        if (!form || parseNzDateTime(value)! > DEFAULT_AS_OF) wrong.push(`${entity.nzbn}${path}: ${value}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('dates nothing after lastUpdatedDate, and nothing ends before it starts', () => {
    const wrong: string[] = [];
    for (const entity of batch) {
      const lastUpdated = parseNzDateTime(entity.lastUpdatedDate)!;
      for (const [path, , value] of datesOf(entity)) {
        if (parseNzDateTime(value)! > lastUpdated) wrong.push(`${entity.nzbn}${path}: ${value}`);
      }
      for (const item of [...entity.roles, ...entity.tradingNames]) {
        if (item.endDate && parseNzDateTime(item.endDate)! <= parseNzDateTime(item.startDate)!) {
          wrong.push(`${entity.nzbn} ${item.uniqueIdentifier} ends ${item.endDate}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('describes type and status with the code tables', () => {
    for (const entity of batch) {
      const type = ENTITY_TYPES[entity.entityTypeCode];
      expect(entity.entityTypeDescription).toBe(type.description);
      expect(entity.entityStatusDescription).toBe(ENTITY_STATUSES[entity.entityStatusCode].description);
      expect(entity.sourceRegister).toBe(type.sourceRegister);
      if (type.sourceRegister === 'NZBN') expect(entity.sourceRegisterUniqueIdentifier).toBeNull();
      else expect(entity.sourceRegisterUniqueIdentifier).toMatch(/^\d{7}$/);
      if (type.upperCaseName) expect(entity.entityName).toBe(entity.entityName.toUpperCase());
    }
  });

  it('carries company-details for companies and non-company-details otherwise', () => {
    for (const entity of batch) {
      const company = isCompanyType(entity.entityTypeCode);
      expect(entity['company-details'] !== null).toBe(company);
      expect(entity['non-company-details'] !== null).toBe(!company);
      expect(entity['supporting-information']).toBeNull();
      const details = entity['company-details'];
      if (!details) continue;
      const overseas = entity.entityTypeCode === 'ASIC' || entity.entityTypeCode === 'NON_ASIC';
      expect(details.overseasCompany).toBe(overseas ? 'Y' : 'N');
      if (overseas) expect(details.shareholding).toBeNull();
      if (details.shareholding) {
        const allocated = details.shareholding.shareAllocation.reduce(
          (sum, allocation) => sum + allocation.allocation,
          0,
        );
        expect(allocated).toBe(details.shareholding.numberOfShares);
        for (const allocation of details.shareholding.shareAllocation)
          expect(allocation.shareholder.length).toBeGreaterThan(0);
      }
      if (details.australianCompanyNumber) expect(isValidAcn(details.australianCompanyNumber)).toBe(true);
    }
  });

  it('repeats industryClassifications as classifications, with known BIC codes', () => {
    for (const entity of batch) {
      expect(entity.classifications).toEqual(entity.industryClassifications);
      for (const item of entity.industryClassifications) {
        expect(findBic(item.classificationCode)?.description).toBe(item.classificationDescription);
      }
    }
  });

  it('gives valid business, GST, bank account and Australian business numbers', () => {
    for (const [index, entity] of batch.entries()) {
      expect(entity.nzbn).toBe(nzbnForIndex(index));
      expect(isValidGln(entity.nzbn)).toBe(true);
      for (const gst of entity.gstNumbers) expect(isValidIrdNumber(gst.gstNumber)).toBe(true);
      for (const account of entity.paymentBankAccounts)
        expect(
          isValidBankAccount(
            `${account.bankId}-${account.bankBranch}-${account.accountBase}-${account.accountSuffix}`,
          ),
        ).toBe(true);
      if (entity.australianBusinessNumber) expect(isValidAbn(entity.australianBusinessNumber)).toBe(true);
    }
  });

  it('gives every sub-item an identifier unique over the register (classifications repeat theirs by design)', () => {
    const seen = new Set<string>();
    const repeated: string[] = [];
    for (const entity of batch) {
      const { classifications: _repeated, ...rest } = entity;
      for (const [path, key, value] of walk(rest)) {
        if (key !== 'uniqueIdentifier') continue;
        if (seen.has(value as string)) repeated.push(`${entity.nzbn}${path}`);
        seen.add(value as string);
      }
    }
    expect(repeated).toEqual([]);
  });

  it('gives roles to the people behind each kind of entity', () => {
    for (const entity of batch) {
      const types = entity.roles.filter((role) => role.roleStatus === 'ACTIVE').map((role) => role.roleType);
      if (entity.entityTypeCode === 'LTD') expect(types).toContain('Director');
      if (entity.entityTypeCode === 'LTD') expect(types).toContain('Shareholder');
      if (entity.entityTypeCode === 'Partnership')
        expect(types.filter((type) => type === 'Partner').length).toBeGreaterThanOrEqual(2);
      if (entity.entityTypeCode === 'Trading_Trust') expect(types).toContain('Trustee');
      for (const role of entity.roles)
        expect((role.rolePerson === null) !== (role.roleEntity === null)).toBe(true);
    }
  });
});

describe('generateEntity: determinism', () => {
  it('gives the same entity for the same seed and index, whatever was generated before', () => {
    expect(generateEntityAt('test', 1_234, context)).toEqual(generateEntityAt('test', 1_234, context));
    expect(generateEntityAt('test', 17, context)).toEqual(batch[17]);
  });

  it('gives a different register for a different seed, with the same business numbers', () => {
    const other = generateEntityAt('other seed', 17, context);
    expect(other).not.toEqual(batch[17]);
    expect(other.nzbn).toBe(batch[17]!.nzbn);
  });

  it('reads a numeric seed as its decimal string, as the platform random does', () => {
    expect(generateEntityAt(7, 3, context)).toEqual(generateEntityAt('7', 3, context));
  });
});

describe('generateEntity: the register mix', () => {
  const share = (predicate: (entity: Entity) => boolean) => batch.filter(predicate).length / batch.length;

  it('is mostly limited companies, with every opt-in type present', () => {
    expect(share((entity) => entity.entityTypeCode === 'LTD')).toBeGreaterThan(0.74);
    expect(share((entity) => entity.entityTypeCode === 'LTD')).toBeLessThan(0.83);
    for (const type of ['Sole_Trader', 'Partnership', 'Trading_Trust', 'I', 'T'] as const) {
      expect(share((entity) => entity.entityTypeCode === type)).toBeGreaterThan(0.005);
    }
  });

  it('is mostly registered, with about a quarter of companies removed and some in liquidation', () => {
    const companies = batch.filter((entity) => entity.entityTypeCode === 'LTD');
    const removed = companies.filter((entity) => entity.entityStatusCode === '80').length / companies.length;
    expect(share((entity) => entity.entityStatusCode === '50')).toBeGreaterThan(0.65);
    expect(removed).toBeGreaterThan(0.18);
    expect(removed).toBeLessThan(0.32);
    expect(share((entity) => entity.entityStatusCode === '60')).toBeGreaterThan(0.01);
  });

  it('spreads registrations over decades', () => {
    const years = batch.map((entity) => Number(entity.registrationDate.slice(0, 4)));
    expect(Math.min(...years)).toBeLessThan(1960);
    for (const decade of [1980, 1990, 2000, 2010, 2020]) {
      expect(years.filter((year) => year >= decade && year < decade + 10).length).toBeGreaterThan(50);
    }
    const optIn = batch.filter((entity) => ENTITY_TYPES[entity.entityTypeCode].mayRegisterThroughApi);
    for (const entity of optIn)
      expect(Number(entity.registrationDate.slice(0, 4))).toBeGreaterThanOrEqual(2016);
  });

  it('marks some items private', () => {
    expect(
      share((entity) => entity.privacySettings.phonePrivateInformation && entity.phoneNumbers.length > 0),
    ).toBeGreaterThan(0.01);
    expect(
      share((entity) =>
        Object.entries(entity.privacySettings).some(([flag, on]) => flag !== 'publicSuggestChangesYn' && on),
      ),
    ).toBeGreaterThan(0.2);
  });

  it('has voluntary Primary Business Data for part of the register only', () => {
    const withPhones = share((entity) => entity.phoneNumbers.length > 0);
    expect(withPhones).toBeGreaterThan(0.2);
    expect(withPhones).toBeLessThan(0.7);
    expect(share((entity) => entity.tradingNames.length > 0)).toBeGreaterThan(0.1);
    expect(share((entity) => entity.websites.length > 0)).toBeGreaterThan(0.05);
  });
});

describe('generateEntity: overrides and asOf', () => {
  it('takes fixed type, status, name, number and private data', () => {
    const entity = generateEntity(entityRandom('o', 1), 1, context, {
      entityTypeCode: 'Sole_Trader',
      entityStatusCode: '91',
      entityName: 'Test Person',
      nzbn: '9429000035170',
      privateData: true,
    });
    expect(entity).toMatchObject({
      entityTypeCode: 'Sole_Trader',
      entityStatusCode: '91',
      entityName: 'Test Person',
      nzbn: '9429000035170',
      entityStatusDescription: 'Removed/Closed',
    });
    expect(entity.phoneNumbers.length).toBeGreaterThan(0);
    expect(entity.emailAddresses.length).toBeGreaterThan(0);
    expect(entity.gstNumbers.length).toBeGreaterThan(0);
    expect(entity.privacySettings.phonePrivateInformation).toBe(true);
    expect(entity.privacySettings.gstNumberPrivateInformation).toBe(true);
  });

  it('dates nothing after a given asOf', () => {
    const asOf = nzLocalToEpoch(2012, 1, 1);
    for (let index = 0; index < 300; index++) {
      const entity = generateEntityAt('early', index, { geography, asOf });
      for (const [path, , value] of datesOf(entity))
        expect(parseNzDateTime(value)!, path).toBeLessThanOrEqual(asOf);
      expect(Value.Check(Entity, entity)).toBe(true);
    }
  });
});
