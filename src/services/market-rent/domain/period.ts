import { RuleError } from '../../../platform/errors.ts';

export const MAX_MONTHS = 24;

/** The months a query covers, as dates and in the published `periodCovered` form. */
export interface Period {
  /** `yyyy-mm` of the last month, zero-padded. */
  periodEnding: string;
  numMonths: number;
  /** Midnight UTC of the first day of the first month: a calendar date, not an instant. */
  start: Date;
  /** Midnight UTC of the last day of the last month. */
  end: Date;
  /** `yyyy-mm-dd` forms of start and end, for SQL date parameters. */
  firstDay: string;
  lastDay: string;
  /** Every month of the period, oldest first, as `yyyy-mm`. */
  months: string[];
  /** "2026-7-1/2026-7-31": first and last day, months and days not zero-padded, as the published service. */
  periodCovered: string;
}

/** `yyyy-mm` → { year, month } with month 1–12; a four-digit year without a leading zero. */
export function parseYearMonth(text: string, parameter: string): { year: number; month: number } {
  const match = /^([1-9]\d{3})-(0[1-9]|1[0-2])$/.exec(text.trim());
  if (!match)
    throw RuleError.stated(parameter, `${parameter} must be a month written yyyy-mm, got "${text}"`);
  return { year: Number(match[1]), month: Number(match[2]) };
}

/** Months since year 0 — a single number makes month arithmetic and comparison trivial. */
function monthIndex(year: number, month: number): number {
  return year * 12 + (month - 1);
}

function fromIndex(index: number): { year: number; month: number } {
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const yearMonth = (year: number, month: number) => `${pad(year, 4)}-${pad(month)}`;

const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * The calendar month of an instant in a time zone. The service's month boundaries are New Zealand's:
 * at 11:30 on 1 August in Auckland it is still July in UTC, and "the month before" must follow Auckland.
 */
export function monthOf(now: Date, timeZone: string): { year: number; month: number } {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric' });
    formatters.set(timeZone, formatter);
  }
  const parts = formatter.formatToParts(now);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { year: get('year'), month: get('month') };
}

/**
 * The latest period-ending a request may use on `now`: the spec requires it to be earlier than the month
 * before the current month, so on any day of September the latest is July. The current and previous
 * months are still filling with late bonds (lodgement may lag a tenancy by 23 working days).
 */
export function latestPeriodEnding(now: Date, timeZone: string): string {
  const current = monthOf(now, timeZone);
  const latest = fromIndex(monthIndex(current.year, current.month) - 2);
  return yearMonth(latest.year, latest.month);
}

/** Builds the period, checking period-ending against `now` and num-months against 1–24. */
export function buildPeriod(periodEnding: string, numMonths: number, now: Date, timeZone: string): Period {
  const end = parseYearMonth(periodEnding, 'period-ending');
  const latest = latestPeriodEnding(now, timeZone);
  const endIndex = monthIndex(end.year, end.month);
  const latestParts = parseYearMonth(latest, 'period-ending');
  if (endIndex > monthIndex(latestParts.year, latestParts.month)) {
    throw RuleError.stated(
      'period-ending',
      `period-ending must be earlier than the month before the current month: ${yearMonth(end.year, end.month)} is too recent, the latest allowed today is ${latest}`,
    );
  }
  if (!Number.isInteger(numMonths) || numMonths < 1 || numMonths > MAX_MONTHS) {
    throw RuleError.stated('num-months', `num-months must be a whole number from 1 to ${MAX_MONTHS}`);
  }
  const first = fromIndex(endIndex - (numMonths - 1));
  const lastDayOfMonth = new Date(Date.UTC(end.year, end.month, 0)).getUTCDate();
  const start = new Date(Date.UTC(first.year, first.month - 1, 1));
  const finish = new Date(Date.UTC(end.year, end.month - 1, lastDayOfMonth));
  // Date.UTC maps years 0–99 to 1900–1999; parseYearMonth only admits four-digit years, so that cannot bite.
  const months: string[] = [];
  for (let i = endIndex - (numMonths - 1); i <= endIndex; i++) {
    const m = fromIndex(i);
    months.push(yearMonth(m.year, m.month));
  }
  return {
    periodEnding: yearMonth(end.year, end.month),
    numMonths,
    start,
    end: finish,
    firstDay: `${yearMonth(first.year, first.month)}-01`,
    lastDay: `${yearMonth(end.year, end.month)}-${pad(lastDayOfMonth)}`,
    months,
    periodCovered: `${first.year}-${first.month}-1/${end.year}-${end.month}-${lastDayOfMonth}`,
  };
}
