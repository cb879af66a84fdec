/**
 * Instants for sandbox records. Registrations carry a time of day within office hours (as live records
 * do, e.g. 16:51:53); address and role start dates are New Zealand midnights. Nothing is ever after
 * the generator's `asOf` instant, so a seed gives the same register whenever it is run.
 */

import { nzMidnight, nzOffsetMinutes, nzStartOfDay } from '../../../platform/nz-time.ts';
import type { Random } from '../../../platform/random.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;

/** A uniform instant in [from, to]. */
export function randomInstant(random: Random, from: number, to: number): number {
  return to <= from ? from : from + Math.floor(random.next() * (to - from));
}

/** The New Zealand calendar date of an instant, month 1–12. */
export function nzDateOf(epochMs: number): { year: number; month: number; day: number } {
  const wall = new Date(epochMs + nzOffsetMinutes(epochMs) * MINUTE);
  return { year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate() };
}

/** Midnight (New Zealand) starting the day of an instant. */
export const startOfNzDay = nzStartOfDay;

/** A New Zealand midnight uniformly between two instants (never before `from`'s day, never after `to`). */
export function randomDay(random: Random, from: number, to: number): number {
  return Math.min(nzStartOfDay(randomInstant(random, from, to)), to);
}

/**
 * An instant during office hours (08:00–18:00) of a random day between two instants, capped at `to`
 * and never before `from`. (On the two days a year the clocks change, "office hours" shift by the hour.)
 */
export function randomOfficeTime(random: Random, from: number, to: number): number {
  const midnight = nzStartOfDay(randomInstant(random, from, to));
  const instant = midnight + random.int(8 * 3600, 18 * 3600 - 1) * 1000;
  return Math.min(Math.max(instant, from), to);
}

export function addDays(epochMs: number, days: number): number {
  return epochMs + days * DAY;
}

export function addYears(epochMs: number, years: number): number {
  return epochMs + Math.round(years * 365.25 * DAY);
}

/** The instant a year starts in New Zealand. */
export function yearStart(year: number): number {
  return nzMidnight(year, 1, 1);
}

/**
 * An instant drawn by period weights: [first year, weight] pairs, each period running to the next
 * pair's first year (the last one to `asOf`).
 */
export function instantByPeriods(
  random: Random,
  periods: readonly (readonly [number, number])[],
  asOf: number,
): number {
  const [from, to] = random.weighted(periodRanges(periods, asOf));
  return randomOfficeTime(random, from, to);
}

// The ranges depend only on the table and asOf; computing their instants for every entity was slow.
const rangesCache = new WeakMap<
  object,
  { asOf: number; ranges: readonly (readonly [readonly [number, number], number])[] }
>();

function periodRanges(periods: readonly (readonly [number, number])[], asOf: number) {
  const cached = rangesCache.get(periods);
  if (cached && cached.asOf === asOf) return cached.ranges;
  const ranges = periods.map(([firstYear, weight], i) => {
    const next = periods[i + 1];
    const end = next ? Math.min(yearStart(next[0]), asOf) : asOf;
    return [[Math.min(yearStart(firstYear), asOf), end] as const, weight] as const;
  });
  rangesCache.set(periods, { asOf, ranges });
  return ranges;
}
