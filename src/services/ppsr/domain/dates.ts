/**
 * The life of a financing statement in New Zealand calendar dates (published: a statement lasts at most
 * five years; the expiry defaults to the registration date plus five years; a renewal extends it, again by
 * at most five years from the renewal). Ours: dates are `YYYY-MM-DD` in New Zealand time; a statement is in
 * force to the end of its expiry date and `Expired` from the next day; five years from 29 February is
 * 28 February.
 */
import { addYears, parseDate } from '../../../platform/calendar.ts';

import { RuleError } from '../../../platform/errors.ts';

export const MAX_YEARS = 5;

/**
 * The expiry date of a registration or renewal made on `today`: the requested one if it is after today
 * and at most five years on, else the default of five years on. `field` names the request's field.
 */
export function expiryDate(today: string, requested: string | undefined, field = 'expiryDate'): string {
  const latest = addYears(today, MAX_YEARS);
  if (requested === undefined) return latest;
  if (!parseDate(requested)) throw new RuleError(field, 'must be a date, YYYY-MM-DD');
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
