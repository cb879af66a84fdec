/**
 * Organisation parts, reads: search across the register, an entity's parts, one part (with ETag and
 * conditional requests). The visibility rule (domain/organisation-part.ts) is applied in every read and
 * inside the search query; a part the caller may not see is answered exactly as a missing one.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { answeredConditionally, strongEtag } from '../../../platform/http/conditional.ts';
import { badRequest } from '../../../platform/http/errors.ts';
import { OrganisationPart, partViewFor, partVisibleTo, readStatus } from '../domain/organisation-part.ts';
import {
  envelope,
  NotModified,
  NzbnParams,
  PAGE_SIZE_DEFAULT,
  PageQuery,
  responses,
} from '../schemas/operations.ts';
import { findPart, partsOf, searchParts } from '../store/org-parts.ts';
import {
  baseUrl,
  entitiesCallerActsFor,
  loadEntity,
  type NzbnContext,
  nzbnParam,
  pageLinks,
  partNotFound,
} from './support.ts';

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
  ...PageQuery,
});
type PartSearchQuery = {
  nzbn?: string;
  opn?: string;
  name?: string;
  function?: string;
  status?: string;
  page?: number;
  'page-size'?: number;
};

const gln = (value: string | undefined, field: string) =>
  value === undefined ? undefined : nzbnParam(value, field);

export async function partReadRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const pool = context.database.pool;

  app.get<{ Querystring: PartSearchQuery }>(
    '/entities/organisation-parts',
    {
      schema: {
        summary: 'Search organisation parts',
        querystring: PartSearchQuery,
        response: responses({ 200: envelope(OrganisationPart) }, [400]),
      },
    },
    async (request) => {
      const query = request.query;
      const status = query.status === undefined ? undefined : readStatus(query.status);
      if (query.status !== undefined && !status) throw badRequest('status', 'must be Active or Inactive');
      const page = query.page ?? 0;
      const pageSize = query['page-size'] ?? PAGE_SIZE_DEFAULT;
      const mine = await entitiesCallerActsFor(context, request);
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
        { limit: pageSize, offset: page * pageSize },
      );
      const links = pageLinks(
        `${baseUrl(context)}/entities/organisation-parts`,
        query,
        ['nzbn', 'opn', 'name', 'function', 'status'],
        { page, pageSize, total: found.total },
      );
      return {
        pageSize,
        page,
        totalItems: found.total,
        sortBy: 'name',
        sortOrder: 'ASC',
        items: found.parts.map((part) => partViewFor(part, mine)),
        links,
      };
    },
  );

  app.get<{ Params: NzbnParams }>(
    '/entities/:nzbn/organisation-parts',
    {
      schema: {
        summary: "An entity's organisation parts (those the caller may see)",
        params: NzbnParams,
        response: responses({ 200: Type.Array(OrganisationPart) }),
      },
    },
    async (request) => {
      const stored = await loadEntity(context, request.params.nzbn);
      const mine = await entitiesCallerActsFor(context, request);
      return (await partsOf(pool, stored.nzbn))
        .filter(({ part }) => partVisibleTo(part, mine))
        .map(({ part }) => partViewFor(part, mine));
    },
  );

  app.get<{ Params: { nzbn: string; opn: string } }>(
    '/entities/:nzbn/organisation-parts/:opn',
    {
      schema: {
        summary: 'One organisation part',
        params: PartParams,
        response: responses({ 200: OrganisationPart, 304: NotModified }, [400, 404, 412]),
      },
    },
    async (request, reply) => {
      const nzbn = nzbnParam(request.params.nzbn);
      const opn = nzbnParam(request.params.opn, 'opn');
      const found = await findPart(pool, opn);
      const mine = await entitiesCallerActsFor(context, request);
      if (!found || found.part.parentNzbn !== nzbn || !partVisibleTo(found.part, mine))
        throw partNotFound(opn);
      const body = JSON.stringify(partViewFor(found.part, mine));
      if (
        answeredConditionally(request, reply, { etag: strongEtag(body), lastModified: found.lastUpdated })
      ) {
        return reply;
      }
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );
}
