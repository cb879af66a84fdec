/**
 * GET /entities/changes: the change event search, with the published parameters (see
 * operations/changes.ts), the published envelope and its items (NzbnChange, each change's events
 * nested as ChangeEvent). The schemas of its query and items are here.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { typed } from '../../../platform/http/operation.ts';
import { Link, Nullable, Nzbn, NzDateTime, Strict } from '../domain/schema.ts';
import { CHANGE_SORT_BY, searchChangeEvents } from '../operations/changes.ts';
import type { NzbnContext } from '../operations/support.ts';
import { envelope, PagingQuery, responses } from '../schemas/operations.ts';
import { nzbnOperation } from './operation.ts';
import { pagedEnvelope, pageOf } from './paging.ts';
import { published } from './published.ts';

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
  'date-time-from': DateParam('Start of the period (inclusive)'),
  'date-time-to': DateParam('End of the period (inclusive)'),
  'start-date': DateParam(
    'Start of the period, as one public client names it: the same as date-time-from (both at once must agree)',
  ),
  'end-date': DateParam(
    'End of the period, as one public client names it: the same as date-time-to (both at once must agree)',
  ),
  'sort-by': Type.Optional(
    Type.String({
      maxLength: 40,
      description: `${CHANGE_SORT_BY.join(', ')}; by the change's date and time when not given`,
    }),
  ),
  'sort-order': Type.Optional(Type.String({ maxLength: 10, description: 'ASC (default) or DESC' })),
  ...PagingQuery,
});
export type ChangeSearchQuery = Static<typeof ChangeSearchQuery>;

/** The published ChangeEvent: one change event of a change. */
export const ChangeEvent = Type.Object(
  {
    changeEventType: Type.String(),
    newValue: Nullable(
      Type.String({ description: 'The changed data after the change (JSON text); null when private' }),
    ),
    resourceLink: Type.String({ description: 'Where the changed data is read' }),
    link: Link,
  },
  Strict,
);

/** The published NzbnChange: the entity, when it changed, and the change events of that change. */
export const NzbnChange = Type.Object(
  {
    nzbn: Nzbn,
    entityName: Type.String(),
    changeDateTime: NzDateTime,
    items: Type.Array(ChangeEvent),
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
        ...published('NZBN_001_2'),
        summary: 'Search change events',
        querystring: ChangeSearchQuery,
        response: responses({ 200: envelope(NzbnChange) }, [400, 401, 403]),
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
