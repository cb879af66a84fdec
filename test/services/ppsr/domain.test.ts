import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addYears, nzDate } from '../../../src/platform/calendar.ts';
import { RuleError } from '../../../src/platform/errors.ts';
import { withCheckDigit } from '../../../src/platform/gs1.ts';
import { checkCollaterals } from '../../../src/services/ppsr/domain/collateral.ts';
import { expiryDate, renewedExpiryDate, statusOn } from '../../../src/services/ppsr/domain/dates.ts';
import { checkDebtors, checkSecuredParties } from '../../../src/services/ppsr/domain/parties.ts';
import {
  isRegistrationNumber,
  pinFrom,
  registrationNumberFrom,
} from '../../../src/services/ppsr/domain/registration-number.ts';
import { checkPaging, checkSearch } from '../../../src/services/ppsr/domain/search.ts';
import {
  hasValidCheckCharacter,
  vinCheckCharacter,
  withVinCheckCharacter,
} from '../../../src/services/ppsr/domain/vehicles.ts';
import { broken } from '../../support/rules.ts';

const VIN_CHARS = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';
const vinPart = fc.string({ unit: fc.constantFrom(...VIN_CHARS), minLength: 8, maxLength: 8 });
const vehicle = { make: 'Toyota', model: 'Hilux', year: 2019, registrationPlate: 'ABC123' };

describe('VIN check characters', () => {
  it('match published examples', () => {
    expect(vinCheckCharacter('1M8GDM9AXKP042788')).toBe('X');
    expect(vinCheckCharacter('1HGCM82633A004352')).toBe('3');
    expect(hasValidCheckCharacter('11111111111111111')).toBe(true);
    expect(hasValidCheckCharacter('1HGCM82643A004352')).toBe(false);
  });

  it('withVinCheckCharacter always makes a VIN that checks', () => {
    fc.assert(
      fc.property(vinPart, vinPart, (first, last) =>
        hasValidCheckCharacter(withVinCheckCharacter(first, last)),
      ),
    );
  });

  it('refuses characters outside the VIN alphabet', () => {
    expect(() => vinCheckCharacter('1HGCM82633A00435O')).toThrow(RangeError);
  });
});

describe('registration numbers and PINs', () => {
  it('are 16 letters and digits, and 8 digits', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
        expect(isRegistrationNumber(registrationNumberFrom(bytes))).toBe(true);
        expect(pinFrom(bytes)).toMatch(/^\d{8}$/);
      }),
    );
    expect(isRegistrationNumber('FH04R729A8ND9224')).toBe(true);
    expect(isRegistrationNumber('fh04r729a8nd9224')).toBe(false);
  });
});

describe('dates', () => {
  it('five years on, 29 February to 28 February', () => {
    expect(addYears('2024-02-29', 5)).toBe('2029-02-28');
    expect(addYears('2023-03-01', 5)).toBe('2028-03-01');
  });

  it('the New Zealand date of an instant, across midnight and daylight saving', () => {
    expect(nzDate(Date.parse('2026-06-30T12:00:00Z'))).toBe('2026-07-01'); // NZST, UTC+12
    expect(nzDate(Date.parse('2026-12-31T10:59:59Z'))).toBe('2026-12-31'); // NZDT, UTC+13
    expect(nzDate(Date.parse('2026-12-31T11:00:00Z'))).toBe('2027-01-01');
  });

  it('expiry: default five years, requested within (today, today + 5 years]', () => {
    expect(expiryDate('2026-11-24', undefined)).toBe('2031-11-24');
    expect(expiryDate('2026-11-24', '2027-01-01')).toBe('2027-01-01');
    expect(broken(() => expiryDate('2026-11-24', '2031-11-25'))).toEqual({
      field: 'expiryDate',
      rule: 'must be at most 5 years from today (2031-11-24)',
    });
    expect(broken(() => expiryDate('2026-11-24', '2026-11-24')).rule).toBe(
      'must be after today (2026-11-24)',
    );
    expect(broken(() => expiryDate('2026-11-24', '2027-02-30')).rule).toBe('must be a date, YYYY-MM-DD');
  });

  it('a renewal extends the expiry, at most five years from the renewal', () => {
    expect(renewedExpiryDate('2029-01-10', '2029-06-01', undefined)).toBe('2034-01-10');
    expect(broken(() => renewedExpiryDate('2029-01-10', '2029-06-01', '2029-05-01')).rule).toBe(
      'must be later than the current expiry date (2029-06-01)',
    );
  });

  it('status: discharged is final, expired from the day after expiry', () => {
    expect(statusOn('2031-11-24', '2031-11-24', false)).toBe('Registered');
    expect(statusOn('2031-11-25', '2031-11-24', false)).toBe('Expired');
    expect(statusOn('2027-01-01', '2031-11-24', true)).toBe('Discharged');
  });
});

describe('collateral rules', () => {
  it('a motor vehicle needs make, model, year and one identifier, each well-formed', () => {
    const mv = (v: object) => [
      { collateralType: 'GOODS_MOTOR_VEHICLES' as const, motorVehicles: [v as never] },
    ];
    expect(broken(() => checkCollaterals(mv({ ...vehicle, make: ' ' }), 2026))).toEqual({
      field: 'collaterals.0.motorVehicles.0.make',
      rule: 'is required',
    });
    expect(broken(() => checkCollaterals(mv({ ...vehicle, year: 2028 }), 2026))).toEqual({
      field: 'collaterals.0.motorVehicles.0.year',
      rule: 'must be a year from 1886 to 2027',
    });
    expect(broken(() => checkCollaterals(mv({ make: 'Ford', model: 'Ranger', year: 2020 }), 2026))).toEqual({
      field: 'collaterals.0.motorVehicles.0',
      rule: 'must have at least one of vin, chassisNumber and registrationPlate',
    });
    expect(broken(() => checkCollaterals(mv({ ...vehicle, vin: '1HGCM82633A00435O' }), 2026)).field).toBe(
      'collaterals.0.motorVehicles.0.vin',
    );
    expect(
      broken(() => checkCollaterals(mv({ ...vehicle, registrationPlate: 'ABCD1234' }), 2026)).field,
    ).toBe('collaterals.0.motorVehicles.0.registrationPlate');
    const [checked] = checkCollaterals(
      mv({ ...vehicle, registrationPlate: 'abc 123', vin: '1hgcm82633a004352' }),
      2026,
    );
    expect(checked?.motorVehicles?.[0]).toMatchObject({
      registrationPlate: 'ABC123',
      vin: '1HGCM82633A004352',
    });
  });

  it('an amendment does not check a vehicle kept as it was', () => {
    const old = { ...vehicle, year: 1850 }; // broken by today's rule, registered long ago
    const previous = [{ collateralType: 'GOODS_MOTOR_VEHICLES' as const, motorVehicles: [old] }];
    expect(() => checkCollaterals(previous, 2026, previous)).not.toThrow();
    expect(() => checkCollaterals(previous, 2026)).toThrow(RuleError);
  });

  it('descriptions, types and lists', () => {
    expect(broken(() => checkCollaterals([], 2026))).toEqual({
      field: 'collaterals',
      rule: 'must have at least one collateral',
    });
    expect(
      broken(() => checkCollaterals([{ collateralType: 'MONEY', description: 'x'.repeat(4001) }], 2026)),
    ).toEqual({
      field: 'collaterals.0.description',
      rule: 'must be at most 4000 characters',
    });
    expect(() =>
      checkCollaterals([{ collateralType: 'MONEY', description: 'x'.repeat(4000) }], 2026),
    ).not.toThrow();
    expect(broken(() => checkCollaterals([{ collateralType: 'AAPP_EXCEPT' }], 2026)).field).toBe(
      'collaterals.0.description',
    );
    expect(broken(() => checkCollaterals([{ collateralType: 'CARS' as never }], 2026)).field).toBe(
      'collaterals.0.collateralType',
    );
    expect(
      broken(() => checkCollaterals([{ collateralType: 'MONEY', motorVehicles: [vehicle] }], 2026)).field,
    ).toBe('collaterals.0.motorVehicles');
    expect(broken(() => checkCollaterals([{ collateralType: 'GOODS_AIRCRAFT' }], 2026))).toEqual({
      field: 'collaterals.0.aircraft',
      rule: 'must list 1 to 100 aircraft',
    });
  });
});

describe('parties', () => {
  const nzbn = withCheckDigit('942000000001');
  it('an organisation debtor needs a business number unless a trust, partnership or sole trader', () => {
    expect(
      broken(() => checkDebtors([{ debtorType: 'organisation', organisationName: 'Acme' }], '2026-11-24')),
    ).toEqual({
      field: 'debtors.0.nzbn',
      rule: 'is required unless organisationType is TRUST, PARTNERSHIP or SOLE_TRADER',
    });
    const trust = checkDebtors(
      [{ debtorType: 'organisation', organisationName: 'Acme Trust', organisationType: 'TRUST' }],
      '2026-11-24',
    );
    expect(trust[0]).toMatchObject({ organisationType: 'TRUST' });
    const wrong = `${nzbn.slice(0, 12)}${(Number(nzbn[12]) + 1) % 10}`;
    expect(
      broken(() =>
        checkDebtors([{ debtorType: 'organisation', organisationName: 'A', nzbn: wrong }], '2026-11-24'),
      ).rule,
    ).toMatch(/^is not a business number: wrong check digit, expected \d$/);
    expect(
      checkDebtors([{ debtorType: 'organisation', organisationName: ' Acme ', nzbn }], '2026-11-24')[0],
    ).toEqual({
      debtorType: 'organisation',
      organisationName: 'Acme',
      organisationType: 'COMPANY',
      nzbn,
    });
  });

  it('a person debtor needs names and a date of birth in the past', () => {
    const person = {
      debtorType: 'person' as const,
      firstName: 'Aroha',
      lastName: 'Ngata',
      dateOfBirth: '1980-05-01',
    };
    expect(checkDebtors([person], '2026-11-24')).toHaveLength(1);
    expect(broken(() => checkDebtors([{ ...person, dateOfBirth: '2027-01-01' }], '2026-11-24')).field).toBe(
      'debtors.0.dateOfBirth',
    );
    expect(broken(() => checkDebtors([{ ...person, lastName: '' }], '2026-11-24')).field).toBe(
      'debtors.0.lastName',
    );
  });

  it('a secured party needs an email for the verification statement', () => {
    expect(broken(() => checkSecuredParties([{ name: 'Bank', email: 'nope' }]))).toEqual({
      field: 'securedParties.0.email',
      rule: 'must be an email address',
    });
  });
});

describe('search requests', () => {
  const base = { legitimateSearchReason: 'yes' };
  it('the published motor vehicle search', () => {
    expect(
      checkSearch({
        ...base,
        searchBy: 'motorVehicle',
        searchByMotorVehicle: { registrationPlate: 'abc123' },
      }),
    ).toEqual({
      searchBy: 'motorVehicle',
      criterion: { kind: 'registrationPlate', value: 'ABC123' },
      page: 1,
      pageSize: 20,
    });
  });

  it('needs a legitimate reason, a known kind and its criterion', () => {
    expect(broken(() => checkSearch({ searchBy: 'motorVehicle' })).field).toBe('legitimateSearchReason');
    expect(broken(() => checkSearch({ ...base, searchBy: 'boats' })).field).toBe('searchBy');
    expect(
      broken(() =>
        checkSearch({ ...base, searchBy: 'debtorPerson', searchByDebtorPerson: { firstName: 'A' } }),
      ),
    ).toEqual({
      field: 'searchByDebtorPerson.lastName',
      rule: 'is required',
    });
    expect(
      broken(() =>
        checkSearch({
          ...base,
          searchBy: 'debtorOrganisation',
          searchByDebtorOrganisation: { organisationName: 'A' },
        }),
      ).rule,
    ).toBe('must be at least 2 characters for a starts-with search');
    expect(
      checkSearch({
        ...base,
        searchBy: 'debtorOrganisation',
        searchByDebtorOrganisation: { organisationName: 'A', exactMatch: true },
      }).criterion,
    ).toEqual({ kind: 'organisationName', name: 'A', exact: true });
    expect(
      broken(() =>
        checkSearch({
          ...base,
          searchBy: 'motorVehicle',
          searchByMotorVehicle: { registrationPlate: 'ABC123', vin: '1HGCM82633A004352' },
        }),
      ).rule,
    ).toBe('must have exactly one of vin, chassisNumber and registrationPlate');
  });

  it('paging stays within 300 results', () => {
    expect(checkPaging({ page: 3, pageSize: 100 })).toEqual({ page: 3, pageSize: 100 });
    expect(broken(() => checkPaging({ page: 4, pageSize: 100 })).rule).toBe(
      'must start within the first 300 results',
    );
    expect(broken(() => checkPaging({ pageSize: 101 })).field).toBe('pageSize');
  });
});
