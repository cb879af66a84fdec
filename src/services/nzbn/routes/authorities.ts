/**
 * Business authorities at the top level, as published (NZBN_103; the operations are
 * operations/authorities.ts), each needing a three-legged token:
 *
 *   GET  /authorities                 search (nzbn, user-id, organisation-id, historic, authority-status, paging, sorting)
 *   POST /authorities                 request (PENDING) or, by a holder with approvalType USER, grant
 *   PUT  /authorities/{authorityId}   accept or reject (operators), withdraw, surrender, revoke; 204
 */

import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { preconditionsOf, typed } from '../../../platform/http/operation.ts';
import { changeAuthority, requestAuthority, searchAuthorities } from '../operations/authorities.ts';
import type { NzbnContext } from '../operations/support.ts';
import {
  AuthoritiesSearchResponse,
  Authority,
  AuthorityChangeBody,
  AuthorityParams,
  AuthorityRequestBody,
  AuthoritySearchQuery,
} from '../schemas/directory.ts';
import { responses } from '../schemas/operations.ts';
import { nzbnOperation } from './operation.ts';
import { pagedEnvelope, pageOf } from './paging.ts';
import { published } from './published.ts';

const config = { threeLegged: true };

export async function authorityRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);

  api.get(
    '/authorities',
    nzbnOperation({
      config,
      schema: {
        ...published('NZBN_103_1'),
        summary: 'Search the business authorities the signed-in user may see',
        querystring: AuthoritySearchQuery,
        response: responses({ 200: AuthoritiesSearchResponse }, [400, 401, 403]),
      },
    }),
    async (request) => {
      const { query } = request;
      const page = pageOf(query);
      const found = await searchAuthorities(context, { caller: request.caller, query, page });
      const listing = {
        path: '/authorities',
        query,
        carried: [
          'nzbn',
          'user-id',
          'organisation-id',
          'historic',
          'authority-status',
          'sort-by',
          'sortorder',
        ],
      };
      return pagedEnvelope(context, listing, page, found, found);
    },
  );

  api.post(
    '/authorities',
    nzbnOperation({
      config,
      schema: {
        ...published('NZBN_103_2'),
        summary:
          'Request business authority over an entity (or grant it, as a holder, with approvalType USER)',
        body: AuthorityRequestBody,
        response: responses({ 201: Authority }, [400, 401, 403]),
      },
    }),
    async (request, reply) => {
      const made = await requestAuthority(context, { caller: request.caller, body: request.body });
      return reply.code(201).send(made);
    },
  );

  api.put(
    '/authorities/:authorityId',
    nzbnOperation(
      {
        config,
        schema: {
          ...published('NZBN_103_3'),
          summary:
            'Accept, reject, withdraw, surrender or revoke an authority, or change a request’s documents',
          params: AuthorityParams,
          body: AuthorityChangeBody,
          response: responses({ 204: Type.Null() }, [400, 401, 403, 404, 412]),
        },
      },
      {},
    ),
    async (request, reply) => {
      await changeAuthority(context, {
        caller: request.caller,
        authorityId: request.params.authorityId,
        body: request.body,
        preconditions: preconditionsOf(request),
      });
      return reply.code(204).send();
    },
  );
}
