import { formatNzDateTime } from './nz-time.ts';

/**
 * Calendar dates as the registers write them, `YYYY-MM-DD` strings (they sort as dates), already New
 * Zealand dates: parsing that refuses dates that do not exist, whole month, year and day steps, the day
 * of the week, and the New Zealand date of an instant. A date plus whole months or years that lands on a
 * day the month does not have takes the month's last day (29 February plus one year is 28 February; 31
 * August plus six months is 28 or 29 February); count anniversaries from the original date, never
 * chained, so they do not drift.
 */

export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

/** A real calendar date in `YYYY-MM-DD` form (not 2026-02-30, not year 0000), or null. */
export function parseDate(text: string): CalendarDate | null {
  // Read character by character (a sandbox seed parses tens of millions of dates).
  if (text.length !== 10 || text.charCodeAt(4) !== DASH || text.charCodeAt(7) !== DASH) return null;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 7);
  const day = digitsAt(text, 8, 10);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return { year, month, day };
}

const DASH = 45;
const ZERO = 48;

/** The number the ASCII digits `text[from..to)` write, or -1 when one is not a digit. */
function digitsAt(text: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - ZERO;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

export const isDate = (text: string): boolean => parseDate(text) !== null;

export const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

export const formatDate = ({ year, month, day }: CalendarDate): string =>
  `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

function parsed(date: string): CalendarDate {
  const value = parseDate(date);
  if (!value) throw new RangeError(`${JSON.stringify(date)} is not a date`);
  return value;
}

/** `date` plus (or minus) whole months, the day clamped to the month's last day. */
export function addMonths(date: string, months: number): string {
  const { year, month, day } = parsed(date);
  const index = year * 12 + (month - 1) + months;
  const newYear = Math.floor(index / 12);
  const newMonth = (index % 12) + 1;
  return formatDate({ year: newYear, month: newMonth, day: Math.min(day, daysInMonth(newYear, newMonth)) });
}

/** `date` plus (or minus) whole years; 29 February becomes 28 February in a common year. */
export const addYears = (date: string, years: number): string => addMonths(date, years * 12);

/** `date` plus (or minus) whole days. */
export function addDays(date: string, days: number): string {
  const { year, month, day } = parsed(date);
  const shifted = new Date(0);
  shifted.setUTCFullYear(year, month - 1, day + days); // not Date.UTC: it maps years 0–99 to 1900–1999
  return formatDate({
    year: shifted.getUTCFullYear(),
    month: shifted.getUTCMonth() + 1,
    day: shifted.getUTCDate(),
  });
}

/** The New Zealand calendar date of an instant ("today" for the registers' date rules). */
export const nzDate = (epochMs: number): string => formatNzDateTime(epochMs).slice(0, 10);

/** Day of the week, 0 Sunday … 6 Saturday. */
export function weekday(date: string): number {
  const { year, month, day } = parsed(date);
  const value = new Date(0);
  value.setUTCFullYear(year, month - 1, day);
  return value.getUTCDay();
}
