/**
 * Compliance activities of a fund (published: full portfolio holdings are filed six-monthly for periods
 * ending 31 March and 30 September, within 40 working days of the period end; a late filing is marked and
 * the regulator told). Ours: an activity is `Filed` once filed (late or not), else `Overdue` after its due
 * date, else `Upcoming`; a period is open for filing from the day after it ends; one filing per period.
 */
import { parseDate } from '../../../platform/calendar.ts';
import { addWorkingDays } from './working-days.ts';

export const FPH_WORKING_DAYS = 40;
export type ActivityStatus = 'Upcoming' | 'Overdue' | 'Filed';

/** Whether a date ends an FPH period (31 March or 30 September). */
export function isPeriodEnd(date: string): boolean {
  const parsed = parseDate(date);
  return !!parsed && ((parsed.month === 3 && parsed.day === 31) || (parsed.month === 9 && parsed.day === 30));
}

/** The FPH due date of the period ending on `periodEnd`. */
export function fphDueDate(periodEnd: string): string {
  if (!isPeriodEnd(periodEnd)) throw new RangeError(`${periodEnd} does not end an FPH period`);
  return addWorkingDays(periodEnd, FPH_WORKING_DAYS);
}

/** The period ends from `from` to `to` (both inclusive, `YYYY-MM-DD`), oldest first. */
export function periodEndsBetween(from: string, to: string): string[] {
  const start = parseDate(from);
  if (!start) throw new RangeError(`${from} is not a date`);
  const ends: string[] = [];
  for (let year = start.year; `${year}-01-01` <= to; year++) {
    for (const end of [`${year}-03-31`, `${year}-09-30`]) if (end >= from && end <= to) ends.push(end);
  }
  return ends;
}

/** The latest period that has ended before `today` (`YYYY-MM-DD`). */
export function lastEndedPeriod(today: string): string {
  const year = Number(today.slice(0, 4));
  const candidates = [`${year - 1}-09-30`, `${year}-03-31`, `${year}-09-30`].filter((end) => end < today);
  return candidates.at(-1)!;
}

export function activityStatus(dueDate: string, today: string, filedOn: string | null): ActivityStatus {
  if (filedOn) return 'Filed';
  return today > dueDate ? 'Overdue' : 'Upcoming';
}

/** Whether a filing made on `filedOn` was late. */
export const isLate = (dueDate: string, filedOn: string): boolean => filedOn > dueDate;
