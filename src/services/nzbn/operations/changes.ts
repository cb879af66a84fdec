/**
 * The change event search: the published NzbnChange items (business number, business name, when it
 * changed, and each change event of that change: its type, the new value, the resource it changed),
 * read from the change events the register records with every change (store/changes.ts). The search is
 * given under the published parameter names (errors name them): `change-event-type` (required; ALL,
 * NEW, ENTITY or a recorded type, comma joined or repeated), `entity-type`, the period as
 * `date-time-from`/`date-time-to` or, as one public client sends it, `start-date`/`end-date` (both
 * spellings accepted; both at once only when they name the same instant), `sort-by` (NZBN, ENTITY_NAME,
 * ENTITY_STATUS, ENTITY_TYPE_CODE; by the change's date when not given) and `sort-order` (ASC, DESC).
 * A `+` of a time offset sent unencoded arrives as a space (`…000 1300`) and is read as `+1300`.
 *
 * Public sector entities have no source register, so the register publishes no change feed for them:
 * their events never appear, and naming one in `entity-type` is a 400. A new value holding private data
 * is never shown (search is a public operation): such events carry `newValue: null`.
 */
import { badRequest } from '../../../platform/http/errors.ts';
import { NZ_DATE_TIME_RULE, parseNzDateTime } from '../../../platform/nz-time.ts';
import { nzbnChange } from '../domain/change-item.ts';
import {
  entityTypesForFilter,
  FILTER_ONLY_CHANGE_EVENT_TYPES,
  isChangeEventType,
  PUBLIC_SECTOR_TYPE_CODES,
} from '../domain/codes.ts';
import { type ChangeSortColumn, searchChanges } from '../store/change-search.ts';
import { baseUrl, choice, type NzbnContext } from './support.ts';

type PeriodEnd = 'date-time-from' | 'date-time-to' | 'start-date' | 'end-date';

/** The search, under the published parameter names. */
export interface ChangeSearch extends Partial<Record<PeriodEnd, string | undefined>> {
  'change-event-type': readonly string[];
  'entity-type'?: readonly string[] | undefined;
  'sort-by'?: string | undefined;
  'sort-order'?: string | undefined;
}

/** The published `sort-by` values. */
export const CHANGE_SORT_BY = ['NZBN', 'ENTITY_NAME', 'ENTITY_STATUS', 'ENTITY_TYPE_CODE'] as const;

const split = (values: readonly string[] | undefined): string[] =>
  (values ?? [])
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter(Boolean);

/** ALL or ENTITY anywhere in the list widen it; otherwise the recorded types named. */
export function changeTypesFilter(values: readonly string[]): 'ALL' | 'ENTITY' | string[] {
  const names = split(values).map((name) => name.toUpperCase());
  if (names.length === 0) throw badRequest('change-event-type', 'is required');
  for (const name of names) {
    if (!isChangeEventType(name))
      throw badRequest('change-event-type', `unknown change event type "${name}"`);
  }
  if (names.includes('ALL')) return 'ALL';
  if (names.includes('ENTITY')) return names.includes('NEW') ? 'ALL' : 'ENTITY';
  return [...new Set(names.filter((name) => !FILTER_ONLY_CHANGE_EVENT_TYPES.has(name)))];
}

export function changeEntityTypes(values: readonly string[] | undefined): string[] | undefined {
  const names = split(values);
  if (names.length === 0) return undefined;
  const codes = new Set<string>();
  for (const name of names) {
    const matched = entityTypesForFilter(name);
    if (!matched) throw badRequest('entity-type', `unknown entity type "${name}"`);
    if (matched.some((code) => PUBLIC_SECTOR_TYPE_CODES.has(code))) {
      throw badRequest(
        'entity-type',
        `"${name}" cannot be used for change events: public sector entities have no source register`,
      );
    }
    for (const code of matched) codes.add(code);
  }
  return [...codes];
}

/** `2009-03-24T00:00:00.000 1300`: a `+` a client sent unencoded, which a query string reads as a space. */
const SPACE_FOR_PLUS = /(\d) (\d{2}:?\d{2})$/;

function parsedInstant(field: string, text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  // As sent first (`2009-03-24 13:00` is a date and a time); then with the space read as a `+`.
  const parsed =
    parseNzDateTime(text.trim()) ?? parseNzDateTime(text.trim().replace(SPACE_FOR_PLUS, '$1+$2'));
  if (parsed === null) throw badRequest(field, `must be ${NZ_DATE_TIME_RULE}`);
  return parsed;
}

/** One end of the period under either spelling; both spellings at once must name the same instant. */
export function instant(
  query: Partial<Record<PeriodEnd, string | undefined>>,
  names: readonly ['date-time-from' | 'date-time-to', 'start-date' | 'end-date'],
): number | undefined {
  const [first, second] = names;
  const one = parsedInstant(first, query[first]);
  const other = parsedInstant(second, query[second]);
  if (one !== undefined && other !== undefined && one !== other) {
    throw badRequest(
      second,
      `${first} and ${second} name the same end of the period: give one, or the same instant in both`,
    );
  }
  return one ?? other;
}

/** One page of the change events the search finds, its order and the number of matches. */
export async function searchChangeEvents(
  context: NzbnContext,
  input: { search: ChangeSearch; page: { pageSize: number; offset: number } },
) {
  const { search, page } = input;
  const changeEventTypes = changeTypesFilter(search['change-event-type']);
  const typeCodes = changeEntityTypes(search['entity-type']);
  const from = instant(search, ['date-time-from', 'start-date']);
  const to = instant(search, ['date-time-to', 'end-date']);
  if (from !== undefined && to !== undefined && from > to) {
    throw badRequest('date-time-to', 'the end of the period is before its start');
  }
  const given = search['sort-by'];
  const sortBy = given === undefined ? undefined : choice(given, CHANGE_SORT_BY);
  if (given !== undefined && !sortBy)
    throw badRequest('sort-by', `must be one of ${CHANGE_SORT_BY.join(', ')}`);
  const sortOrder = (search['sort-order'] ?? 'ASC').toUpperCase();
  if (sortOrder !== 'ASC' && sortOrder !== 'DESC') throw badRequest('sort-order', 'must be ASC or DESC');
  const found = await searchChanges(context.database.pool, {
    changeEventTypes,
    typeCodes,
    excludeTypeCodes: [...PUBLIC_SECTOR_TYPE_CODES],
    from,
    to,
    sortBy: (sortBy ?? 'CHANGE_DATE') satisfies ChangeSortColumn,
    descending: sortOrder === 'DESC',
    limit: page.pageSize,
    offset: page.offset,
  });
  const base = baseUrl(context);
  const items = found.rows.map((row) => nzbnChange(row, base));
  return { total: found.total, items, sortBy: sortBy ?? null, sortOrder };
}
