import { createHash } from 'node:crypto';
import {
  ALL,
  BEDROOM_VALUES,
  type Bedrooms,
  DWELLING_TYPES,
  type DwellingType,
} from '../../../../src/services/market-rent/domain/factors.ts';

/**
 * Random rounding to base 3, as the spec defines it: a multiple of three is unchanged; otherwise the
 * count goes to the nearest multiple of three with probability 2/3 and to the second nearest with 1/3.
 *
 * `u` is a uniform number in [0, 1) that the caller draws with `keyedUniform(secret, cellKey(...))`, so
 * the same cell is rounded the same way on every request: asking again and averaging reveals nothing.
 * The rounding is unbiased (E[rounded] = count), which is why the draw must be fixed per cell.
 */
export function randomRound3(count: number, u: number): number {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new RangeError(`randomRound3: count must be a non-negative integer, got ${count}`);
  }
  if (!(u >= 0 && u < 1)) throw new RangeError(`randomRound3: u must be in [0, 1), got ${u}`);
  const remainder = count % 3;
  if (remainder === 0) return count;
  const below = count - remainder;
  const above = below + 3;
  // Remainder 1 is nearer the multiple below, remainder 2 nearer the one above.
  const [nearest, second] = remainder === 1 ? [below, above] : [above, below];
  return u < 2 / 3 ? nearest : second;
}

export const ROUNDED_COUNTS = ['nLodged', 'nClosed', 'nCurr'] as const;
export type RoundedCount = (typeof ROUNDED_COUNTS)[number];

/**
 * Canonical identity of an area for keying: its set of SA2 2019 codes, sorted and deduplicated. Large
 * sets are replaced by a SHA-256 digest to keep keys short; the digest is as canonical as the list.
 *
 * Keying by content rather than by name is deliberate: a user-defined area is keyed by its codes, not
 * its label, so renaming the label does not re-draw the rounding; and the same population reached
 * through different definitions (TA2019 "Auckland" = REGC2019 "Auckland Region" = a user-defined area of
 * the same 563 codes) gets the same rounded counts rather than independent draws that could be averaged.
 */
export function areaKey(sa2Codes: Iterable<string>): string {
  const codes = [...new Set(sa2Codes)].sort(compareCodes);
  const joined = codes.join(',');
  if (codes.length <= 8) return `sa2:${joined}`;
  return `sa2#${codes.length}:${createHash('sha256').update(joined).digest('hex')}`;
}

function compareCodes(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

export interface CellKeyParts {
  /** `yyyy-mm`, the last month of the period. */
  periodEnding: string;
  numMonths: number;
  /** `areaKey(...)` of the area of the row (for an ALL row: of the union of the reported areas). */
  area: string;
  /** The dwelling types whose bonds the row counts: one type, a set, or ALL. */
  dwelling: DwellingType | typeof ALL | readonly DwellingType[];
  /** The bedroom values whose bonds the row counts: one value, a set, or ALL. */
  bedrooms: Bedrooms | typeof ALL | readonly Bedrooms[];
  statistic: RoundedCount;
}

/**
 * The stable key of one rounded count. It names the population counted (period, SA2 set, dwelling and
 * bedroom sets) and the statistic, and nothing about how the query was spelled, so two requests that
 * count the same bonds get the same draw. The area definition is deliberately absent: see `areaKey`.
 * A set of factor values equal to every value is written ALL, so an ALL row under a filter of one
 * dwelling type keys exactly like that dwelling type's row (they count the same bonds).
 */
export function cellKey(parts: CellKeyParts): string {
  return `${rowKey(parts)}|${parts.statistic}`;
}

/** The key of a row without the statistic: computed once per row, shared by its three counts. */
export function rowKey(parts: Omit<CellKeyParts, 'statistic'>): string {
  const dwelling = factorKey(parts.dwelling, DWELLING_TYPES);
  const bedrooms = factorKey(parts.bedrooms, BEDROOM_VALUES);
  return `mr2|${parts.periodEnding}|${parts.numMonths}|${parts.area}|${dwelling}|${bedrooms}`;
}

/** The dwelling part of a row key (one type, a set, or ALL), as rowKey writes it. */
export const dwellingKey = (value: DwellingType | typeof ALL | readonly DwellingType[]): string =>
  factorKey(value, DWELLING_TYPES);

/** The bedrooms part of a row key, as rowKey writes it. */
export const bedroomsKey = (value: Bedrooms | typeof ALL | readonly Bedrooms[]): string =>
  factorKey(value, BEDROOM_VALUES);

function factorKey<T extends string>(value: T | typeof ALL | readonly T[], universe: readonly T[]): string {
  if (typeof value === 'string') return value;
  const chosen = universe.filter((v) => value.includes(v));
  if (chosen.length === 0) throw new RangeError('cellKey: an empty factor set counts nothing');
  return chosen.length === universe.length ? ALL : chosen.join('+');
}

/**
 * The three counts of one row, each rounded with its own keyed draw. A count that is a multiple of three
 * (zero included) does not depend on its draw, so no draw is made: at national scale most fine cells
 * are empty, and a keyed draw (an HMAC) is the dearest step of publishing a row.
 */
export function roundCounts(
  counts: Readonly<Record<RoundedCount, number>>,
  key: Omit<CellKeyParts, 'statistic'>,
  uniform: (key: string) => number,
): Record<RoundedCount, number> {
  let prefix: string | undefined;
  const round = (statistic: RoundedCount) => {
    const count = counts[statistic];
    if (count % 3 === 0) return randomRound3(count, 0);
    prefix ??= rowKey(key);
    return randomRound3(count, uniform(`${prefix}|${statistic}`));
  };
  return { nLodged: round('nLodged'), nClosed: round('nClosed'), nCurr: round('nCurr') };
}

/**
 * The three counts of one row, rounded with three draws taken from one keyed value per row:
 * `rowUniforms(rowKey(key))` returns independent uniforms for nLodged, nClosed and nCurr (for example
 * three 21-bit slices of one 64-bit SipHash). One keyed evaluation per row instead of three; the row key
 * names the same population as `cellKey` does, without the statistic. No draw is made when every count
 * is a multiple of three.
 */
export function roundRowCounts(
  counts: Readonly<Record<RoundedCount, number>>,
  key: Omit<CellKeyParts, 'statistic'>,
  rowUniforms: (rowKey: string) => readonly [number, number, number],
): Record<RoundedCount, number> {
  const { nLodged, nClosed, nCurr } = counts;
  if (nLodged % 3 === 0 && nClosed % 3 === 0 && nCurr % 3 === 0) {
    return {
      nLodged: randomRound3(nLodged, 0),
      nClosed: randomRound3(nClosed, 0),
      nCurr: randomRound3(nCurr, 0),
    };
  }
  const [u0, u1, u2] = rowUniforms(rowKey(key));
  return {
    nLodged: randomRound3(nLodged, u0),
    nClosed: randomRound3(nClosed, u1),
    nCurr: randomRound3(nCurr, u2),
  };
}
