/**
 * The 2019 statistical geographies (regions, territorial authorities, SA2 areas) that the sandbox
 * registers' New Zealand addresses are built on and checked against: the business number register's
 * entities and the IP office's clients. `nzGeography()` reads the project's copy
 * (reference-data/geo) once per thread; `loadGeography(directory)` any copy. Source: Stats NZ,
 * licensed by Stats NZ for re-use under CC BY 4.0.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DISTRICT_TOWNS_AND_POSTCODES } from './geography-data.ts';
import { REFERENCE_DATA_DIR } from './paths.ts';

export interface Region {
  readonly code: string;
  /** As published, e.g. "Hawke's Bay Region". */
  readonly name: string;
  /** Without "Region", as a trading area names it: "Hawke's Bay". */
  readonly shortName: string;
}

export interface District {
  readonly code: string;
  readonly name: string;
  readonly regionCode: string;
  /** The main town, written as the city line of an address. */
  readonly town: string;
  readonly postcodeRanges: readonly (readonly [number, number])[];
}

export interface Area {
  readonly code: string;
  /** The SA2 name as published, e.g. "Belmont (Auckland)" or "Mount Albert West". */
  readonly name: string;
  /** The suburb line of an address: the SA2 name without its statistical qualifiers ("Belmont", "Mount Albert"). */
  readonly suburb: string;
  readonly district: District;
  readonly region: Region;
  /** A postcode fixed per suburb of a district, so every address in a suburb shares it. */
  readonly postCode: string;
}

export interface Geography {
  readonly regions: readonly Region[];
  readonly districts: readonly District[];
  /** Areas where people live and work: water, oceanic and "outside any district" areas are left out. */
  readonly areas: readonly Area[];
  readonly areasByRegion: ReadonlyMap<string, readonly Area[]>;
}

// SA2s that are water or ocean, not places with street addresses.
const NOT_ADDRESSABLE = /^(Inlets?|Oceanic|Inland water)\b/;
const OUTSIDE_DISTRICTS = '999';

export function loadGeography(directory: string): Geography {
  const regions = readCsv(join(directory, 'regc2019.csv'))
    .filter((row) => row['regc_code'] !== '99')
    .map(
      (row): Region => ({
        code: field(row, 'regc_code'),
        name: field(row, 'regc_name'),
        shortName: field(row, 'regc_name').replace(/ Region$/, ''),
      }),
    );
  const regionByCode = new Map(regions.map((region) => [region.code, region]));

  const districts = readCsv(join(directory, 'ta2019.csv'))
    .filter((row) => row['ta_code'] !== OUTSIDE_DISTRICTS)
    .map((row): District => {
      const code = field(row, 'ta_code');
      const known = DISTRICT_TOWNS_AND_POSTCODES[code];
      if (!known) throw new Error(`no town and postcodes known for territorial authority ${code}`);
      const regionCode = field(row, 'regc_code') || '99';
      return { code, name: field(row, 'ta_name'), regionCode, town: known[0], postcodeRanges: known[1] };
    });
  const districtByCode = new Map(districts.map((district) => [district.code, district]));

  const chathams: Region = { code: '99', name: 'Area Outside Region', shortName: 'Chatham Islands' };
  const areas: Area[] = [];
  // A suburb split into several SA2s ("Hataitai North", "Hataitai South") has one postcode: its first SA2's.
  const suburbPostcodes = new Map<string, string>();
  for (const row of readCsv(join(directory, 'sa2_2019.csv'))) {
    const name = field(row, 'sa2_name');
    const district = districtByCode.get(field(row, 'ta_code'));
    if (!district || NOT_ADDRESSABLE.test(name)) continue;
    const region = regionByCode.get(field(row, 'regc_code')) ?? chathams;
    const code = field(row, 'sa2_code');
    const suburb = suburbOf(name);
    const place = `${district.code}|${suburb}`;
    const postCode = suburbPostcodes.get(place) ?? postcodeFor(code, district);
    suburbPostcodes.set(place, postCode);
    areas.push({ code, name, suburb, district, region, postCode });
  }
  if (areas.length === 0) throw new Error(`no addressable areas in ${directory}`);

  const areasByRegion = new Map<string, Area[]>();
  for (const area of areas) {
    const list = areasByRegion.get(area.region.code) ?? [];
    list.push(area);
    areasByRegion.set(area.region.code, list);
  }
  return { regions, districts, areas, areasByRegion };
}

/**
 * SA2 names qualify places for statistics: a district in brackets for names used twice, a compass
 * point when a suburb is split. An address names the suburb itself.
 */
export function suburbOf(sa2Name: string): string {
  const unbracketed = sa2Name.replace(/\s*\([^)]*\)\s*$/, '');
  const uncompassed = unbracketed.replace(
    /\s+(North|South|East|West|North East|North West|South East|South West)$/,
    '',
  );
  return uncompassed === '' ? sa2Name : uncompassed;
}

/** A stable choice within the district's ranges, keyed by the area code (no randomness involved). */
function postcodeFor(areaCode: string, district: District): string {
  const sizes = district.postcodeRanges.map(([from, to]) => to - from + 1);
  const total = sizes.reduce((sum, size) => sum + size, 0);
  let pick = (Number(areaCode) * 2654435761) % total;
  for (const [i, [from]] of district.postcodeRanges.entries()) {
    const size = sizes[i]!;
    if (pick < size) return String(from + pick).padStart(4, '0');
    pick -= size;
  }
  throw new Error('unreachable: postcode pick outside ranges');
}

function field(row: Readonly<Record<string, string>>, name: string): string {
  const value = row[name];
  if (value === undefined) throw new Error(`geography file lacks column ${name}`);
  return value;
}

/** Reads a small CSV with a header row; handles double-quoted fields (none today, but allowed). */
function readCsv(path: string): Record<string, string>[] {
  const lines = readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');
  const [header, ...rows] = lines.map(splitCsvLine);
  if (!header) throw new Error(`${path} is empty`);
  return rows.map((cells) => Object.fromEntries(header.map((name, i) => [name, cells[i] ?? ''])));
}

function splitCsvLine(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (quoted && char === '"' && line[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (char === '"') quoted = !quoted;
    else if (char === ',' && !quoted) {
      cells.push(cell);
      cell = '';
    } else cell += char;
  }
  cells.push(cell);
  return cells;
}

let loaded: Geography | undefined;
/** The project's copy of the geography (reference-data/geo), read once per thread. */
export function nzGeography(): Geography {
  loaded ??= loadGeography(join(REFERENCE_DATA_DIR, 'geo'));
  return loaded;
}

/** The geography's address lines: each town, its suburbs and their postcodes. */
export interface Places {
  towns: Set<string>;
  /** `suburb|town` → postcode. */
  suburbs: Map<string, string>;
  /** town → the postcodes its suburbs have. */
  postcodes: Map<string, Set<string>>;
}

export function placesOf(geography: Geography): Places {
  const places: Places = { towns: new Set(), suburbs: new Map(), postcodes: new Map() };
  for (const area of geography.areas) {
    const town = area.district.town;
    places.towns.add(town);
    places.suburbs.set(`${area.suburb}|${town}`, area.postCode);
    const codes = places.postcodes.get(town) ?? new Set<string>();
    codes.add(area.postCode);
    places.postcodes.set(town, codes);
  }
  return places;
}

let places: Places | undefined;
/** The places of the project's geography (`nzGeography()`), made once per thread. */
export function nzPlaces(): Places {
  places ??= placesOf(nzGeography());
  return places;
}

/** A line that is no suburb: a street, a unit, a rural delivery or a box. */
const NOT_SUBURB = /^(\d|RD \d|Unit |Flat |Level |Suite |PO Box |Private Bag )/;

/**
 * What is wrong with a New Zealand address's place (nothing: undefined): its lines end with a district's
 * town; the line before, when it is a suburb, is one of that town's, and the postcode is that suburb's,
 * or, without a suburb line (a street, a box, a rural delivery), one of the town's suburbs'.
 */
export function placeProblem(
  lines: readonly string[],
  postCode: string | null,
  places: Places,
): string | undefined {
  const town = lines.at(-1);
  if (town === undefined || lines.length < 2 || !places.towns.has(town))
    return `"${lines.join(', ')}": ${town} is no district's town`;
  const before = lines.length >= 3 ? lines.at(-2)! : undefined;
  if (before === undefined || NOT_SUBURB.test(before))
    return places.postcodes.get(town)?.has(postCode ?? '')
      ? undefined
      : postCode === null
        ? `${town} without a postcode`
        : `${town} with postcode ${postCode}, none of its suburbs'`;
  const postcode = places.suburbs.get(`${before}|${town}`);
  if (postcode === undefined) return `${before} is no suburb of ${town}`;
  return postCode === postcode
    ? undefined
    : `${before}, ${town} with ${postCode === null ? 'no postcode' : `postcode ${postCode}`}, not ${postcode}`;
}
