import { RuleError } from '../../../platform/errors.ts';
import type { GeoTables, Sa2Row } from './geo-csv.ts';
import { areaKey } from './rounding.ts';

/** One reportable area: a label and code of its definition, and the SA2 2019 areas it is made of. */
export interface Area {
  /** Numeric code as a string without leading zeros (region "01" → "1"), as the published service shows. */
  readonly code: string;
  readonly label: string;
  /** SA2 2019 codes, ascending. */
  readonly sa2Codes: readonly string[];
  /** `areaKey(sa2Codes)`: the identity used to key random rounding. */
  readonly key: string;
}

export interface AreaDefinition {
  /** Short code, e.g. REGC2019: the form the responses carry. */
  readonly code: string;
  /** Long label, e.g. regional-council-2019. */
  readonly name: string;
  readonly description: string;
  /** Ascending by numeric code. Together they cover every SA2 exactly once. */
  readonly areas: readonly Area[];
  readonly areaByCode: ReadonlyMap<string, Area>;
  /** Keyed by lower-case label, for case-insensitive lookup. */
  readonly areaByLabel: ReadonlyMap<string, Area>;
  /** For each SA2, by its index in `Geography.sa2Codes`, the index of its area in `areas`. */
  readonly areaIndexBySa2: Int32Array;
}

export interface Geography {
  /** Every SA2 2019 code (the finest areas, SAU2019), ascending; positions are the SA2 indexes. */
  readonly sa2Codes: readonly string[];
  readonly sa2Index: ReadonlyMap<string, number>;
  readonly definitions: readonly AreaDefinition[];
}

export const USER_DEFINED = 'user-defined';

/** Years of the internet-market-rent family; each is built the same way (see README). */
export const INTERNET_MARKET_RENT_YEARS = [2017, 2019] as const;

interface Recipe {
  code: string;
  name: string;
  description: string;
  areaOf: (row: Sa2Row) => { code: string; label: string };
}

const region = (row: Sa2Row) => ({ code: row.regcCode, label: row.regcName });
const territorialAuthority = (row: Sa2Row) => ({ code: row.taCode, label: row.taName });
const sa2 = (row: Sa2Row) => ({ code: row.sa2Code, label: row.sa2Name });

const RECIPES: readonly Recipe[] = [
  { code: 'REGC2019', name: 'regional-council-2019', description: 'Regional councils 2019', areaOf: region },
  {
    code: 'TA2019',
    name: 'territorial-authority-2019',
    description: 'Territorial authorities 2019',
    areaOf: territorialAuthority,
  },
  {
    code: 'SAU2019',
    name: 'statistical-area-unit-2019',
    description: 'Statistical areas 2 (2019), the finest',
    areaOf: sa2,
  },
  ...INTERNET_MARKET_RENT_YEARS.map((year) => ({
    code: `IMR${year}`,
    name: `internet-market-rent-${year}`,
    description: `Internet market rent areas ${year} (approximated by territorial authorities 2019)`,
    areaOf: territorialAuthority,
  })),
  {
    code: 'REGC2016',
    name: 'regional-council-2016',
    description: 'Regional councils 2016 (approximated by the 2019 edition)',
    areaOf: region,
  },
  {
    code: 'TA2016',
    name: 'territorial-authority-2016',
    description: 'Territorial authorities 2016 (approximated by the 2019 edition)',
    areaOf: territorialAuthority,
  },
  {
    code: 'SAU2016',
    name: 'statistical-area-unit-2016',
    description: 'Statistical area units 2016 (approximated by statistical areas 2, 2019)',
    areaOf: sa2,
  },
];

export function buildGeography(tables: GeoTables): Geography {
  checkConcordance(tables);
  const rows = [...tables.sa2].sort((a, b) => numeric(a.sa2Code) - numeric(b.sa2Code));
  const sa2Codes = rows.map((r) => withoutLeadingZeros(r.sa2Code));
  const sa2Index = new Map(sa2Codes.map((code, i) => [code, i]));
  if (sa2Index.size !== sa2Codes.length) throw new Error('geography: an SA2 code appears twice');
  const definitions = RECIPES.map((recipe) => buildDefinition(recipe, rows, sa2Codes));
  return { sa2Codes, sa2Index, definitions };
}

function buildDefinition(
  recipe: Recipe,
  rows: readonly Sa2Row[],
  sa2Codes: readonly string[],
): AreaDefinition {
  const members = new Map<string, { label: string; sa2: string[]; sa2Positions: number[] }>();
  rows.forEach((row, position) => {
    const { code: rawCode, label } = recipe.areaOf(row);
    const code = withoutLeadingZeros(rawCode);
    const entry = members.get(code);
    if (entry === undefined) {
      members.set(code, { label, sa2: [sa2Codes[position] as string], sa2Positions: [position] });
    } else if (entry.label !== label) {
      throw new Error(`${recipe.code}: area ${code} is named both "${entry.label}" and "${label}"`);
    } else {
      entry.sa2.push(sa2Codes[position] as string);
      entry.sa2Positions.push(position);
    }
  });
  const ordered = [...members.entries()].sort(([a], [b]) => numeric(a) - numeric(b));
  const areaIndexBySa2 = new Int32Array(rows.length);
  const areas: Area[] = ordered.map(([code, entry], index) => {
    for (const position of entry.sa2Positions) areaIndexBySa2[position] = index;
    return Object.freeze({
      code,
      label: entry.label,
      sa2Codes: Object.freeze(entry.sa2),
      key: areaKey(entry.sa2),
    });
  });
  const areaByLabel = new Map<string, Area>();
  for (const area of areas) {
    const folded = area.label.toLowerCase();
    if (areaByLabel.has(folded)) throw new Error(`${recipe.code}: two areas are labelled "${area.label}"`);
    areaByLabel.set(folded, area);
  }
  return {
    code: recipe.code,
    name: recipe.name,
    description: recipe.description,
    areas,
    areaByCode: new Map(areas.map((a) => [a.code, a])),
    areaByLabel,
    areaIndexBySa2,
  };
}

/** Every SA2 must name a region and authority of the other two tables, with the same names. */
function checkConcordance(tables: GeoTables): void {
  const regions = new Map(tables.regions.map((r) => [withoutLeadingZeros(r.code), r.name]));
  const authorities = new Map(
    tables.territorialAuthorities.map((t) => [withoutLeadingZeros(t.code), t.name]),
  );
  for (const row of tables.sa2) {
    if (!/^\d+$/.test(row.sa2Code)) throw new Error(`geography: SA2 code "${row.sa2Code}" is not numeric`);
    if (regions.get(withoutLeadingZeros(row.regcCode)) !== row.regcName) {
      throw new Error(
        `geography: SA2 ${row.sa2Code} names region ${row.regcCode} "${row.regcName}", unknown`,
      );
    }
    if (authorities.get(withoutLeadingZeros(row.taCode)) !== row.taName) {
      throw new Error(`geography: SA2 ${row.sa2Code} names authority ${row.taCode} "${row.taName}", unknown`);
    }
  }
}

/** "01" → "1", "001" → "1", "100100" unchanged; non-numeric text is returned as given. */
export function withoutLeadingZeros(code: string): string {
  const trimmed = code.trim();
  return /^\d+$/.test(trimmed) ? trimmed.replace(/^0+(?=\d)/, '') : trimmed;
}

function numeric(code: string): number {
  return Number.parseInt(code, 10);
}

/**
 * The definition named by its short code or long label, case-insensitively. `parameter` names the
 * query or path parameter in the error, for the HTTP layer to report.
 */
export function resolveAreaDefinition(
  geography: Geography,
  name: string,
  parameter = 'area-definition',
): AreaDefinition {
  const wanted = name.trim().toLowerCase();
  const found = geography.definitions.find((d) => d.code.toLowerCase() === wanted || d.name === wanted);
  if (found) return found;
  const known = geography.definitions.map((d) => d.code).join(', ');
  const extra = parameter === 'area-definition' ? ` or ${USER_DEFINED}` : '';
  throw RuleError.stated(
    parameter,
    `${parameter} "${name}" is not a known area definition; use one of ${known} (or their long labels)${extra}`,
  );
}

export function isUserDefined(name: string): boolean {
  return name.trim().toLowerCase() === USER_DEFINED;
}

/** The area of a definition with the given code (leading zeros ignored), or undefined. */
export function areaByCode(definition: AreaDefinition, code: string): Area | undefined {
  return definition.areaByCode.get(withoutLeadingZeros(code));
}

/** The area of a definition with the given label, case-insensitively, or undefined. */
export function areaByLabel(definition: AreaDefinition, label: string): Area | undefined {
  return definition.areaByLabel.get(label.trim().toLowerCase());
}

/** The body of /area-definitions/{area-definition} in the published shape. */
export function areaListing(definition: AreaDefinition): {
  tableName: string;
  items: { label: string; code: string }[];
} {
  return {
    tableName: definition.code,
    items: definition.areas.map((a) => ({ label: a.label, code: a.code })),
  };
}
