import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  activityStatus,
  fphDueDate,
  isLate,
  lastEndedPeriod,
  periodEndsBetween,
} from '../../../src/services/disclose/domain/compliance.ts';
import { holdingsProblems } from '../../../src/services/disclose/domain/holdings.ts';
import {
  isinCheckDigit,
  isinProblem,
  withIsinCheckDigit,
} from '../../../src/services/disclose/domain/isin.ts';
import {
  addWorkingDays,
  isWorkingDay,
  nonWorkingHolidays,
} from '../../../src/services/disclose/domain/working-days.ts';

describe('ISINs', () => {
  it('check digits of published ISINs', () => {
    expect(isinProblem('US0378331005')).toBeNull();
    expect(isinProblem('AU0000XVGZA3')).toBeNull();
    expect(isinProblem('GB0002634946')).toBeNull();
    expect(isinProblem('US0378331006')).toBe('has a wrong check digit, expected 5');
    expect(isinProblem('us0378331005')).toMatch(/^must be 2 letters/);
  });

  it('one changed character is always caught', () => {
    const body = fc.string({
      unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'),
      minLength: 9,
      maxLength: 9,
    });
    fc.assert(
      fc.property(
        fc.constantFrom('NZ', 'AU', 'US'),
        body,
        fc.integer({ min: 0, max: 9 }),
        (country, rest, digit) => {
          const isin = withIsinCheckDigit(`${country}${rest}`);
          expect(isinProblem(isin)).toBeNull();
          const other = `${isin.slice(0, 11)}${digit}`;
          expect(isinProblem(other) === null).toBe(digit === isinCheckDigit(`${country}${rest}`));
        },
      ),
    );
  });
});

describe('New Zealand working days', () => {
  it('weekends, national holidays (Matariki, Mondayised Anzac Day) and 25 December to 2 January are not', () => {
    expect(isWorkingDay('2026-04-03')).toBe(false); // Good Friday
    expect(isWorkingDay('2026-04-27')).toBe(false); // Anzac Day on a Saturday, observed Monday
    expect(isWorkingDay('2026-07-10')).toBe(false); // Matariki
    expect(isWorkingDay('2026-12-31')).toBe(false); // inside 25 December – 2 January
    expect(isWorkingDay('2026-11-16')).toBe(true); // Canterbury's anniversary day is regional, not national
    expect(isWorkingDay('2026-04-28')).toBe(true);
    expect(addWorkingDays('2026-12-24', 1)).toBe('2027-01-04');
  });

  it('FPH due dates: 40 working days after 31 March and 30 September', () => {
    expect(fphDueDate('2026-03-31')).toBe('2026-05-29');
    expect(fphDueDate('2026-09-30')).toBe('2026-11-26');
    expect(() => fphDueDate('2026-06-30')).toThrow(RangeError);
  });
});

describe('compliance activities', () => {
  it('periods, status and lateness', () => {
    expect(periodEndsBetween('2025-04-01', '2026-09-30')).toEqual(['2025-09-30', '2026-03-31', '2026-09-30']);
    expect(lastEndedPeriod('2026-11-24')).toBe('2026-09-30');
    expect(lastEndedPeriod('2026-03-31')).toBe('2025-09-30');
    expect(activityStatus('2026-11-26', '2026-11-26', null)).toBe('Upcoming');
    expect(activityStatus('2026-11-26', '2026-11-27', null)).toBe('Overdue');
    expect(activityStatus('2026-11-26', '2026-11-27', '2026-11-27')).toBe('Filed');
    expect(isLate('2026-11-26', '2026-11-27')).toBe(true);
    expect(isLate('2026-11-26', '2026-11-26')).toBe(false);
  });
});

describe('full portfolio holdings', () => {
  const good = [
    {
      assetName: 'Apple Inc',
      assetType: 'INTERNATIONAL_EQUITIES',
      isin: 'US0378331005',
      value: 1250.5,
      percentageOfFund: 60,
      currency: 'USD',
    },
    {
      assetName: 'Cash at bank',
      assetType: 'CASH_AND_CASH_EQUIVALENTS',
      value: 800,
      percentageOfFund: 40.03,
      currency: 'NZD',
    },
  ];

  it('a good filing has no problems; the sum may be off by the tolerance', () => {
    expect(holdingsProblems(good)).toEqual([]);
  });

  it('every problem is reported at once, each with its field', () => {
    const bad = [
      {
        assetName: '',
        assetType: 'SHARES',
        isin: 'US0378331006',
        value: 1.234,
        percentageOfFund: 150,
        currency: 'XXY',
      },
      { ...good[1], value: -5 },
      'not an object',
    ];
    expect(holdingsProblems(bad)).toEqual([
      { field: 'holdings.0.assetName', message: 'is required' },
      {
        field: 'holdings.0.assetType',
        message: expect.stringMatching(/^must be one of CASH_AND_CASH_EQUIVALENTS/),
      },
      { field: 'holdings.0.isin', message: 'has a wrong check digit, expected 5' },
      { field: 'holdings.0.value', message: 'must have at most 2 decimal places' },
      { field: 'holdings.0.percentageOfFund', message: 'must be a number from -100 to 100' },
      { field: 'holdings.0.currency', message: 'must be an ISO 4217 currency code, e.g. NZD' },
      { field: 'holdings.1.value', message: 'may be negative only for assetType OTHER (derivatives)' },
      { field: 'holdings.2', message: 'must be an object' },
    ]);
  });

  it('percentages must sum to 100 within ±0.05', () => {
    const off = [good[0], { ...good[1], percentageOfFund: 39.9 }];
    expect(holdingsProblems(off)).toEqual([
      { field: 'holdings', message: 'percentageOfFund must sum to 100 within ±0.05; it sums to 99.9' },
    ]);
    expect(holdingsProblems([])).toEqual([{ field: 'holdings', message: 'must have at least one holding' }]);
  });
});

describe('the holidays s 13 names', () => {
  it('every year has its seven holidays (Matariki from 2022), and no Mondayised Christmas or New Year', () => {
    for (let year = 2015; year <= 2040; year++) {
      const days = nonWorkingHolidays(year);
      const expected = year >= 2022 ? 7 : 6;
      // Plus Waitangi's or Anzac's Monday when either falls on a weekend.
      expect(days.size - expected).toBeGreaterThanOrEqual(0);
      expect(days.size - expected).toBeLessThanOrEqual(2);
      for (const day of days) expect(day.slice(5) >= '01-03' && day.slice(5) <= '12-24').toBe(true);
    }
  });
});
