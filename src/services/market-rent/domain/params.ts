import { RuleError } from '../../../platform/errors.ts';
import {
  type AreaDefinition,
  areaByCode,
  areaByLabel,
  type Geography,
  isUserDefined,
  resolveAreaDefinition,
  USER_DEFINED,
} from './areas.ts';
import {
  BEDROOM_VALUES,
  type Bedrooms,
  canonicalBedrooms,
  canonicalDwelling,
  DWELLING_TYPES,
  type DwellingType,
} from './factors.ts';
import { MAPPINGS_PARAMETER, parseUserDefinedMappings } from './mappings.ts';
import { buildPeriod, MAX_MONTHS, type Period } from './period.ts';
import { areaKey } from './rounding.ts';

/** A query string as Fastify parses it: a repeated parameter arrives as an array. */
/** The query as the route's schema leaves it: texts, lists of texts, and numbers already checked as such. */
export type RawQuery = Readonly<Record<string, string | number | readonly string[] | undefined>>;

/** An area a response reports on: a defined area (with its code) or a user-defined one (code null). */
export interface ReportArea {
  readonly label: string;
  readonly code: string | null;
  readonly sa2Codes: readonly string[];
  readonly key: string;
}

export interface StatisticsQuery {
  period: Period;
  /** Short code of the definition (REGC2019 for regional-council-2019), or user-defined. */
  areaDefinition: string;
  /** The definition, null for user-defined. */
  definition: AreaDefinition | null;
  /** The areas to report, in the definition's order (user-defined: the order of the mappings). */
  areas: readonly ReportArea[];
  /** True when area-codes or area-labels narrowed the areas, so ALL means only these. */
  restricted: boolean;
  /** `areaKey` of the union of `areas`: the area identity of ALL rows. */
  allAreasKey: string;
  /** Dwelling types to report, canonical order; null when not filtered. */
  dwellingTypes: readonly DwellingType[] | null;
  /** Bedroom values to report, canonical order; null when not filtered. */
  bedrooms: readonly Bedrooms[] | null;
  includeAggregates: boolean;
}

export interface QueryContext {
  geography: Geography;
  /** The service clock's current instant: never Date.now(), so virtual clocks and tests hold. */
  now: Date;
  /** Whose calendar decides "the current month"; Pacific/Auckland unless a test says otherwise. */
  timeZone?: string;
}

/**
 * Validates and normalises the query of GET /statistics. The first broken rule is thrown as a
 * RuleError naming the parameter; parameters this service does not know are ignored, as the
 * gateway may add its own.
 */
export function parseStatisticsQuery(query: RawQuery, context: QueryContext): StatisticsQuery {
  const periodEnding = required(query, 'period-ending', 'yyyy-mm');
  const numMonthsText = required(query, 'num-months', `a whole number from 1 to ${MAX_MONTHS}`);
  if (!/^\d{1,3}$/.test(numMonthsText)) {
    throw RuleError.stated(
      'num-months',
      `num-months must be a whole number from 1 to ${MAX_MONTHS}, got "${numMonthsText}"`,
    );
  }
  const period = buildPeriod(
    periodEnding,
    Number(numMonthsText),
    context.now,
    context.timeZone ?? 'Pacific/Auckland',
  );

  const definitionName = required(query, 'area-definition', `an area definition or ${USER_DEFINED}`);
  const userDefined = isUserDefined(definitionName);
  const mappings = query[MAPPINGS_PARAMETER];
  let definition: AreaDefinition | null = null;
  let available: readonly ReportArea[];
  if (userDefined) {
    if (mappings === undefined) {
      throw RuleError.stated(
        MAPPINGS_PARAMETER,
        `${MAPPINGS_PARAMETER} is required when area-definition is ${USER_DEFINED}`,
      );
    }
    available = parseUserDefinedMappings(
      typeof mappings === 'number' ? String(mappings) : mappings,
      context.geography.sa2Index,
    ).map((a) => ({
      ...a,
      code: null,
    }));
  } else {
    if (mappings !== undefined) {
      throw RuleError.stated(
        MAPPINGS_PARAMETER,
        `${MAPPINGS_PARAMETER} is allowed only when area-definition is ${USER_DEFINED}`,
      );
    }
    definition = resolveAreaDefinition(context.geography, definitionName);
    available = definition.areas;
  }

  const { areas, restricted } = chooseAreas(query, definition, available);
  const union = restricted || userDefined ? areas.flatMap((a) => a.sa2Codes) : context.geography.sa2Codes;
  return {
    period,
    areaDefinition: definition?.code ?? USER_DEFINED,
    definition,
    areas,
    restricted,
    allAreasKey: areaKey(union),
    dwellingTypes: factorFilter(query, 'dwelling-type', DWELLING_TYPES, canonicalDwelling),
    bedrooms: factorFilter(query, 'num-bedrooms', BEDROOM_VALUES, canonicalBedrooms),
    includeAggregates: booleanParameter(query, 'include-aggregates', false),
  };
}

/** Applies area-codes or area-labels (never both); keeps the definition's order and drops repeats. */
function chooseAreas(
  query: RawQuery,
  definition: AreaDefinition | null,
  available: readonly ReportArea[],
): { areas: readonly ReportArea[]; restricted: boolean } {
  const codes = query['area-codes'];
  const labels = query['area-labels'];
  if (codes !== undefined && labels !== undefined) {
    throw RuleError.stated(
      'area-codes',
      'area-codes and area-labels cannot be used together; give one of them',
    );
  }
  if (codes === undefined && labels === undefined) return { areas: available, restricted: false };
  const chosen = new Set<ReportArea>();
  if (codes !== undefined) {
    if (definition === null) {
      throw RuleError.stated(
        'area-codes',
        `area-codes cannot select user-defined areas, which have no codes; use area-labels`,
      );
    }
    for (const code of listValues(codes, 'area-codes')) {
      const area = areaByCode(definition, code);
      if (!area)
        throw RuleError.stated(
          'area-codes',
          `area-codes: "${code}" is not an area code of ${definition.code}`,
        );
      chosen.add(area);
    }
  } else {
    const byLabel = definition
      ? (label: string) => areaByLabel(definition, label)
      : userLabelLookup(available);
    const where = definition ? definition.code : `the ${MAPPINGS_PARAMETER}`;
    for (const label of listValues(labels as string | readonly string[], 'area-labels')) {
      const area = byLabel(label);
      if (!area)
        throw RuleError.stated('area-labels', `area-labels: "${label}" is not an area label of ${where}`);
      chosen.add(area);
    }
  }
  return { areas: available.filter((a) => chosen.has(a)), restricted: true };
}

function userLabelLookup(areas: readonly ReportArea[]): (label: string) => ReportArea | undefined {
  const byLabel = new Map(areas.map((a) => [a.label.toLowerCase(), a]));
  return (label) => byLabel.get(label.trim().toLowerCase());
}

/** A filter over one factor: canonical values in canonical order; null when absent or naming every value. */
function factorFilter<T extends string>(
  query: RawQuery,
  parameter: string,
  universe: readonly T[],
  canonical: (text: string) => T | undefined,
): readonly T[] | null {
  const raw = query[parameter];
  if (raw === undefined) return null;
  const wanted = new Set<T>();
  for (const text of listValues(raw, parameter)) {
    const value = canonical(text);
    if (value === undefined) {
      throw RuleError.stated(parameter, `${parameter}: "${text}" is not one of ${universe.join(', ')}`);
    }
    wanted.add(value);
  }
  return wanted.size === universe.length ? null : universe.filter((v) => wanted.has(v));
}

function booleanParameter(query: RawQuery, parameter: string, fallback: boolean): boolean {
  const raw = query[parameter];
  if (raw === undefined) return fallback;
  const text = single(raw, parameter).trim().toLowerCase();
  // Case is forgiven because some clients send True/False (Python's str(True)); nothing else is a boolean.
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw RuleError.stated(parameter, `${parameter} must be true or false, got "${single(raw, parameter)}"`);
}

function required(query: RawQuery, parameter: string, form: string): string {
  const raw = query[parameter];
  if (raw === undefined) throw RuleError.stated(parameter, `${parameter} is required (${form})`);
  const text = single(raw, parameter).trim();
  if (text === '') throw RuleError.stated(parameter, `${parameter} is empty; it must be ${form}`);
  return text;
}

function single(raw: string | number | readonly string[], parameter: string): string {
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number') return String(raw);
  if (raw.length === 1) return raw[0] as string;
  throw RuleError.stated(parameter, `${parameter} is given ${raw.length} times; give it once`);
}

/** Comma-separated values (repeats of the parameter concatenate), trimmed; none may be empty. */
function listValues(raw: string | number | readonly string[], parameter: string): string[] {
  const values = (typeof raw === 'object' ? raw : [String(raw)]).flatMap((part) => part.split(','));
  const trimmed = values.map((v) => v.trim());
  if (trimmed.every((v) => v === ''))
    throw RuleError.stated(parameter, `${parameter} is empty; give one value or more, comma-separated`);
  if (trimmed.includes(''))
    throw RuleError.stated(parameter, `${parameter} has an empty value (a stray comma?)`);
  return trimmed;
}
