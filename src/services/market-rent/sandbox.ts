import type pg from 'pg';
import { seeded } from '../../platform/random.ts';
import type { SeedContext, SeedScale } from '../contract.ts';
import type { Geography } from './domain/areas.ts';
import { bedroomsOf } from './domain/factors.ts';
import { marketRentGeography } from './geography.ts';
import {
  buildMarket,
  drawBedrooms,
  drawBond,
  drawDurationDays,
  drawDwelling,
  drawLagWorkingDays,
  drawPlace,
  drawRent,
  type Market,
  SEASON,
  VOLUME_GROWTH_PER_YEAR,
} from './sandbox/model.ts';
import { rebuildAggregates } from './store/aggregates.ts';
import { copyFrom } from './store/copy.ts';
import { dateIn } from './store/statistics.ts';

/**
 * The sandbox register of rental bonds: deterministic for a scale and a "now" (the sandbox clock when
 * it runs), national, monthly volumes with the summer peak and growth over the years, rents by region,
 * district, SA2, dwelling type and bedrooms. Tenancies start up to today; their lodgement follows by up
 * to 23 working days, so the last weeks' bonds are in the table with lodgement dates still to come and
 * appear in the statistics as the clock passes them.
 */
export interface GeneratorPlan {
  /** First calendar year of tenancies (full) or years back from now (small). */
  firstYear: (now: Date) => number;
  bonds: number;
}

export const SCALES: Record<SeedScale, GeneratorPlan> = {
  small: { firstYear: (now) => now.getUTCFullYear() - 4, bonds: 40_000 },
  full: { firstYear: () => 2000, bonds: 5_200_000 },
};

export const BOND_COLUMNS =
  'bond_id, tenancy_start, lodged, closed, sa2_code, dwelling_type, bedrooms, weekly_rent, bond_amount';

const DAY_MS = 86_400_000;
const dayOf = (iso: string) => Math.round(Date.parse(`${iso}T00:00:00Z`) / DAY_MS);
const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** Adds working days (Monday to Friday) to a day number; public holidays are not modelled. */
export function addWorkingDays(day: number, count: number): number {
  let d = day;
  for (let left = count; left > 0; ) {
    d++;
    const weekday = (d + 4) % 7; // 1970-01-01 was a Thursday; 0 is Sunday
    if (weekday !== 0 && weekday !== 6) left--;
  }
  return d;
}

interface Month {
  year: number;
  month: number; // 1–12
  firstDay: number;
  days: number;
  bonds: number;
}

/** The months from January of the first year to the current one, with their share of the bonds. */
export function monthsOf(plan: GeneratorPlan, today: string, total = plan.bonds): Month[] {
  const [ty, tm, td] = today.split('-').map(Number) as [number, number, number];
  const first = plan.firstYear(new Date(`${today}T00:00:00Z`));
  const months: Month[] = [];
  const weights: number[] = [];
  for (let y = first; y <= ty; y++) {
    for (let m = 1; m <= 12 && (y < ty || m <= tm); m++) {
      const firstDay = dayOf(`${y}-${String(m).padStart(2, '0')}-01`);
      const length = new Date(Date.UTC(y, m, 0)).getUTCDate();
      const days = y === ty && m === tm ? td : length;
      months.push({ year: y, month: m, firstDay, days, bonds: 0 });
      weights.push((SEASON[m - 1] as number) * (1 + VOLUME_GROWTH_PER_YEAR) ** (y - first) * (days / length));
    }
  }
  const sum = weights.reduce((s, w) => s + w, 0);
  let assigned = 0;
  months.forEach((month, i) => {
    month.bonds = Math.round((total * (weights[i] as number)) / sum);
    assigned += month.bonds;
  });
  const last = months[months.length - 1];
  if (last) last.bonds += total - assigned;
  return months;
}

/** One month of bonds as COPY text lines, ids continuing from `firstId`. */
export function generateMonth(
  market: Market,
  scale: SeedScale,
  month: Month,
  firstId: number,
  todayDay: number,
): string {
  const random = seeded('market-rent', scale, month.year, month.month);
  const lines: string[] = [];
  for (let i = 0; i < month.bonds; i++) {
    const start = month.firstDay + Math.floor(random.next() * month.days);
    const place = drawPlace(market, random);
    const dwelling = drawDwelling(place, random);
    const bedrooms = drawBedrooms(dwelling, random);
    const rent = drawRent(
      place,
      dwelling,
      bedroomsOf(bedrooms),
      month.year + (month.month - 0.5) / 12,
      random,
    );
    const bond = drawBond(rent, random);
    const lodged = addWorkingDays(start, drawLagWorkingDays(random));
    const end = start + drawDurationDays(random);
    const closed = end <= todayDay ? isoDay(end) : '\\N';
    lines.push(
      `${firstId + i}\t${isoDay(start)}\t${isoDay(lodged)}\t${closed}\t${place.sa2Code}\t${dwelling}\t${bedrooms ?? '\\N'}\t${rent}\t${bond}\n`,
    );
  }
  return lines.join('');
}

export interface GenerateOptions {
  scale: SeedScale;
  now: Date;
  /** Overrides the scale's number of bonds (tests use a few thousand). */
  bonds?: number;
  geography?: Geography;
  log?: (line: string) => void;
}

/**
 * Replaces the bonds with a generated register, in one transaction with the monthly cells. Large
 * registers drop the bond indexes during COPY and build them after, which is several times faster.
 */
export async function generateBonds(database: { pool: pg.Pool }, options: GenerateOptions): Promise<number> {
  const plan = SCALES[options.scale];
  const today = dateIn(options.now, 'Pacific/Auckland');
  const months = monthsOf(plan, today, options.bonds ?? plan.bonds);
  const total = months.reduce((s, m) => s + m.bonds, 0);
  const market = buildMarket(options.geography ?? marketRentGeography());
  const todayDay = dayOf(today);
  const big = total > 200_000;
  const log = options.log ?? (() => {});
  const client = await database.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query("SET LOCAL maintenance_work_mem = '512MB'");
    await client.query("SET LOCAL work_mem = '256MB'");
    await client.query('TRUNCATE market_rent_bonds');
    if (big) {
      await client.query('ALTER TABLE market_rent_bonds DROP CONSTRAINT market_rent_bonds_pkey');
      await client.query('DROP INDEX market_rent_bonds_start, market_rent_bonds_lodged');
    }
    let nextId = 1;
    let done = 0;
    const started = Date.now();
    async function* chunks() {
      for (const month of months) {
        yield generateMonth(market, options.scale, month, nextId, todayDay);
        nextId += month.bonds;
        done += month.bonds;
        if (month.month === 12)
          log(
            `market-rent: generated ${done.toLocaleString('en-NZ')} of ${total.toLocaleString('en-NZ')} bonds`,
          );
      }
    }
    await copyFrom(client, `COPY market_rent_bonds (${BOND_COLUMNS}) FROM STDIN`, chunks());
    if (big) {
      log('market-rent: indexing bonds');
      await client.query('ALTER TABLE market_rent_bonds ADD PRIMARY KEY (bond_id)');
      await client.query('CREATE INDEX market_rent_bonds_start ON market_rent_bonds (tenancy_start)');
      await client.query('CREATE INDEX market_rent_bonds_lodged ON market_rent_bonds (lodged)');
    }
    log('market-rent: building monthly cells');
    await rebuildAggregates(client);
    await client.query('UPDATE market_rent_state SET seed_scale = $1, seed_bonds = $2, seeded_at = now()', [
      options.scale,
      total,
    ]);
    await client.query('COMMIT');
    log(
      `market-rent: ${total.toLocaleString('en-NZ')} bonds in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
  await database.pool.query('ANALYZE market_rent_bonds');
  return total;
}

/** The `seed` hook: generates the register unless one of this scale is already there. */
export async function seedMarketRent(context: SeedContext): Promise<string | undefined> {
  const { rows } = await context.database.pool.query<{
    seed_scale: string | null;
    seed_bonds: number | null;
  }>('SELECT seed_scale, seed_bonds FROM market_rent_state');
  if (rows[0]?.seed_scale === context.scale) return undefined;
  if (!rows[0]?.seed_scale) {
    // Bonds imported into a sandbox that was never generated are the operator's: leave them.
    const existing = await context.database.pool.query('SELECT 1 FROM market_rent_bonds LIMIT 1');
    if (existing.rowCount) return 'imported rental bonds present; nothing generated';
  }
  const bonds = await generateBonds(context.database, {
    scale: context.scale,
    now: context.clock.now(),
    log: context.log,
  });
  return `${bonds.toLocaleString('en-NZ')} rental bonds (${context.scale})`;
}
