import type { Geography } from '../../../../src/services/market-rent/domain/areas.ts';
import type { CountBlock, RentBlock } from '../../../../src/services/market-rent/domain/blocks.ts';
import type { PendingBond } from '../../../../src/services/market-rent/domain/report.ts';
import { buildMarket } from '../../../../src/services/market-rent/sandbox/model.ts';
import { generateMonth, monthsOf, SCALES } from '../../../../src/services/market-rent/sandbox/seed.ts';
import { Sa2Lookup } from '../../../../src/services/market-rent/store/blocks.ts';

/**
 * The sandbox generator's bonds turned into month blocks in memory, as store/blocks.ts would read them
 * from the database: no database, same shapes (entries sorted by packed key, then rent). The
 * old-versus-new equality test runs at small scale on these; the profiling script at national scale.
 */
export interface ModelBond {
  cell: number;
  start: string;
  lodged: string;
  closed: string | null;
  rent: number;
  bond: number;
}

export interface ModelBlocks {
  geography: Geography;
  lookup: Sa2Lookup;
  bonds: ModelBond[];
  /** `yyyy-mm` of today: nothing starts or closes later. */
  horizon: string;
  rent(month: string): RentBlock;
  closed(month: string): CountBlock;
  /** Bonds active at the end of `month`. */
  active(month: string): CountBlock;
  /** Bonds lodged after `asOf` among those started by `lastDay` (what the store takes back out). */
  pending(asOf: string, lastDay: string): PendingBond[];
}

const DWELLING_CODES: Record<string, number> = {
  Apartment: 0,
  'Boarding House': 1,
  Flat: 2,
  House: 3,
  Room: 4,
};

export function modelBlocks(options: {
  geography: Geography;
  scale: 'small' | 'full';
  today: string;
  /** Only months from this one (`yyyy-mm`) are generated (the full register spans decades). */
  fromMonth?: string;
  bonds?: number;
}): ModelBlocks {
  const { geography, scale, today } = options;
  const lookup = new Sa2Lookup(geography);
  const market = buildMarket(geography);
  const todayDay = Math.round(Date.parse(`${today}T00:00:00Z`) / 86_400_000);
  const plan = SCALES[scale];
  const months = monthsOf(plan, today, options.bonds ?? plan.bonds).filter(
    (m) => `${m.year}-${String(m.month).padStart(2, '0')}` >= (options.fromMonth ?? '0000-00'),
  );
  const bonds: ModelBond[] = [];
  const keys: number[] = [];
  let id = 1;
  for (const month of months) {
    const text = generateMonth(market, scale, month, id, todayDay);
    id += month.bonds;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const [, start, lodged, closed, sa2, dwelling, bedrooms, rent, bond] = line.split('\t') as string[];
      const bedroomCount = bedrooms === '\\N' ? null : Number(bedrooms);
      const bedroomCode = bedroomCount === null ? 5 : bedroomCount >= 5 ? 4 : bedroomCount - 1;
      const key = Number(sa2) * 64 + (DWELLING_CODES[dwelling as string] as number) * 8 + bedroomCode;
      keys.push(key);
      bonds.push({
        cell: lookup.cellOfKey(key),
        start: start as string,
        lodged: lodged as string,
        closed: closed === '\\N' ? null : (closed as string),
        rent: Number(rent),
        bond: Number(bond),
      });
    }
  }

  const byMonth = <T>(make: () => T) => {
    const cache = new Map<string, T>();
    return (month: string, build: (into: T) => void): T => {
      let found = cache.get(month);
      if (!found) {
        found = make();
        build(found);
        cache.set(month, found);
      }
      return found;
    };
  };
  const countBlock = (counts: Map<number, number>): CountBlock => {
    const sorted = [...counts].filter(([, n]) => n !== 0).sort((a, b) => a[0] - b[0]);
    return {
      cells: Int32Array.from(sorted, ([key]) => lookup.cellOfKey(key)),
      counts: Int32Array.from(sorted, ([, n]) => n),
    };
  };
  const rentCache = byMonth<{ block?: RentBlock }>(() => ({}));
  const closedCache = byMonth<{ block?: CountBlock }>(() => ({}));
  const activeCache = byMonth<{ block?: CountBlock }>(() => ({}));

  return {
    geography,
    lookup,
    bonds,
    horizon: today.slice(0, 7),
    rent: (month) =>
      rentCache(month, (into) => {
        // (packed key, rent) → [count, bond sum]
        const entries = new Map<number, [number, number, number, number]>();
        bonds.forEach((b, i) => {
          if (b.start.slice(0, 7) !== month) return;
          const key = keys[i] as number;
          const id = key * 2 ** 17 + b.rent;
          const entry = entries.get(id);
          if (entry) {
            entry[2]++;
            entry[3] += b.bond;
          } else entries.set(id, [key, b.rent, 1, b.bond]);
        });
        const sorted = [...entries.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        into.block = {
          cells: Int32Array.from(sorted, (e) => lookup.cellOfKey(e[0])),
          rents: Int32Array.from(sorted, (e) => e[1]),
          counts: Int32Array.from(sorted, (e) => e[2]),
          bondSums: Float64Array.from(sorted, (e) => e[3]),
        };
      }).block as RentBlock,
    closed: (month) =>
      closedCache(month, (into) => {
        const counts = new Map<number, number>();
        bonds.forEach((b, i) => {
          if (b.closed?.slice(0, 7) !== month) return;
          const key = keys[i] as number;
          counts.set(key, (counts.get(key) ?? 0) + 1);
        });
        into.block = countBlock(counts);
      }).block as CountBlock,
    active: (month) =>
      activeCache(month, (into) => {
        const counts = new Map<number, number>();
        bonds.forEach((b, i) => {
          if (b.start.slice(0, 7) > month) return;
          if (b.closed !== null && b.closed.slice(0, 7) <= month) return;
          const key = keys[i] as number;
          counts.set(key, (counts.get(key) ?? 0) + 1);
        });
        into.block = countBlock(counts);
      }).block as CountBlock,
    pending: (asOf, lastDay) =>
      bonds
        .filter((b) => b.lodged > asOf && b.start <= lastDay)
        .map((b) => ({
          cell: b.cell,
          startMonth: b.start.slice(0, 7),
          closedMonth: b.closed === null ? null : b.closed.slice(0, 7),
          rent: b.rent,
          bond: b.bond,
        })),
  };
}
