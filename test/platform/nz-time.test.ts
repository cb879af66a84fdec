import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatNzDateTime,
  isNzDateTimeString,
  nzLocalToEpoch,
  nzMidnight,
  nzOffsetMinutes,
  nzStartOfDay,
  parseNzDateTime,
} from '../../src/platform/nz-time.ts';

const utc = (text: string) => Date.parse(text);

describe('formatNzDateTime', () => {
  it.each([
    ['2009-03-23T11:00:00.000Z', '2009-03-24T00:00:00.000+1300'],
    ['2021-01-25T11:00:00.000Z', '2021-01-26T00:00:00.000+1300'],
    ['2020-05-27T02:42:57.000Z', '2020-05-27T14:42:57.000+1200'],
    ['2017-07-19T04:51:53.000Z', '2017-07-19T16:51:53.000+1200'],
    // Daylight saving ends 03:00 NZDT Sunday 7 April 2024 (14:00 UTC on the 6th): 02:00–03:00 repeats.
    ['2024-04-06T13:59:59.999Z', '2024-04-07T02:59:59.999+1300'],
    ['2024-04-06T14:00:00.000Z', '2024-04-07T02:00:00.000+1200'],
    // It starts 02:00 NZST Sunday 29 September 2024 (14:00 UTC on the 28th): 02:00–03:00 never happens.
    ['2024-09-28T13:59:59.999Z', '2024-09-29T01:59:59.999+1200'],
    ['2024-09-28T14:00:00.000Z', '2024-09-29T03:00:00.000+1300'],
    // Before 2007 daylight saving ran from the first Sunday of October to the third Sunday of March.
    ['1995-03-18T13:59:59.000Z', '1995-03-19T02:59:59.000+1300'],
    ['1995-03-18T14:00:00.000Z', '1995-03-19T02:00:00.000+1200'],
    ['1973-06-01T00:00:00.000Z', '1973-06-01T12:00:00.000+1200'],
    // New Zealand Mean Time was +11:30 until 1946.
    ['1930-06-01T00:00:00.000Z', '1930-06-01T11:30:00.000+1130'],
    ['1999-12-31T11:00:00.000Z', '2000-01-01T00:00:00.000+1300'],
    ['1969-12-31T23:59:59.999Z', '1970-01-01T11:59:59.999+1200'],
  ])('formats %s as %s', (instant, expected) => {
    expect(formatNzDateTime(utc(instant))).toBe(expected);
  });

  it('always gives time, milliseconds and a colon-free offset', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: utc('1900-01-01T00:00:00Z'), max: utc('2100-01-01T00:00:00Z') }),
        (instant) => {
          const text = formatNzDateTime(instant);
          expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+1[123][03]0$/);
          expect(isNzDateTimeString(text)).toBe(true);
        },
      ),
    );
  });

  it('agrees with Intl on the wall time of any instant', () => {
    const wall = new Intl.DateTimeFormat('en-CA', {
      timeZone: 'Pacific/Auckland',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    fc.assert(
      fc.property(
        fc.integer({ min: utc('1950-01-01T00:00:00Z'), max: utc('2060-01-01T00:00:00Z') }),
        (instant) => {
          const expected = wall.format(instant).replace(', ', 'T');
          expect(formatNzDateTime(instant).slice(0, 19)).toBe(expected);
        },
      ),
    );
  });

  it('round-trips through parseNzDateTime', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: utc('1870-01-01T00:00:00Z'), max: utc('2200-01-01T00:00:00Z') }),
        (instant) => {
          expect(parseNzDateTime(formatNzDateTime(instant))).toBe(instant);
        },
      ),
    );
  });
});

describe('parseNzDateTime', () => {
  it.each([
    ['2009-03-24T00:00:00.000+1300', '2009-03-23T11:00:00.000Z'],
    ['2009-03-24T00:00:00.000+13:00', '2009-03-23T11:00:00.000Z'],
    ['2009-03-23T11:00:00.000Z', '2009-03-23T11:00:00.000Z'],
    ['2009-03-23T11:00:00Z', '2009-03-23T11:00:00.000Z'],
    ['2009-03-24T00:00:00.5+1300', '2009-03-23T11:00:00.500Z'],
    ['2009-03-24T00:00:00.123456+1300', '2009-03-23T11:00:00.123Z'],
    ['2009-03-24T00:00+1300', '2009-03-23T11:00:00.000Z'],
    ['2009-03-24T05:00:00.000-0800', '2009-03-24T13:00:00.000Z'],
    // Without an offset, a date or date-time is New Zealand time.
    ['2009-03-24', '2009-03-23T11:00:00.000Z'],
    ['2009-07-24', '2009-07-23T12:00:00.000Z'],
    ['2009-07-24T09:30:00', '2009-07-23T21:30:00.000Z'],
    [' 2009-07-24 ', '2009-07-23T12:00:00.000Z'],
  ])('reads %s as %s', (text, instant) => {
    expect(parseNzDateTime(text)).toBe(utc(instant));
  });

  it.each([
    '',
    'yesterday',
    '2009-3-24',
    '2009-02-29',
    '2009-13-01',
    '2009-00-10',
    '2009-04-31',
    '2009-03-24T24:00:00.000+1300',
    '2009-03-24T10:60:00.000+1300',
    '2009-03-24T10:00:61.000+1300',
    '2009-03-24T10:00:00.000+1500',
    '2009-03-24T10:00:00.000+1360',
    '2009-03-24T10:00:00.000+13',
    '20090324T100000Z',
  ])('rejects %j', (text) => {
    expect(parseNzDateTime(text)).toBeNull();
  });

  it('accepts 29 February in a leap year', () => {
    expect(parseNzDateTime('2024-02-29')).toBe(utc('2024-02-28T11:00:00.000Z'));
  });
});

describe('New Zealand wall time to instant', () => {
  it('reads a repeated hour (daylight saving ends) as its first occurrence', () => {
    expect(nzLocalToEpoch(2024, 4, 7, 2, 30)).toBe(utc('2024-04-06T13:30:00.000Z'));
  });

  it('reads a skipped hour (daylight saving starts) an hour later, as Temporal does', () => {
    expect(nzLocalToEpoch(2024, 9, 29, 2, 30)).toBe(utc('2024-09-28T14:30:00.000Z'));
    expect(formatNzDateTime(nzLocalToEpoch(2024, 9, 29, 2, 30))).toBe('2024-09-29T03:30:00.000+1300');
  });

  it.each([
    [2024, 4, 7, '2024-04-06T11:00:00.000Z'],
    [2024, 4, 8, '2024-04-07T12:00:00.000Z'],
    [2024, 9, 29, '2024-09-28T12:00:00.000Z'],
    [2024, 9, 30, '2024-09-29T11:00:00.000Z'],
  ])('finds midnight of %i-%i-%i on and after a change day', (year, month, day, instant) => {
    expect(nzMidnight(year, month, day)).toBe(utc(instant));
  });

  it('finds the start of the day of any instant', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: utc('1950-01-01T00:00:00Z'), max: utc('2060-01-01T00:00:00Z') }),
        (instant) => {
          const midnight = nzStartOfDay(instant);
          expect(midnight).toBeLessThanOrEqual(instant);
          expect(instant - midnight).toBeLessThan(25 * 3_600_000);
          expect(formatNzDateTime(midnight)).toBe(
            `${formatNzDateTime(instant).slice(0, 10)}T00:00:00.000${formatNzDateTime(midnight).slice(-5)}`,
          );
        },
      ),
    );
  });

  it('gives the standard and daylight offsets', () => {
    expect(nzOffsetMinutes(utc('2025-01-15T00:00:00Z'))).toBe(780);
    expect(nzOffsetMinutes(utc('2025-07-15T00:00:00Z'))).toBe(720);
    expect(() => nzOffsetMinutes(Number.NaN)).toThrow(RangeError);
  });
});
