import { describe, expect, it } from 'vitest';
import { addDays, isDate, parseDate } from '../../src/platform/calendar.ts';

describe('calendar dates', () => {
  it('parses a real YYYY-MM-DD date', () => {
    expect(parseDate('2026-11-29')).toEqual({ year: 2026, month: 11, day: 29 });
    expect(parseDate('0001-01-01')).toEqual({ year: 1, month: 1, day: 1 });
    expect(parseDate('2024-02-29')).toEqual({ year: 2024, month: 2, day: 29 });
    expect(parseDate('2000-02-29')).toEqual({ year: 2000, month: 2, day: 29 });
    expect(parseDate('9999-12-31')).toEqual({ year: 9999, month: 12, day: 31 });
  });

  it('refuses what is not one', () => {
    for (const text of [
      '2026-02-30',
      '2025-02-29',
      '1900-02-29',
      '2026-04-31',
      '2026-13-01',
      '2026-00-10',
      '2026-01-00',
      '0000-01-01',
      '2026-1-01',
      '2026-01-1',
      '26-01-01',
      '2026/01/01',
      '2026-01-01 ',
      '2026-01-01\n',
      ' 2026-01-01',
      '2026-01-0a',
      '２０２６-01-01',
      '2026-01-01T00:00',
      '',
    ])
      expect(isDate(text), text).toBe(false);
  });

  it('steps whole days across months, years and leap days', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(() => addDays('2026-02-30', 1)).toThrow(RangeError);
  });
});
