/**
 * GET /entities/changes: the change event search, with the published parameters (see
 * operations/changes.ts) and the published envelope. The schemas of its query and items are here; the
 * push notification's items (schemas/webhooks.ts) have the same shape.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { typed } from '../../../platform/http/operation.ts';
import { Link, Nullable, Nzbn, NzDateTime, Strict } from '../domain/schema.ts';
import { searchChangeEvents } from '../operations/changes.ts';
import type { NzbnContext } from '../operations/support.ts';
import { envelope, PagingQuery, responses } from '../schemas/operations.ts';
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
      const page = pageOf(query);
      const { sortBy, sortOrder, ...found } = await searchChangeEvents(context, { search: query, page });
      const listing = { path: '/entities/changes', query, carried: CARRIED };
      return pagedEnvelope(context, listing, page, found, { sortBy, sortOrder });
    },
  );
}
