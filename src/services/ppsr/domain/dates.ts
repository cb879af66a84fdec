/**
 * The life of a financing statement in New Zealand calendar dates (published: a statement lasts at most
 * five years; the expiry defaults to the registration date plus five years; a renewal extends it, again by
 * at most five years from the renewal). Ours: dates are `YYYY-MM-DD` in New Zealand time; a statement is in
 * force to the end of its expiry date and `Expired` from the next day; five years from 29 February is
 * 28 February.
 */
import { RuleError } from '../../../platform/errors.ts';

export const MAX_YEARS = 5;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

const nzDateFormat = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Pacific/Auckland',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** The New Zealand calendar date of an instant, `YYYY-MM-DD`. */
export const nzDate = (epochMs: number): string => nzDateFormat.format(epochMs);

/** A real calendar date in `YYYY-MM-DD` form (not 2026-02-30), or null. */
export function parseIsoDate(text: string): { year: number; month: number; day: number } | null {
  const match = ISO_DATE.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
    return null;
  return { year, month, day };
}

/** `date` plus whole years; 29 February becomes 28 February in a common year. */
export function addYears(date: string, years: number): string {
  const parsed = parseIsoDate(date);
  if (!parsed) throw new RangeError(`${JSON.stringify(date)} is not a date`);
  const year = parsed.year + years;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const day = parsed.month === 2 && parsed.day === 29 && !leap ? 28 : parsed.day;
  return `${String(year).padStart(4, '0')}-${String(parsed.month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * The expiry date of a registration or renewal made on `today`: the requested one if it is after today
 * and at most five years on, else the default of five years on. `field` names the request's field.
 */
export function expiryDate(today: string, requested: string | undefined, field = 'expiryDate'): string {
  const latest = addYears(today, MAX_YEARS);
  if (requested === undefined) return latest;
  if (!parseIsoDate(requested)) throw new RuleError(field, 'must be a date, YYYY-MM-DD');
  if (requested <= today) throw new RuleError(field, `must be after today (${today})`);
  if (requested > latest)
    throw new RuleError(field, `must be at most ${MAX_YEARS} years from today (${latest})`);
  return requested;
}

/** A renewal's new expiry: as `expiryDate`, and later than the statement's current expiry. */
export function renewedExpiryDate(
  today: string,
  currentExpiry: string,
  requested: string | undefined,
): string {
  const next = expiryDate(today, requested);
  if (next <= currentExpiry) {
    throw new RuleError('expiryDate', `must be later than the current expiry date (${currentExpiry})`);
  }
  return next;
}

export type StatementStatus = 'Registered' | 'Discharged' | 'Expired';

/** The status on `today`: a discharge is final; otherwise expired the day after the expiry date. */
export function statusOn(today: string, expiry: string, discharged: boolean): StatementStatus {
  if (discharged) return 'Discharged';
  return today > expiry ? 'Expired' : 'Registered';
}
