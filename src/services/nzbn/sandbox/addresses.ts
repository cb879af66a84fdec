/**
 * Sandbox addresses on the real 2019 geography: suburb lines are SA2 names, city lines the district's
 * main town, postcodes fixed per SA2 within plausible ranges for the district. The four address lines
 * follow the register's layout: street / suburb / city, shifting down a line when a unit or level line
 * comes first.
 */

import type { Area, Geography } from '../../../platform/geography.ts';
import type { Random } from '../../../platform/random.ts';
import { OVERSEAS, STREET_NAMES, STREET_TYPES } from './addresses-data.ts';

export interface AddressLines {
  readonly careOf: string | null;
  readonly address1: string;
  readonly address2: string | null;
  readonly address3: string | null;
  readonly address4: string | null;
  readonly postCode: string | null;
  readonly countryCode: string;
}

export type AddressKind = 'street' | 'postal' | 'rural';

/** An area where the business or person is; weighted by SA2 count, so by population. */
export function pickArea(random: Random, geography: Geography, regionCode?: string): Area {
  const pool = (regionCode && geography.areasByRegion.get(regionCode)) || geography.areas;
  return random.pick(pool);
}

export function streetName(random: Random): string {
  return `${random.pick(STREET_NAMES)} ${random.weighted(STREET_TYPES)}`;
}

export function generateNzAddress(random: Random, area: Area, kind: AddressKind = 'street'): AddressLines {
  const town = area.district.town;
  const suburb = area.suburb === town ? null : area.suburb;
  const postCode = area.postCode;
  if (kind === 'postal') {
    const box = random.chance(0.9)
      ? `PO Box ${random.int(1, 99_999)}`
      : `Private Bag ${random.int(1, 9_999)}`;
    return lines(box, suburb, town, null, postCode);
  }
  if (kind === 'rural') {
    const road = `${random.int(1, 2_999)} ${random.pick(STREET_NAMES)} Road`;
    return lines(road, `RD ${random.int(1, 9)}`, town, null, postCode);
  }
  const number = random.int(1, 400) + (random.chance(0.06) ? random.pick(UNIT_LETTERS) : '');
  const street = `${number} ${streetName(random)}`;
  if (!random.chance(0.16)) return lines(street, suburb, town, null, postCode);
  const unit = random.weighted(UNIT_KINDS);
  const unitLine = `${unit[0]} ${random.int(1, unit[1])}`;
  return lines(unitLine, street, suburb ?? town, suburb ? town : null, postCode);
}

const UNIT_LETTERS = ['A', 'B', 'C'] as const;
const UNIT_KINDS: readonly (readonly [readonly [string, number], number])[] = [
  [['Unit', 40], 4],
  [['Flat', 12], 2],
  [['Level', 25], 3],
  [['Suite', 30], 1],
];

function lines(
  address1: string,
  address2: string | null,
  address3: string | null,
  address4: string | null,
  postCode: string,
): AddressLines {
  return { careOf: null, address1, address2, address3, address4, postCode, countryCode: 'NZ' };
}

export const OVERSEAS_COUNTRIES = Object.keys(OVERSEAS) as readonly string[];

export function generateOverseasAddress(random: Random, countryCode: string): AddressLines {
  const places = OVERSEAS[countryCode];
  if (!places) throw new RangeError(`no overseas addresses for ${countryCode}`);
  const place = random.pick(places);
  return {
    careOf: null,
    address1: `${random.int(1, 500)} ${random.pick(place.streets)}`,
    address2: place.city,
    address3: place.state,
    address4: null,
    postCode: place.postCode,
    countryCode,
  };
}
