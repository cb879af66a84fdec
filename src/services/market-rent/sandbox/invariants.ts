/**
 * The rules the generated register of rental bonds keeps (`rsg sandbox check`; listed in the README):
 * dates in order, bonds within the legal four weeks' rent, rents plausible for the dwelling, its
 * bedrooms and its region, bonds in real areas on land, and the histograms /statistics reads counting
 * the bonds. The queries are the store's (store/invariants.ts).
 */
import { nzDate } from '../../../platform/calendar.ts';
import type { InvariantBreak, SandboxInvariant } from '../../contract.ts';
import type { Geography } from '../domain/areas.ts';
import { marketRentGeography } from '../store/geography.ts';
import {
  bondAreas,
  bondDatesOutOfOrder,
  bondsOverFourWeeks,
  cellsAgainstBonds,
  medianRents,
  regionalHouseRents,
  rentsOutOfRange,
} from '../store/invariants.ts';

/** A bond is lodged within 23 working days of the tenancy's start: at most 33 calendar days. */
const LODGE_DAYS = 33;
/** The shortest tenancy the generator makes. */
const SHORTEST_DAYS = 14;
/** Weekly rents a bond of each dwelling type may have, in whole dollars. */
export const RENT_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  House: [40, 4000],
  Apartment: [40, 3000],
  Flat: [40, 2500],
  Room: [40, 1000],
  'Boarding House': [40, 1000],
};
/** Medians compared only over this many bonds or more (fewer are noise). */
const ENOUGH = 30;
const AUCKLAND = '2';
/** No region's three-bedroom houses let for less than this share of Auckland's. */
const LOWEST_SHARE_OF_AUCKLAND = 0.5;
const BEDROOM_ORDER = ['1', '2', '3', '4', '5+'];
const WATER = /^(Inlet|Inlets|Oceanic|Inland water)\b/i;

const today = (now: Date) => nzDate(now.getTime());

/** Per dwelling type, a median that does not rise with the bedrooms; rooms dearer than one-bedroom flats. */
async function rentsAgainstBedrooms(pool: Parameters<typeof medianRents>[0], day: string) {
  const medians = (await medianRents(pool, day)).filter((m) => m.bonds >= ENOUGH);
  const breaks: InvariantBreak[] = [];
  const of = (dwelling: string, bedrooms: string) =>
    medians.find((m) => m.dwelling === dwelling && m.bedrooms === bedrooms);
  for (const dwelling of ['House', 'Apartment', 'Flat']) {
    const line = BEDROOM_ORDER.map((b) => of(dwelling, b)).filter((m) => m !== undefined);
    line.forEach((m, i) => {
      const previous = line[i - 1];
      if (previous && m.median < previous.median)
        breaks.push({
          record: `${dwelling} ${m.bedrooms} bedrooms`,
          detail: `median $${m.median}, below ${previous.bedrooms} bedrooms' $${previous.median}`,
        });
    });
  }
  const flat = of('Flat', '1');
  for (const shared of ['Room', 'Boarding House']) {
    const m = of(shared, '1');
    if (m && flat && m.median >= flat.median)
      breaks.push({
        record: shared,
        detail: `median $${m.median}, not below a one-bedroom flat's $${flat.median}`,
      });
  }
  return breaks;
}

function regionsOf(geography: Geography): { sa2: number[]; region: string[]; names: Map<string, string> } {
  const regions = geography.definitions.find((d) => d.code === 'REGC2019')!;
  const sa2: number[] = [];
  const region: string[] = [];
  const names = new Map<string, string>();
  for (const area of regions.areas) {
    names.set(area.code, area.label);
    for (const code of area.sa2Codes) {
      sa2.push(Number(code));
      region.push(area.code);
    }
  }
  return { sa2, region, names };
}

/** Auckland's three-bedroom houses the dearest of the regions; none below half of Auckland's. */
async function rentsAgainstRegions(pool: Parameters<typeof medianRents>[0], day: string) {
  const { names, ...regionOf } = regionsOf(marketRentGeography());
  const medians = (await regionalHouseRents(pool, day, regionOf)).filter((m) => m.bonds >= ENOUGH);
  const auckland = medians.find((m) => m.region === AUCKLAND);
  if (!auckland)
    return [{ record: 'Auckland Region', detail: `fewer than ${ENOUGH} three-bedroom houses let` }];
  return medians
    .filter(
      (m) =>
        m.region !== AUCKLAND &&
        (m.median > auckland.median || m.median < auckland.median * LOWEST_SHARE_OF_AUCKLAND),
    )
    .map((m) => ({
      record: names.get(m.region) ?? m.region,
      detail: `three-bedroom houses let at a median $${m.median}, Auckland's $${auckland.median}`,
    }));
}

/** SA2s with bonds that are not SA2s of the 2019 geography, or are water. */
async function areasNotReal(pool: Parameters<typeof bondAreas>[0]): Promise<InvariantBreak[]> {
  const geography = marketRentGeography();
  const labels = new Map(
    (geography.definitions.find((d) => d.code === 'SAU2019')?.areas ?? []).map((a) => [a.code, a.label]),
  );
  const breaks: InvariantBreak[] = [];
  for (const { sa2, bonds } of await bondAreas(pool)) {
    const label = labels.get(String(sa2));
    if (label === undefined)
      breaks.push({ record: String(sa2), detail: `${bonds} bonds in no SA2 of the 2019 geography` });
    else if (WATER.test(label))
      breaks.push({ record: String(sa2), detail: `${bonds} bonds on water (${label})` });
  }
  return breaks;
}

/** The rules, by name. */
export const MARKET_RENT_RULES = {
  dates: {
    id: 'bond-dates-in-order',
    description: `A tenancy starts no later than today, its bond is lodged on or after the start and within 23 working days (${LODGE_DAYS} days), and a closed tenancy lasted ${SHORTEST_DAYS} days or more and closed by today`,
    check: async ({ database, clock }) =>
      bondDatesOutOfOrder(database.pool, today(clock.now()), LODGE_DAYS, SHORTEST_DAYS),
  },
  bond: {
    id: 'bond-at-most-four-weeks',
    description: 'A bond is more than nothing and at most four weeks’ rent (the legal maximum)',
    check: async ({ database }) => bondsOverFourWeeks(database.pool),
  },
  rentRange: {
    id: 'rent-in-range',
    description: `A weekly rent is within its dwelling type's range (${Object.entries(RENT_RANGES)
      .map(([d, [low, high]]) => `${d} $${low}–$${high}`)
      .join(', ')})`,
    check: async ({ database }) => rentsOutOfRange(database.pool, RENT_RANGES),
  },
  bedrooms: {
    id: 'rent-follows-bedrooms',
    description: `Over the last year, a house's, apartment's and flat's median rent rises with its bedrooms, and a room's and a boarding house room's is below a one-bedroom flat's (groups of ${ENOUGH} bonds or more)`,
    check: async ({ database, clock }) => rentsAgainstBedrooms(database.pool, today(clock.now())),
  },
  regions: {
    id: 'rent-follows-region',
    description: `Over the last year, three-bedroom houses let dearest in the Auckland region, and in no region for less than ${LOWEST_SHARE_OF_AUCKLAND * 100}% of Auckland's median (regions with ${ENOUGH} such bonds or more)`,
    check: async ({ database, clock }) => rentsAgainstRegions(database.pool, today(clock.now())),
  },
  areas: {
    id: 'areas-real',
    description:
      'Every bond is in an SA2 of the 2019 statistical geography, on land (no inlet, ocean or inland water)',
    check: async ({ database }) => areasNotReal(database.pool),
  },
  histograms: {
    id: 'histograms-count-bonds',
    description:
      'Each month’s rent histograms count the tenancies started in it and their bond amounts, and its closed histograms the tenancies closed in it',
    check: async ({ database }) => cellsAgainstBonds(database.pool),
  },
} satisfies Record<string, SandboxInvariant>;

export const MARKET_RENT_INVARIANTS: readonly SandboxInvariant[] = Object.values(MARKET_RENT_RULES);
