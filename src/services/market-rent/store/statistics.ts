import type pg from 'pg';
import type { Geography } from '../domain/areas.ts';
import type { StatisticsQuery } from '../domain/params.ts';
import { latestPeriodEnding, monthOf } from '../domain/period.ts';
import type { PendingBond, ReportInput } from '../domain/report.ts';
import { type AnswerFormat, computeAnswer, type Engine, type LentAnswer } from '../engine/index.ts';
import { AnswerCache, queryKey } from './answers.ts';
import { BlockCache, EMPTY_COUNT_BLOCK, Sa2Lookup, warmUpDecoding } from './blocks.ts';

/**
 * Answers one statistics query from PostgreSQL: the revision and horizon (one row), the bonds not yet
 * lodged on the as-of day (an index range, normally a handful), and the month blocks of the period —
 * from the in-process cache when they are current, else in one query per kind. Finished answers are
 * kept too (AnswerCache), for as long as the revision and the as-of day stay the same.
 */
export class StatisticsStore {
  private readonly lookup: Sa2Lookup;
  private readonly cache: BlockCache;
  private readonly answers: AnswerCache;
  private engine: Engine | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly geography: Geography,
    options: { blockCacheBytes?: number; answerCacheBytes?: number } = {},
  ) {
    this.lookup = new Sa2Lookup(geography);
    this.cache = new BlockCache(pool, this.lookup, options.blockCacheBytes ?? 192 * 1024 * 1024);
    this.answers = new AnswerCache(options.answerCacheBytes ?? 128 * 1024 * 1024);
  }

  /** Answers are computed on this engine from now on (its report thread, once ready; before: one thread). */
  useEngine(engine: Engine): void {
    this.engine = engine;
  }

  /** Decodes made-up month blocks, so the first real read runs compiled code (see warmUpDecoding). */
  warmUpDecoding(): void {
    warmUpDecoding(this.lookup, this.geography.sa2Codes);
  }

  /**
   * How many histogram entries the latest 24-month period's rent blocks hold (from the stored blocks'
   * sizes: nothing is read), so that a national answer's working memory can be made ready.
   */
  async latestPeriodEntries(now: Date, timeZone = 'Pacific/Auckland'): Promise<number> {
    const ending = `${latestPeriodEnding(now, timeZone)}-01`;
    const { rows } = await this.pool.query<{ entries: string }>(
      `SELECT coalesce(sum((octet_length(data) - 4) / 20), 0) AS entries FROM market_rent_blocks
       WHERE kind = 'rent' AND month > $1::date - interval '24 months' AND month <= $1::date`,
      [ending],
    );
    return Number(rows[0]?.entries ?? 0);
  }

  /**
   * Drops the cached blocks and answers: the database's content was replaced under the same name (a
   * sandbox reset or restore, `Database.onReplaced`), so a revision may come back with other data.
   */
  forget(): void {
    this.cache.forget();
    this.answers.forget();
  }

  get cacheSize(): { blocks: number; bytes: number } {
    return this.cache.size;
  }

  /**
   * The answer to a query in a format: from the answer cache when the data and the as-of day are
   * unchanged, else computed from the month blocks. A computed answer's bytes are lent (the encoder's
   * own buffer, no copy): call `release()` once they are written. They go to the answer cache (unless
   * it is off) as a copy made then, after the answer is sent, not before.
   */
  async answer(
    query: StatisticsQuery,
    now: Date,
    rowUniforms: (
      key: Uint8Array,
      length: number,
      prefixLength?: number,
    ) => readonly [number, number, number],
    format: AnswerFormat,
    timeZone = 'Pacific/Auckland',
  ): Promise<LentAnswer> {
    const asOf = dateIn(now, timeZone);
    const state = await this.state();
    const key = queryKey(query, asOf, format);
    const cached = this.answers.get(state.revision, key);
    if (cached !== undefined) return { bytes: cached, release: () => {} };
    const input = await this.inputs(query, asOf, state, rowUniforms);
    // On two cores when the engine's report thread is ready (the same bytes either way).
    const lent = computeAnswer(input, format, this.engine);
    if (!this.answers.keeps(lent.bytes.length)) return lent;
    let released = false;
    return {
      bytes: lent.bytes,
      release: () => {
        if (released) return;
        released = true;
        this.answers.set(state.revision, key, Buffer.from(lent.bytes));
        lent.release();
      },
    };
  }

  private async state(): Promise<{ revision: number; horizon: string | null }> {
    const { rows } = await this.pool.query<{ revision: number; horizon: string | null }>(
      "SELECT revision, to_char(horizon, 'YYYY-MM') AS horizon FROM market_rent_state",
    );
    return rows[0] ?? { revision: 0, horizon: null };
  }

  /** Everything an answer is computed from: month blocks (cached) and the bonds not yet lodged. */
  private async inputs(
    query: StatisticsQuery,
    asOf: string,
    state: { revision: number; horizon: string | null },
    rowUniforms: (
      key: Uint8Array,
      length: number,
      prefixLength?: number,
    ) => readonly [number, number, number],
  ): Promise<ReportInput> {
    const { months, periodEnding, lastDay } = query.period;
    const { revision, horizon } = state;
    const activeMonth = horizon === null ? null : periodEnding < horizon ? periodEnding : horizon;
    const [rent, closed, active, pending] = await Promise.all([
      this.cache.rent(revision, months),
      this.cache.counts('closed', revision, months),
      activeMonth === null
        ? Promise.resolve([EMPTY_COUNT_BLOCK])
        : this.cache.counts('active', revision, [activeMonth]),
      this.pending(asOf, lastDay),
    ]);
    return {
      query,
      geography: this.geography,
      rent,
      closed,
      active: active[0] ?? EMPTY_COUNT_BLOCK,
      pending,
      rowUniforms,
    };
  }

  /** Bonds in the tables whose lodgement is after the as-of day, among those started by `lastDay`. */
  private async pending(asOf: string, lastDay: string): Promise<PendingBond[]> {
    const { rows } = await this.pool.query<{
      start: string;
      closed: string | null;
      sa2: number;
      dwelling: number;
      bedrooms: number;
      rent: number;
      bond: number;
    }>(
      `SELECT to_char(tenancy_start, 'YYYY-MM') AS start, to_char(closed, 'YYYY-MM') AS closed,
         sa2_code AS sa2, market_rent_dwelling_code(dwelling_type) AS dwelling,
         market_rent_bedrooms_code(bedrooms) AS bedrooms, weekly_rent AS rent, bond_amount AS bond
       FROM market_rent_bonds WHERE lodged > $1::date AND tenancy_start <= $2::date`,
      [asOf, lastDay],
    );
    return rows.map((r) => ({
      cell: this.lookup.cellOf(r.sa2, r.dwelling, r.bedrooms),
      startMonth: r.start,
      closedMonth: r.closed,
      rent: r.rent,
      bond: r.bond,
    }));
  }
}

const dayFormatters = new Map<string, Intl.DateTimeFormat>();

/** `yyyy-mm-dd` of an instant's calendar day in a time zone. */
export function dateIn(now: Date, timeZone: string): string {
  let formatter = dayFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    dayFormatters.set(timeZone, formatter);
  }
  const { year, month } = monthOf(now, timeZone);
  const day = formatter.formatToParts(now).find((p) => p.type === 'day')?.value ?? '01';
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${day}`;
}
