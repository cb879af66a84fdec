import { describe, expect, it } from 'vitest';
import { RuleError } from '../../../src/platform/errors.ts';
import { buildPeriod, latestPeriodEnding, monthOf } from '../../../src/services/market-rent/domain/period.ts';

const NZ = 'Pacific/Auckland';
const mid = new Date('2026-09-15T00:00:00Z');

describe('latestPeriodEnding', () => {
  it.each([
    ['2026-09-15T00:00:00Z', NZ, '2026-07'],
    ['2026-01-10T00:00:00Z', NZ, '2025-11'],
    ['2026-02-10T00:00:00Z', NZ, '2025-12'],
    // 1 August 11:30 in Auckland is still 31 July in UTC: the service follows Auckland.
    ['2026-07-31T23:30:00Z', NZ, '2026-06'],
    ['2026-07-31T23:30:00Z', 'UTC', '2026-05'],
  ])('on %s (%s) is %s', (instant, zone, expected) => {
    expect(latestPeriodEnding(new Date(instant), zone)).toBe(expected);
  });

  it('reads the calendar month of an instant in a zone', () => {
    expect(monthOf(new Date('2026-12-31T12:00:00Z'), NZ)).toEqual({ year: 2027, month: 1 });
  });
});

describe('buildPeriod', () => {
  it.each([
    ['2026-07', 1, '2026-7-1/2026-7-31', '2026-07-01', '2026-07-31', ['2026-07']],
    ['2026-07', 3, '2026-5-1/2026-7-31', '2026-05-01', '2026-07-31', ['2026-05', '2026-06', '2026-07']],
    ['2024-02', 1, '2024-2-1/2024-2-29', '2024-02-01', '2024-02-29', ['2024-02']],
    ['2023-02', 2, '2023-1-1/2023-2-28', '2023-01-01', '2023-02-28', ['2023-01', '2023-02']],
    ['2023-12', 12, '2023-1-1/2023-12-31', '2023-01-01', '2023-12-31', undefined],
    ['2022-12', 24, '2021-1-1/2022-12-31', '2021-01-01', '2022-12-31', undefined],
    [
      '2020-03',
      4,
      '2019-12-1/2020-3-31',
      '2019-12-01',
      '2020-03-31',
      ['2019-12', '2020-01', '2020-02', '2020-03'],
    ],
  ])('%s over %i months covers %s', (ending, months, covered, firstDay, lastDay, list) => {
    const period = buildPeriod(ending, months, mid, NZ);
    expect(period.periodCovered).toBe(covered);
    expect(period.firstDay).toBe(firstDay);
    expect(period.lastDay).toBe(lastDay);
    expect(period.start.toISOString()).toBe(`${firstDay}T00:00:00.000Z`);
    expect(period.end.toISOString()).toBe(`${lastDay}T00:00:00.000Z`);
    expect(period.months).toHaveLength(months);
    if (list) expect(period.months).toEqual(list);
  });

  it.each([
    ['2026-08', 1, 'period-ending', /too recent, the latest allowed today is 2026-07/],
    ['2026-09', 1, 'period-ending', /too recent/],
    ['2027-01', 1, 'period-ending', /too recent/],
    ['2026-7', 1, 'period-ending', /yyyy-mm/],
    ['2026-13', 1, 'period-ending', /yyyy-mm/],
    ['2026-00', 1, 'period-ending', /yyyy-mm/],
    ['0999-01', 1, 'period-ending', /yyyy-mm/],
    ['2026/07', 1, 'period-ending', /yyyy-mm/],
    ['2026-07', 0, 'num-months', /1 to 24/],
    ['2026-07', 25, 'num-months', /1 to 24/],
    ['2026-07', 1.5, 'num-months', /1 to 24/],
  ])('refuses %s over %f months (%s)', (ending, months, parameter, message) => {
    let error: unknown;
    try {
      buildPeriod(ending, months, mid, NZ);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RuleError);
    expect(error).toMatchObject({ field: parameter, message: expect.stringMatching(message) });
  });
});
