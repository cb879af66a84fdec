import { RuleError } from '../../../platform/errors.ts';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { areaListing, isUserDefined, resolveAreaDefinition, USER_DEFINED } from '../domain/areas.ts';
import type { MarketRentContext } from './context.ts';

/**
 * When the fixed listings (the area definitions, from the 2019 geographies shipped with the code) last
 * changed, as far as a client can know: they change only with the code, so no earlier than this process
 * started. Conservative: across a restart or between processes a client's `If-Modified-Since` gets the
 * listing again rather than a 304 for a listing that may have changed.
 */
const LISTINGS_MODIFIED = new Date(Math.floor(Date.now() / 1000) * 1000);

type Field = string | number | null;

/** A fixed listing: its JSON body, the item keys in order (the CSV's columns) and its modification time. */
export interface FixedListing<Item extends Record<string, Field>, Body extends { items: Item[] }> {
  readonly body: Body;
  readonly columns: readonly (keyof Item & string)[];
  readonly lastModified: Date;
}

interface DefinitionItem extends Record<string, Field> {
  code: string;
  label: string;
  description: string;
  areaCount: number | null;
}

interface AreaItem extends Record<string, Field> {
  label: string;
  code: string;
}

/** `GET /area-definitions`: every area definition, and `user-defined` (areaCount null). */
export function listAreaDefinitions(
  context: Pick<MarketRentContext, 'geography'>,
): FixedListing<DefinitionItem, { items: DefinitionItem[] }> {
  const items: DefinitionItem[] = [
    ...context.geography.definitions.map((d) => ({
      code: d.code,
      label: d.name,
      description: d.description,
      areaCount: d.areas.length,
    })),
    {
      code: USER_DEFINED,
      label: USER_DEFINED,
      description:
        'Areas defined in the request by user-defined-area-mappings, as groups of SA2 2019 (SAU2019) areas',
      areaCount: null,
    },
  ];
  return {
    body: { items },
    columns: ['code', 'label', 'description', 'areaCount'],
    lastModified: LISTINGS_MODIFIED,
  };
}

/**
 * `GET /area-definitions/{area-definition}` (and `/area-definition/{area-definition}/area-labels`): the
 * areas of one definition, by short code or long label. An unknown name, or `user-defined`, is 404.
 */
export function listAreas(
  context: Pick<MarketRentContext, 'geography'>,
  input: { areaDefinition: string },
): FixedListing<AreaItem, { tableName: string; items: AreaItem[] }> {
  const body = areaListing(findDefinition(context, input.areaDefinition));
  return { body, columns: ['label', 'code'], lastModified: LISTINGS_MODIFIED };
}

function findDefinition(context: Pick<MarketRentContext, 'geography'>, name: string) {
  try {
    if (isUserDefined(name)) {
      throw RuleError.stated(
        'area-definition',
        'user-defined areas are given in each request; they have no fixed list',
      );
    }
    return resolveAreaDefinition(context.geography, name, 'area-definition');
  } catch (error) {
    // An area definition the path names but the service does not have: the item is not there.
    if (!(error instanceof RuleError)) throw error;
    throw new HttpError(PLATFORM_ERRORS.notFound, error.message, [
      { field: error.field, message: error.rule },
    ]);
  }
}
