/**
 * Calendar dates as the registers write them, `YYYY-MM-DD`, without a time zone: parsing that refuses
 * dates that do not exist, and whole-year steps. (Instants and New Zealand wall time are another matter:
 * a date here is already a New Zealand date.)
 */

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

/** A real calendar date in `YYYY-MM-DD` form (not 2026-02-30), or null. */
export function parseIsoDate(text: string): CalendarDate | null {
  const match = ISO_DATE.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
    return null;
  return { year, month, day };
}

export const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

export const formatIsoDate = ({ year, month, day }: CalendarDate): string =>
  `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

/** `date` plus whole years; 29 February becomes 28 February in a common year. */
export function addYears(date: string, years: number): string {
  const parsed = parseIsoDate(date);
  if (!parsed) throw new RangeError(`${JSON.stringify(date)} is not a date`);
  const year = parsed.year + years;
  const day = parsed.month === 2 && parsed.day === 29 && !isLeapYear(year) ? 28 : parsed.day;
  return formatIsoDate({ year, month: parsed.month, day });
}

/** `date` plus whole days (negative to go back). */
export function addDays(date: string, days: number): string {
  const parsed = parseIsoDate(date);
  if (!parsed) throw new RangeError(`${JSON.stringify(date)} is not a date`);
  const moved = new Date(Date.UTC(parsed.year, parsed.month - 1, parsed.day + days));
  return moved.toISOString().slice(0, 10);
}

/** Day of the week, 0 Sunday … 6 Saturday. */
export function weekday(date: string): number {
  const parsed = parseIsoDate(date);
  if (!parsed) throw new RangeError(`${JSON.stringify(date)} is not a date`);
  return new Date(Date.UTC(parsed.year, parsed.month - 1, parsed.day)).getUTCDay();
}
