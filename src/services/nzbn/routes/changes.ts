/**
 * GET /entities/changes: the change event search. Items have the shape of a push notification item
 * (business number, business name, change type, change date, new value), read from the change events
 * the register records with every change (store/changes.ts).
 *
 * Parameters as published: `change-event-type` (required; ALL, NEW, ENTITY or a recorded type, comma
 * joined or repeated), `entity-type`, the period as `date-time-from`/`date-time-to` or
 * `start-date`/`end-date` (both spellings accepted; both at once when they name the same instant),
 * `page`, `page-size`, `sort-by` (changeDate, entityName, nzbn) and `sort-order` (ASC, DESC). A `+` of a
 * time offset sent unencoded arrives as a space (`…000 1300`) and is read as `+1300`.
 *
 * Business types that cannot be used: public sector entities (GovtCentral, GovtLocal, GovtEdu,
 * GovtOther and the group G) have no source register, so the register publishes no change feed for
 * them: their events never appear here, and naming one in `entity-type` is a 400. A new value holding private data is never shown here
 * (search is a public operation): such items carry `newValue: null`.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../../platform/http/errors.ts';
import { typed } from '../../../platform/http/operation.ts';
import { NZ_DATE_TIME_RULE, parseNzDateTime } from '../../../platform/nz-time.ts';
import { changeItem } from '../domain/change-item.ts';
import {
  entityTypesForFilter,
  FILTER_ONLY_CHANGE_EVENT_TYPES,
  isChangeEventType,
  PUBLIC_SECTOR_TYPE_CODES,
} from '../domain/codes.ts';
import { Link, Nullable, Nzbn, NzDateTime, Strict } from '../domain/schema.ts';
import { baseUrl, choice, type NzbnContext } from '../operations/support.ts';
import { envelope, PagingQuery, responses } from '../schemas/operations.ts';
import { type ChangeSortColumn, searchChanges } from '../store/change-search.ts';
import { nzbnOperation } from './operation.ts';
import { pagedEnvelope, pageOf } from './paging.ts';

const ListParam = (description: string) =>
  Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 20, description }));
const DateParam = (description: string) => Type.Optional(Type.String({ maxLength: 40, description }));

export const ChangeSearchQuery = Type.Object({
  'change-event-type': Type.Array(Type.String({ maxLength: 500 }), {
    minItems: 1,
    maxItems: 20,
    description: 'ALL, NEW, ENTITY (every type but NEW), ROLES_DIRECTOR, ENTITY_NAME, ENTITY_STATUS, …',
    examples: [['ENTITY_NAME']],
  }),
  'entity-type': ListParam(
    'NZCompany, SoleTrader, LTD, … (not public sector types: they have no source register)',
  ),
  'date-time-from': DateParam('Start of the period (inclusive); same as start-date'),
  'date-time-to': DateParam('End of the period (inclusive); same as end-date'),
  'start-date': DateParam('Start of the period (inclusive); same as date-time-from'),
  'end-date': DateParam('End of the period (inclusive); same as date-time-to'),
  'sort-by': Type.Optional(
    Type.String({ maxLength: 40, description: 'changeDate (default), entityName or nzbn' }),
  ),
  'sort-order': Type.Optional(Type.String({ maxLength: 10, description: 'ASC (default) or DESC' })),
  ...PagingQuery,
});
export type ChangeSearchQuery = Static<typeof ChangeSearchQuery>;

export const ChangeItem = Type.Object(
  {
    changeEventId: Type.String({ description: 'Stable identifier of the change event' }),
    nzbn: Nzbn,
    entityName: Type.String(),
    entityTypeCode: Type.String(),
    changeEventType: Type.String(),
    changeDate: NzDateTime,
    newValue: Nullable(Type.Unknown({ description: 'The changed data after the change; null when private' })),
    links: Type.Array(Link),
  },
  Strict,
);

/** The parameters a page's links carry over. */
const CARRIED = [
  'change-event-type',
  'entity-type',
  'date-time-from',
  'date-time-to',
  'start-date',
  'end-date',
  'sort-by',
  'sort-order',
];

const SORT_COLUMNS: readonly ChangeSortColumn[] = ['changeDate', 'entityName', 'nzbn'];

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
  query: Partial<Record<'date-time-from' | 'date-time-to' | 'start-date' | 'end-date', string>>,
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

export async function changeRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  typed(app).get(
    '/entities/changes',
    nzbnOperation({
      schema: {
        summary: 'Search change events',
        querystring: ChangeSearchQuery,
        response: responses({ 200: envelope(ChangeItem) }, [400]),
      },
    }),
    async (request) => {
      const query = request.query;
      const changeEventTypes = changeTypesFilter(query['change-event-type']);
      const typeCodes = changeEntityTypes(query['entity-type']);
      const from = instant(query, ['date-time-from', 'start-date']);
      const to = instant(query, ['date-time-to', 'end-date']);
      if (from !== undefined && to !== undefined && from > to) {
        throw badRequest('date-time-to', 'the end of the period is before its start');
      }
      const sortBy = choice(query['sort-by'] ?? 'changeDate', SORT_COLUMNS);
      if (!sortBy) throw badRequest('sort-by', `must be one of ${SORT_COLUMNS.join(', ')}`);
      const sortOrder = (query['sort-order'] ?? 'ASC').toUpperCase();
      if (sortOrder !== 'ASC' && sortOrder !== 'DESC') throw badRequest('sort-order', 'must be ASC or DESC');
      const page = pageOf(query);
      const found = await searchChanges(context.database.pool, {
        changeEventTypes,
        typeCodes,
        excludeTypeCodes: [...PUBLIC_SECTOR_TYPE_CODES],
        from,
        to,
        sortBy,
        descending: sortOrder === 'DESC',
        limit: page.pageSize,
        offset: page.offset,
      });
      const base = baseUrl(context);
      const items = found.rows.map((row) => changeItem(row, base));
      const listing = { path: '/entities/changes', query, carried: CARRIED };
      return pagedEnvelope(context, listing, page, { total: found.total, items }, { sortBy, sortOrder });
    },
  );
}
