/**
 * The date ranges of the bibliographic lists: `start-date` and `end-date` (cases updated, new
 * applications included), and for designs `registered-start-date` and `registered-end-date` instead.
 *
 * Ours (the parameter names and these rules are not published): dates are `YYYY-MM-DD` New Zealand dates,
 * both ends included; both ends are required; the end is not before the start; a range is at most 366
 * days (a year, leap day included), which bounds one answer; the two kinds of range are not combined.
 */
import { addDays, isDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import type { ListRange } from './bibliographic.ts';

export const MAX_RANGE_DAYS = 366;

function date(field: string, value: unknown): string {
  if (value === undefined || value === '') throw new RuleError(field, 'is required');
  if (typeof value !== 'string') throw new RuleError(field, 'must be a single date, YYYY-MM-DD');
  if (!isDate(value)) throw new RuleError(field, 'must be a date, YYYY-MM-DD');
  return value;
}

function pair(
  query: Record<string, unknown>,
  start: string,
  end: string,
  dateType: ListRange['dateType'],
): ListRange {
  const startDate = date(start, query[start]);
  const endDate = date(end, query[end]);
  if (endDate < startDate) throw new RuleError(end, `must not be before ${start}`);
  if (addDays(startDate, MAX_RANGE_DAYS - 1) < endDate)
    throw new RuleError(end, `must be at most ${MAX_RANGE_DAYS} days from ${start} (both included)`);
  return { dateType, startDate, endDate };
}

const given = (value: unknown) => value !== undefined && value !== '';

/** The range of a list query; `registered` ranges are taken only where `allowRegistered` (designs). */
export function parseListRange(query: Record<string, unknown>, allowRegistered: boolean): ListRange {
  const registered = given(query['registered-start-date']) || given(query['registered-end-date']);
  const updated = given(query['start-date']) || given(query['end-date']);
  if (registered && !allowRegistered)
    throw new RuleError('registered-start-date', 'is taken only by the designs list');
  if (registered && updated)
    throw new RuleError('registered-start-date', 'cannot be combined with start-date and end-date');
  if (registered) return pair(query, 'registered-start-date', 'registered-end-date', 'Registered');
  return pair(query, 'start-date', 'end-date', 'Updated');
}
