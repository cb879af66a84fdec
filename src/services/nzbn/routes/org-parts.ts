/**
 * Organisation parts, reads: the published search across the register, an entity's parts (the published
 * search envelope, a page at a time) and one part (both with ETag, Last-Modified and conditional
 * requests). The operations are operations/organisation-parts.ts.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { conditionalRead, typed } from '../../../platform/http/operation.ts';
import { OrganisationPart } from '../domain/organisation-part.ts';
import { entityParts, organisationPart, searchOrganisationParts } from '../operations/organisation-parts.ts';
import type { NzbnContext } from '../operations/support.ts';
import {
  ConditionalHeaders,
  envelope,
  NotModified,
  NzbnParams,
  PagingQuery,
  READ_ERRORS,
  responses,
} from '../schemas/operations.ts';
import { nzbnOperation } from './operation.ts';
import { pagedEnvelope, pageOf } from './paging.ts';
import { published } from './published.ts';

export const PartParams = Type.Object({
  // The fixed test case with organisation parts (its public part is the opn's example).
  nzbn: Type.String({ ...NzbnParams.properties.nzbn, examples: ['9429000003018'] }),
  opn: Type.String({ description: 'Organisation part number: a 13-digit GLN', examples: ['9429800000019'] }),
});

/** Repeatable, and each value may be comma-joined. */
const ListParam = (description: string) =>
  Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 20, description }));

/** The published search of organisation parts. */
const PartSearchQuery = Type.Object({
  'search-term': Type.String({
    minLength: 1,
    maxLength: 200,
    description: "Found within a part's name, or a whole part number",
    examples: ['sandbox'],
  }),
  function: Type.Optional(
    Type.String({ maxLength: 40, description: 'FUNCTION, PHYSICAL_LOCATION or DIGITAL_LOCATION' }),
  ),
  'parent-nzbn': Type.Optional(Type.String({ maxLength: 20 })),
  'parent-nzbn-name': Type.Optional(
    Type.String({ maxLength: 200, description: "Found within the parent's name" }),
  ),
  'parent-gln': ListParam('The GLN a part hangs under: its entity or another part'),
  purpose: ListParam('E_INVOICING, OTHER or LOCATIONARRIVAL'),
  'organisation-part-status': Type.Optional(
    Type.String({ maxLength: 20, description: 'ACTIVE or INACTIVE' }),
  ),
  ...PagingQuery,
});

const CARRIED = [
  'search-term',
  'function',
  'parent-nzbn',
  'parent-nzbn-name',
  'parent-gln',
  'purpose',
  'organisation-part-status',
];

const BY_NAME = { sortBy: 'name', sortOrder: 'ASC' };
const BY_NUMBER = { sortBy: 'opn', sortOrder: 'ASC' };

export async function partReadRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);

  api.get(
    '/entities/organisation-parts',
    nzbnOperation({
      schema: {
        ...published('OP001'),
        summary: 'Search organisation parts',
        querystring: PartSearchQuery,
        response: responses({ 200: envelope(OrganisationPart) }, [400, 401, 403]),
      },
    }),
    async (request) => {
      const query = request.query;
      const page = pageOf(query);
      const found = await searchOrganisationParts(context, { caller: request.caller, search: query, page });
      const listing = { path: '/entities/organisation-parts', query, carried: CARRIED };
      return pagedEnvelope(context, listing, page, found, BY_NAME);
    },
  );

  api.get(
    '/entities/:nzbn/organisation-parts',
    nzbnOperation(
      {
        schema: {
          ...published('OP003'),
          summary: "An entity's organisation parts (those the caller may see), a page at a time",
          params: NzbnParams,
          querystring: Type.Object({ ...PagingQuery }),
          headers: ConditionalHeaders,
          response: responses({ 200: envelope(OrganisationPart), 304: NotModified }, READ_ERRORS),
        },
      },
      'read',
    ),
    async (request, reply) => {
      const { nzbn } = request.params;
      const page = pageOf(request.query);
      const found = await entityParts(context, { caller: request.caller, nzbn, page });
      if (conditionalRead(request, reply, found.validators)) return reply;
      const listing = { path: `/entities/${nzbn}/organisation-parts`, query: request.query, carried: [] };
      return pagedEnvelope(context, listing, page, found, BY_NUMBER);
    },
  );

  api.get(
    '/entities/:nzbn/organisation-parts/:opn',
    nzbnOperation(
      {
        schema: {
          ...published('OP004'),
          summary: 'One organisation part',
          params: PartParams,
          response: responses({ 200: OrganisationPart, 304: NotModified }, READ_ERRORS),
        },
      },
      'read',
    ),
    async (request, reply) => {
      const { nzbn, opn } = request.params;
      const part = await organisationPart(context, { caller: request.caller, nzbn, opn });
      if (conditionalRead(request, reply, part.validators)) return reply;
      return reply.type('application/json; charset=utf-8').send(part.body);
    },
  );
}
