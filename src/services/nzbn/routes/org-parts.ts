/**
 * Organisation parts, reads: search across the register, an entity's parts and one part (both with ETag,
 * Last-Modified and conditional requests). The visibility rule (domain/organisation-part.ts) is applied
 * in every read and inside the search query; a part the caller may not see is answered exactly as a
 * missing one.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { strongEtag } from '../../../platform/http/conditional.ts';
import { badRequest } from '../../../platform/http/errors.ts';
import { conditionalRead, typed } from '../../../platform/http/operation.ts';
import { OrganisationPart, partViewFor, partVisibleTo, readStatus } from '../domain/organisation-part.ts';
import {
  entitiesCallerActsFor,
  latestOf,
  loadEntity,
  type NzbnContext,
  nzbnParam,
  partNotFound,
} from '../operations/support.ts';
import {
  ConditionalHeaders,
  envelope,
  NotModified,
  NzbnParams,
  PagingQuery,
  responses,
} from '../schemas/operations.ts';
import { findPart, partsOf, searchParts } from '../store/org-parts.ts';
import { nzbnOperation } from './operation.ts';
import { pagedEnvelope, pageOf } from './paging.ts';

export const PartParams = Type.Object({
  // The fixed test case with organisation parts (its public part is the opn's example).
  nzbn: Type.String({ ...NzbnParams.properties.nzbn, examples: ['9429000003018'] }),
  opn: Type.String({ description: 'Organisation part number: a 13-digit GLN', examples: ['9429800000019'] }),
});

const PartSearchQuery = Type.Object({
  nzbn: Type.Optional(Type.String({ maxLength: 20 })),
  opn: Type.Optional(Type.String({ maxLength: 20 })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  function: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  status: Type.Optional(Type.String({ maxLength: 20, description: 'Active or Inactive' })),
  ...PagingQuery,
});

const gln = (value: string | undefined, field: string) =>
  value === undefined ? undefined : nzbnParam(value, field);

const BY_NAME = { sortBy: 'name', sortOrder: 'ASC' };

export async function partReadRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const pool = context.database.pool;
  const api = typed(app);

  api.get(
    '/entities/organisation-parts',
    nzbnOperation({
      schema: {
        summary: 'Search organisation parts',
        querystring: PartSearchQuery,
        response: responses({ 200: envelope(OrganisationPart) }, [400]),
      },
    }),
    async (request) => {
      const query = request.query;
      const status = query.status === undefined ? undefined : readStatus(query.status);
      if (query.status !== undefined && !status) throw badRequest('status', 'must be Active or Inactive');
      const page = pageOf(query);
      const mine = await entitiesCallerActsFor(context, request.caller);
      const found = await searchParts(
        pool,
        {
          nzbn: gln(query.nzbn, 'nzbn'),
          opn: gln(query.opn, 'opn'),
          name: query.name,
          function: query.function,
          status,
        },
        [...mine],
        { limit: page.pageSize, offset: page.offset },
      );
      const listing = {
        path: '/entities/organisation-parts',
        query,
        carried: ['nzbn', 'opn', 'name', 'function', 'status'],
      };
      const items = found.parts.map((part) => partViewFor(part, mine));
      return pagedEnvelope(context, listing, page, { total: found.total, items }, BY_NAME);
    },
  );

  api.get(
    '/entities/:nzbn/organisation-parts',
    nzbnOperation(
      {
        schema: {
          summary: "An entity's organisation parts (those the caller may see)",
          params: NzbnParams,
          headers: ConditionalHeaders,
          response: responses({ 200: Type.Array(OrganisationPart), 304: NotModified }, [400, 404, 412]),
        },
      },
      'read',
    ),
    async (request, reply) => {
      const stored = await loadEntity(context, request.params.nzbn);
      const mine = await entitiesCallerActsFor(context, request.caller);
      const visible = (await partsOf(pool, stored.nzbn)).filter(({ part }) => partVisibleTo(part, mine));
      // The ETag is of the list as this caller sees it (the parts it may see, share lists of its own).
      const body = JSON.stringify(visible.map(({ part }) => partViewFor(part, mine)));
      const lastModified = latestOf(stored.lastUpdated, visible);
      if (conditionalRead(request, reply, { etag: strongEtag(body), lastModified })) return reply;
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );

  api.get(
    '/entities/:nzbn/organisation-parts/:opn',
    nzbnOperation(
      {
        schema: {
          summary: 'One organisation part',
          params: PartParams,
          response: responses({ 200: OrganisationPart, 304: NotModified }, [400, 404, 412]),
        },
      },
      'read',
    ),
    async (request, reply) => {
      const nzbn = nzbnParam(request.params.nzbn);
      const opn = nzbnParam(request.params.opn, 'opn');
      const found = await findPart(pool, opn);
      const mine = await entitiesCallerActsFor(context, request.caller);
      if (!found || found.part.parentNzbn !== nzbn || !partVisibleTo(found.part, mine))
        throw partNotFound(opn);
      const body = JSON.stringify(partViewFor(found.part, mine));
      if (conditionalRead(request, reply, { etag: strongEtag(body), lastModified: found.lastUpdated }))
        return reply;
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );
}
