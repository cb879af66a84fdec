/**
 * Organisation parts, reads: search across the register, an entity's parts and one part (both with ETag,
 * Last-Modified and conditional requests). The operations are operations/organisation-parts.ts.
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
  responses,
} from '../schemas/operations.ts';
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

const BY_NAME = { sortBy: 'name', sortOrder: 'ASC' };

export async function partReadRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
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
      const page = pageOf(query);
      const found = await searchOrganisationParts(context, { caller: request.caller, search: query, page });
      const listing = {
        path: '/entities/organisation-parts',
        query,
        carried: ['nzbn', 'opn', 'name', 'function', 'status'],
      };
      return pagedEnvelope(context, listing, page, found, BY_NAME);
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
      const parts = await entityParts(context, { caller: request.caller, nzbn: request.params.nzbn });
      if (conditionalRead(request, reply, parts.validators)) return reply;
      return reply.type('application/json; charset=utf-8').send(parts.body);
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
      const { nzbn, opn } = request.params;
      const part = await organisationPart(context, { caller: request.caller, nzbn, opn });
      if (conditionalRead(request, reply, part.validators)) return reply;
      return reply.type('application/json; charset=utf-8').send(part.body);
    },
  );
}
