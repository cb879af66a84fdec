/**
 * Business authorities: who may act for an entity. Operations of ours in the API's style, each
 * needing a three-legged token whose user already holds authority over the entity (the operations are
 * operations/authorities.ts):
 *
 *   GET    /entities/{nzbn}/authorities                 list the current holders
 *   POST   /entities/{nzbn}/authorities                 grant: {"userEmail": …} or {"organisationId": …}
 *   DELETE /entities/{nzbn}/authorities/{authorityId}   revoke (204)
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { preconditionsOf, typed } from '../../../platform/http/operation.ts';
import { grantAuthority, listAuthorities, revokeAuthority } from '../operations/authorities.ts';
import type { NzbnContext } from '../operations/support.ts';
import { Authority, AuthorityGrant, NzbnParams, responses } from '../schemas/operations.ts';
import { nzbnOperation } from './operation.ts';
import { UPDATE_ERRORS } from './update-support.ts';

const config = { threeLegged: true };

export async function authorityRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);

  api.get(
    '/entities/:nzbn/authorities',
    nzbnOperation({
      config,
      schema: {
        summary: 'List who holds business authority over the entity',
        params: NzbnParams,
        response: responses({ 200: Type.Array(Authority) }, [400, 401, 403, 404]),
      },
    }),
    async (request) => listAuthorities(context, { caller: request.caller, nzbn: request.params.nzbn }),
  );

  api.post(
    '/entities/:nzbn/authorities',
    nzbnOperation({
      config,
      schema: {
        summary: 'Grant business authority over the entity to a user or an organisation',
        params: NzbnParams,
        body: AuthorityGrant,
        response: responses({ 201: Authority }, UPDATE_ERRORS),
      },
    }),
    async (request, reply) => {
      const granted = await grantAuthority(context, {
        caller: request.caller,
        nzbn: request.params.nzbn,
        grant: request.body,
      });
      return reply.code(201).send(granted);
    },
  );

  api.delete(
    '/entities/:nzbn/authorities/:authorityId',
    nzbnOperation(
      {
        config,
        schema: {
          summary: 'Revoke one business authority over the entity',
          params: Type.Object({ ...NzbnParams.properties, authorityId: Type.String({ maxLength: 64 }) }),
          response: responses({ 204: Type.Null() }, [400, 401, 403, 404, 412]),
        },
      },
      {},
    ),
    async (request, reply) => {
      await revokeAuthority(context, {
        caller: request.caller,
        nzbn: request.params.nzbn,
        authorityId: request.params.authorityId,
        preconditions: preconditionsOf(request),
      });
      return reply.code(204).send();
    },
  );
}
