import { type Random, seeded } from '../../../platform/random.ts';
import type { Geography } from '../domain/areas.ts';
import type { Bedrooms, DwellingType } from '../domain/factors.ts';

/**
 * The sandbox's picture of the rental market: where bonds are lodged, what they cost, how long they
 * last. Figures are round approximations of the New Zealand market (regional shares of bonds, 2025
 * rents of a three-bedroom house, about 4.5 % a year of rent growth), not data.
 */

/** Share of bonds and 2025 weekly rent of a three-bedroom house, by region code. */
const REGIONS: Record<string, { share: number; rent: number; urban: boolean }> = {
  '1': { share: 0.03, rent: 560, urban: false },
  '2': { share: 0.36, rent: 700, urban: true },
  '3': { share: 0.09, rent: 580, urban: false },
  '4': { share: 0.065, rent: 640, urban: false },
  '5': { share: 0.01, rent: 540, urban: false },
  '6': { share: 0.035, rent: 570, urban: false },
  '7': { share: 0.025, rent: 540, urban: false },
  '8': { share: 0.05, rent: 500, urban: false },
  '9': { share: 0.11, rent: 640, urban: true },
  '12': { share: 0.006, rent: 400, urban: false },
  '13': { share: 0.12, rent: 570, urban: false },
  '14': { share: 0.05, rent: 580, urban: false },
  '15': { share: 0.02, rent: 450, urban: false },
  '16': { share: 0.01, rent: 600, urban: false },
  '17': { share: 0.012, rent: 590, urban: false },
  '18': { share: 0.01, rent: 560, urban: false },
  '99': { share: 0.0005, rent: 450, urban: false },
};

export const RENT_GROWTH_PER_YEAR = 0.045;
const REFERENCE_YEAR = 2025;

/** Relative volume of new tenancies by calendar month: the summer peak of January and February. */
export const SEASON = [1.42, 1.32, 1.08, 0.95, 0.9, 0.84, 0.88, 0.93, 0.94, 0.98, 0.96, 0.8];
/** Growth of the number of bonds lodged a year. */
export const VOLUME_GROWTH_PER_YEAR = 0.025;

type Mix<T> = readonly (readonly [T, number])[];

const DWELLING_URBAN: Mix<DwellingType> = [
  ['Apartment', 0.2],
  ['Flat', 0.2],
  ['House', 0.46],
  ['Room', 0.1],
  ['Boarding House', 0.04],
];
const DWELLING_OTHER: Mix<DwellingType> = [
  ['Apartment', 0.05],
  ['Flat', 0.2],
  ['House', 0.63],
  ['Room', 0.09],
  ['Boarding House', 0.03],
];

/** Bedrooms by dwelling type; null is "not recorded" (published as NA). */
const BEDROOMS: Record<DwellingType, Mix<number | null>> = {
  House: [
    [1, 0.03],
    [2, 0.22],
    [3, 0.47],
    [4, 0.2],
    [5, 0.04],
    [6, 0.01],
    [null, 0.03],
  ],
  Apartment: [
    [1, 0.44],
    [2, 0.42],
    [3, 0.09],
    [4, 0.01],
    [null, 0.04],
  ],
  Flat: [
    [1, 0.34],
    [2, 0.45],
    [3, 0.15],
    [4, 0.01],
    [null, 0.05],
  ],
  Room: [
    [1, 0.72],
    [null, 0.28],
  ],
  'Boarding House': [
    [1, 0.6],
    [null, 0.4],
  ],
};

/** Rent relative to a three-bedroom house of the same place, by dwelling type and bedrooms. */
const DWELLING_FACTOR: Record<DwellingType, number> = {
  House: 1,
  Apartment: 0.9,
  Flat: 0.84,
  Room: 0.42,
  'Boarding House': 0.37,
};
const BEDROOM_FACTOR: Record<Bedrooms, number> = {
  '1': 0.62,
  '2': 0.8,
  '3': 1,
  '4': 1.2,
  '5+': 1.42,
  NA: 0.93,
};

/** Per-SA2 facts the generator draws from, fixed by the geography alone. */
export interface Place {
  sa2Code: number;
  /** Weekly rent of a three-bedroom house here in the reference year. */
  rent: number;
  urban: boolean;
}

export interface Market {
  places: Place[];
  /** Cumulative weights over places, for a draw by binary search. */
  cumulative: Float64Array;
}

/** Builds the market of a geography: SA2 weights within regions and local rent levels. */
export function buildMarket(geography: Geography): Market {
  const regions = geography.definitions.find((d) => d.code === 'REGC2019');
  const authorities = geography.definitions.find((d) => d.code === 'TA2019');
  if (!regions || !authorities) throw new Error('the geography lacks REGC2019 or TA2019');
  const random = seeded('market-rent', 'market');
  const taFactor = authorities.areas.map(() => Math.exp(0.09 * random.normal()));
  const places: Place[] = [];
  const weights: number[] = [];
  const labels = new Map<string, string>();
  for (const area of geography.definitions.find((d) => d.code === 'SAU2019')?.areas ?? []) {
    labels.set(area.code, area.label);
  }
  regions.areas.forEach((region, r) => {
    const facts = REGIONS[region.code] ?? { share: 0.001, rent: 450, urban: false };
    const local = region.sa2Codes.map((code) => {
      const index = geography.sa2Index.get(code) as number;
      const ta = authorities.areaIndexBySa2[index] as number;
      const label = labels.get(code) ?? '';
      // Water has no tenancies.
      const water = /^(Inlet|Inlets|Oceanic|Inland water)\b/i.test(label);
      return { code, ta, weight: water ? 0 : Math.exp(0.7 * random.normal()) };
    });
    const total = local.reduce((s, l) => s + l.weight, 0) || 1;
    for (const l of local) {
      places.push({
        sa2Code: Number(l.code),
        rent: facts.rent * (taFactor[l.ta] as number) * Math.exp(0.12 * random.normal()),
        urban: facts.urban,
      });
      weights.push((facts.share * l.weight) / total);
    }
    void r;
  });
  const cumulative = new Float64Array(weights.length);
  let sum = 0;
  weights.forEach((w, i) => {
    sum += w;
    cumulative[i] = sum;
  });
  for (let i = 0; i < cumulative.length; i++) cumulative[i] = (cumulative[i] as number) / sum;
  return { places, cumulative };
}

export function drawPlace(market: Market, random: Random): Place {
  const u = random.next();
  let lo = 0;
  let hi = market.cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((market.cumulative[mid] as number) > u) hi = mid;
    else lo = mid + 1;
  }
  return market.places[lo] as Place;
}

export function drawDwelling(place: Place, random: Random): DwellingType {
  return random.weighted(place.urban ? DWELLING_URBAN : DWELLING_OTHER);
}

export function drawBedrooms(dwelling: DwellingType, random: Random): number | null {
  return random.weighted(BEDROOMS[dwelling]);
}

/** Weekly rent in whole dollars: mostly multiples of $10, some of $5, a few odd amounts. */
export function drawRent(
  place: Place,
  dwelling: DwellingType,
  bedrooms: Bedrooms,
  year: number,
  random: Random,
): number {
  const level =
    place.rent *
    DWELLING_FACTOR[dwelling] *
    (dwelling === 'Room' || dwelling === 'Boarding House' ? 1 : BEDROOM_FACTOR[bedrooms]) *
    Math.exp(RENT_GROWTH_PER_YEAR * (year - REFERENCE_YEAR)) *
    Math.exp(0.14 * random.normal());
  const u = random.next();
  const step = u < 0.8 ? 10 : u < 0.92 ? 5 : 1;
  return Math.max(40, Math.round(level / step) * step);
}

/**
 * Bond in whole dollars: usually four weeks' rent (the legal maximum), sometimes less, sometimes a round
 * figure below it.
 */
export function drawBond(rent: number, random: Random): number {
  const u = random.next();
  if (u < 0.74) return 4 * rent;
  if (u < 0.84) return 3 * rent;
  if (u < 0.92) return 2 * rent;
  if (u < 0.96) return Math.floor((4 * rent) / 100) * 100;
  return rent;
}

/** Working days between tenancy start and lodgement: most within two weeks, none after 23. */
export function drawLagWorkingDays(random: Random): number {
  return Math.min(23, Math.floor(-Math.log(1 - random.next()) * 6));
}

/** Tenancy length in days: log-normal around 14 months, at least two weeks. */
export function drawDurationDays(random: Random): number {
  return Math.max(14, Math.round(30.44 * 14 * Math.exp(0.8 * random.normal())));
}
