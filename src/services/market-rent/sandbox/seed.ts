import type pg from 'pg';
import { seeded } from '../../../platform/random.ts';
import type { SeedContext, SeedScale } from '../../contract.ts';
import type { Geography } from '../domain/areas.ts';
import { bedroomsOf } from '../domain/factors.ts';
import { replaceBonds, seedState } from '../store/bonds.ts';
import { marketRentGeography } from '../store/geography.ts';
import { dateIn } from '../store/statistics.ts';
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
} from './model.ts';

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

/** Generates the register of `options.scale` and replaces the stored bonds with it (store/bonds.ts). */
export async function generateBonds(database: { pool: pg.Pool }, options: GenerateOptions): Promise<number> {
  const plan = SCALES[options.scale];
  const today = dateIn(options.now, 'Pacific/Auckland');
  const months = monthsOf(plan, today, options.bonds ?? plan.bonds);
  const total = months.reduce((s, m) => s + m.bonds, 0);
  const market = buildMarket(options.geography ?? marketRentGeography());
  const todayDay = dayOf(today);
  const log = options.log ?? (() => {});
  let nextId = 1;
  let done = 0;
  const started = Date.now();
  async function* text() {
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
  await replaceBonds(database.pool, { scale: options.scale, total, text: text(), log });
  log(
    `market-rent: ${total.toLocaleString('en-NZ')} bonds in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return total;
}

/** The `seed` hook: generates the register unless one of this scale is already there. */
export async function seedMarketRent(context: SeedContext): Promise<string | undefined> {
  const state = await seedState(context.database.pool);
  if (state.scale === context.scale) return undefined;
  // Bonds imported into a sandbox that was never generated are the operator's: leave them.
  if (!state.scale && state.anyBond) return 'imported rental bonds present; nothing generated';
  const bonds = await generateBonds(context.database, {
    scale: context.scale,
    now: context.clock.now(),
    log: context.log,
  });
  return `${bonds.toLocaleString('en-NZ')} rental bonds (${context.scale})`;
}
