/**
 * New Zealand working days, as the Legislation Act 2019 (s 13) defines them and so as the Financial
 * Markets Conduct Act's deadlines count them: every day except Saturdays and Sundays; Waitangi Day, Good
 * Friday, Easter Monday, Anzac Day, the Sovereign's birthday, Matariki and Labour Day; Waitangi Day and
 * Anzac Day observed on the Monday when they fall on a weekend; and the days from 25 December to
 * 2 January. The public holidays come from the maintained `date-holidays` library (its New Zealand
 * national holidays, Matariki's legislated dates included), not from a list of ours; regional
 * anniversary days are not excluded (they are not national).
 */
import type Holidays from 'date-holidays';
import { addDays, parseDate, weekday } from '../../../platform/calendar.ts';
import { lazyRequire } from '../../../platform/lazy-require.ts';

const library = lazyRequire<typeof Holidays>('date-holidays');
let calendar: Holidays | undefined;
const holidays = (): Holidays => {
  calendar ??= new (library())('NZ');
  return calendar;
};
/**
 * The holidays s 13 names, as the library names them (the Sovereign's birthday under both monarchs).
 * Christmas, Boxing Day and New Year fall in the 25 December – 2 January closure; their Mondayised days
 * after 2 January are public holidays but working days under s 13, which Mondayises only Waitangi Day
 * and Anzac Day.
 */
const NAMED = new Set([
  'Waitangi Day',
  'Good Friday',
  'Easter Monday',
  'ANZAC Day',
  "King's Birthday",
  "Queen's Birthday",
  'Matariki',
  'Labour Day',
]);
const MONDAYISED = new Set(['Waitangi Day', 'ANZAC Day']);
const byYear = new Map<number, Set<string>>();

/** The holidays of a year that are not working days, `YYYY-MM-DD` (Waitangi's and Anzac's Mondays included). */
export function nonWorkingHolidays(year: number): ReadonlySet<string> {
  let days = byYear.get(year);
  if (!days) {
    days = new Set(
      holidays()
        .getHolidays(year)
        .filter((h) => {
          if (h.type !== 'public') return false;
          const name = h.name.replace(/ \(substitute day\)$/, '');
          return h.substitute ? MONDAYISED.has(name) : NAMED.has(name);
        })
        .map((h) => h.date.slice(0, 10)),
    );
    byYear.set(year, days);
  }
  return days;
}

/** Whether a calendar date (`YYYY-MM-DD`) is a New Zealand working day. */
export function isWorkingDay(date: string): boolean {
  const parsed = parseDate(date);
  if (!parsed) throw new RangeError(`${JSON.stringify(date)} is not a date`);
  const day = weekday(date);
  if (day === 0 || day === 6) return false;
  // 25 December to 2 January (s 13(b) of the Legislation Act 2019).
  if ((parsed.month === 12 && parsed.day >= 25) || (parsed.month === 1 && parsed.day <= 2)) return false;
  return !nonWorkingHolidays(parsed.year).has(date);
}

/** The date `count` working days after `date` (the day itself not counted). */
export function addWorkingDays(date: string, count: number): string {
  let cursor = date;
  for (let left = count; left > 0; ) {
    cursor = addDays(cursor, 1);
    if (isWorkingDay(cursor)) left--;
  }
  return cursor;
}
