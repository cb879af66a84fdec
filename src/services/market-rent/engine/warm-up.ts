import { seeded } from '../../../platform/random.ts';
import type { Geography } from '../domain/areas.ts';
import { CELLS_PER_SA2, type CountBlock, type RentBlock } from '../domain/blocks.ts';
import { parseStatisticsQuery } from '../domain/params.ts';
import { latestPeriodEnding, MAX_MONTHS } from '../domain/period.ts';
import type { PendingBond, ReportInput } from '../domain/report.ts';
import { deriveSipKey, type SipKey } from '../domain/siphash.ts';
import type { AnswerFormat } from './encode.ts';
import { encodeReport } from './report.ts';
import type { ReportThread } from './report-thread.ts';
import { sipRowUniforms } from './row-uniforms.ts';

/**
 * The first answer a process computes runs code V8 has not compiled yet. This computes made-up answers
 * of the national shapes at start — one SA2 in eight of the geography with bonds, 24 months, SAU2019
 * and REGC2019 with aggregates, JSON and CSV — so V8 has compiled the same functions with the same kinds
 * of values before the first real query. The made-up data takes the paths real data takes (code V8
 * compiled without them is thrown away at the first real answer, as `--trace-deopt` showed): bonds
 * lodged after the as-of day taken back out, rows of dozens of bonds, rents above the accumulator's
 * dense band, bond-to-rent ratios that are not whole numbers (and so figures that round near a tie),
 * and rounding keys of any 32-bit words. The bonds are invented (a fixed pseudo-random stream), the
 * rounding key is a throwaway, and nothing of it is kept: answers are pure functions of their inputs,
 * so warming cannot change a byte of a real one (a test checks).
 *
 * What it buys and costs (docs/decisions/0004-computed-rental-statistics.md): about 0.2 s of CPU once a process, at start.
 * The national answer computed first in a process took 195–245 ms after it against 205–280 ms without
 * (the second one 125–165 ms either way); through the whole gateway, the first national query of a
 * fresh server took 443 ms (median of 5) after it against 556 ms without. The rest of a first answer's
 * extra time is memory met for the first time (the working arrays, the answer's buffer), new database
 * connections and the month blocks' reading. A warm-up with every SA2 was no better through the gateway
 * (435 ms) and cost 0.6–0.7 s of every start: not taken.
 */

/** Entries per month: one cell in `CELL_EVERY` of every SA2's cells has entries, 1 to 4 rents each. */
const CELL_EVERY = 7;
const SA2_EVERY = 8;

export function madeUpMonth(cellCount: number, next: () => number): { rent: RentBlock; closed: CountBlock } {
  const cells: number[] = [];
  const rents: number[] = [];
  const counts: number[] = [];
  const bondSums: number[] = [];
  const closedCells: number[] = [];
  const closedCounts: number[] = [];
  for (
    let cell = Math.floor(next() * CELL_EVERY);
    cell < cellCount;
    cell += 1 + Math.floor(next() * 2 * CELL_EVERY)
  ) {
    // One SA2 in SA2_EVERY has bonds: enough rows for V8, a small part of a national answer's work.
    if (Math.floor(cell / CELLS_PER_SA2) % SA2_EVERY !== 0) {
      cell = (Math.floor(cell / CELLS_PER_SA2 / SA2_EVERY) + 1) * SA2_EVERY * CELLS_PER_SA2 - 1;
      continue;
    }
    let rent = 150 + Math.floor(next() * 40) * 10;
    const entries = 1 + Math.floor(next() * 4);
    for (let e = 0; e < entries; e++) {
      // Mostly a few bonds, sometimes dozens (rows above the suppression threshold on their own).
      const count = next() < 0.9 ? 1 + Math.floor(next() * 3) : 5 + Math.floor(next() * 40);
      cells.push(cell);
      rents.push(rent);
      counts.push(count);
      // Bonds of about four weeks' rent, not exactly: ratios that are not whole numbers, as in real
      // bonds (code compiled for whole ratios is thrown away at the first real answer).
      bondSums.push(count * (rent * 4 - Math.floor(next() * 3 * rent)) + Math.floor(next() * count * 10));
      // Now and then a rent above the accumulator's dense band.
      rent += next() < 0.995 ? 5 + Math.floor(next() * 60) : 4000;
    }
    if (next() < 0.5) {
      closedCells.push(cell);
      closedCounts.push(1 + Math.floor(next() * 3));
    }
  }
  return {
    rent: {
      cells: Int32Array.from(cells),
      rents: Int32Array.from(rents),
      counts: Int32Array.from(counts),
      bondSums: Float64Array.from(bondSums),
    },
    closed: { cells: Int32Array.from(closedCells), counts: Int32Array.from(closedCounts) },
  };
}

/**
 * Bonds lodged after the as-of day (real answers usually have a few), taken out of the made-up months
 * as the store would: each one of an entry of its month's block, open (counted in the active block) or
 * closed in the period (counted in a closed block), one per cell.
 */
function madeUpPending(
  months: readonly { rent: RentBlock; closed: CountBlock }[],
  active: CountBlock,
  periodMonths: readonly string[],
): PendingBond[] {
  const activeCells = new Set(active.cells);
  const closedIn = new Map<number, string>();
  months.forEach((m, k) => {
    for (const cell of m.closed.cells) closedIn.set(cell, periodMonths[k] as string);
  });
  const pending: PendingBond[] = [];
  const used = new Set<number>();
  for (let k = 0; k < months.length && pending.length < 60; k++) {
    const { cells, rents, counts, bondSums } = (months[k] as { rent: RentBlock }).rent;
    for (let i = 0; i < cells.length && pending.length < 60; i += 97) {
      const cell = cells[i] as number;
      const closedMonth = closedIn.get(cell);
      if (used.has(cell) || (!activeCells.has(cell) && closedMonth === undefined)) continue;
      used.add(cell);
      pending.push({
        cell,
        startMonth: periodMonths[k] as string,
        closedMonth: activeCells.has(cell) ? null : (closedMonth as string),
        rent: rents[i] as number,
        bond: Math.floor((bondSums[i] as number) / (counts[i] as number)),
      });
    }
  }
  return pending;
}

/**
 * Computes and drops made-up answers of the national shapes; returns how long it took (ms). Synchronous:
 * call it while the server starts, before it takes requests.
 */
export function warmUpReports(geography: Geography, now: Date, timeZone = 'Pacific/Auckland'): number {
  const started = performance.now();
  for (const { input, format } of madeUpInputs(geography, now, timeZone)) encodeReport(input, format);
  return performance.now() - started;
}

/**
 * The made-up answers' inputs: national SAU2019 and REGC2019 with aggregates, JSON and CSV, over the
 * same made-up months, with bonds not yet lodged, and two rounding keys.
 */
export function madeUpInputs(
  geography: Geography,
  now: Date,
  timeZone = 'Pacific/Auckland',
): { input: ReportInput; format: AnswerFormat }[] {
  const cellCount = geography.sa2Codes.length * CELLS_PER_SA2;
  // A fixed stream: the same made-up bonds on every start.
  const next = seeded('market-rent', 'warm-up').next;
  const months = Array.from({ length: MAX_MONTHS }, () => madeUpMonth(cellCount, next));
  const active = madeUpMonth(cellCount, next).closed;
  const periodEnding = latestPeriodEnding(now, timeZone);
  const periodMonths = parseStatisticsQuery(
    { 'period-ending': periodEnding, 'num-months': String(months.length), 'area-definition': 'SAU2019' },
    { geography, now, timeZone },
  ).period.months;
  const pending = madeUpPending(months, active, periodMonths);
  // Two rounding keys: the server's is a HMAC's, any 32-bit words; one of these has every high bit set.
  const keys = [
    deriveSipKey(next, 'market-rent|warm-up'),
    [0xffff_ffff, 0x8000_0001, 0xfedc_ba98, 0x89ab_cdef],
  ] as const;
  const runs: [string, AnswerFormat][] = [
    ['SAU2019', 'json'],
    ['REGC2019', 'json'],
    ['SAU2019', 'csv'],
  ];
  return runs.map(([areaDefinition, format], run) => ({
    format,
    input: {
      query: parseStatisticsQuery(
        {
          'period-ending': periodEnding,
          'num-months': String(months.length),
          'area-definition': areaDefinition,
          'include-aggregates': 'true',
        },
        { geography, now, timeZone },
      ),
      geography,
      rent: months.map((m) => m.rent),
      closed: months.map((m) => m.closed),
      active,
      pending,
      rowUniforms: sipRowUniforms(keys[run % keys.length] as SipKey),
    },
  }));
}

/** The geographies warmed up already: the product's is one per process (marketRentGeography). */
const warmed = new WeakSet<Geography>();

/**
 * `warmUpReports`, and `also` (the store's part: decoding month blocks), the first time a process asks
 * for its geography (both environments share the compiled code); a failure is reported, never thrown.
 */
export function warmUpOnce(
  geography: Geography,
  now: Date,
  log: { done(ms: number): void; failed(error: unknown): void },
  also: () => void = () => {},
): void {
  if (warmed.has(geography)) return;
  warmed.add(geography);
  try {
    const started = performance.now();
    warmUpReports(geography, now);
    also();
    log.done(performance.now() - started);
  } catch (error) {
    // Only speed is at stake: the server starts all the same.
    log.failed(error);
  }
}

/** Report threads whose two-thread path this thread has run already. */
const warmedThreads = new WeakSet<ReportThread>();

/**
 * Once a report thread is ready: a made-up national answer made on two threads, so this thread's part
 * of the two-thread path (the order of its work, the later part, the join) is compiled before real
 * answers take it (the report thread warms its own part up as it starts). Once per thread; a failure is
 * reported, never thrown. Blocks this thread for the answer's time (some tens of milliseconds).
 */
export function warmUpThread(
  thread: ReportThread,
  geography: Geography,
  now: Date,
  log: { done(ms: number): void; failed(error: unknown): void },
): void {
  if (warmedThreads.has(thread) || !thread.usable) return;
  warmedThreads.add(thread);
  try {
    const started = performance.now();
    for (const { input, format } of madeUpInputs(geography, now).slice(0, 2))
      thread.encode(input, format).release();
    log.done(performance.now() - started);
  } catch (error) {
    log.failed(error);
  }
}
