/**
 * Business authorities: who may act for an entity (update its Primary Business Data, see its private
 * data, manage its organisation parts and its authorities). Operations of ours in the API's style, each
 * needing a three-legged token whose user already holds authority over the entity:
 *
 *   GET    /entities/{nzbn}/authorities                 list the current holders
 *   POST   /entities/{nzbn}/authorities                 grant: {"userEmail": …} or {"organisationId": …}
 *   DELETE /entities/{nzbn}/authorities/{authorityId}   revoke (204)
 *
 * Holders are users of this gateway (by email) or organisations of this environment (by their
 * register identifier). Revoking takes effect at once: services ask identity/ on every call.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { HeldAuthority } from '../../../gateway/service-context.ts';
import { strongEtag } from '../../../platform/http/conditional.ts';
import { NZBN_ERRORS } from '../../../platform/http/error-codes.ts';
import { badRequest, HttpError } from '../../../platform/http/errors.ts';
import { conditionalWrite, typed } from '../../../platform/http/operation.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import { Authority, AuthorityGrant, NzbnParams, responses } from '../schemas/operations.ts';
import { nzbnOperation } from './operation.ts';
import { loadEntity, type NzbnContext, requireAuthority } from './support.ts';
import { UPDATE_ERRORS } from './update-support.ts';

const config = { threeLegged: true };

const published = (nzbn: string, authority: HeldAuthority): Authority => ({
  authorityId: authority.id,
  nzbn,
  userEmail: authority.userEmail,
  organisationId: authority.organisationIdentifier,
  role: authority.role,
  startDate: formatNzDateTime(authority.grantedAt.getTime()),
});

export async function authorityRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  /** A valid, existing entity the signed-in user acts for. */
  const entityActedFor = async (request: Parameters<typeof requireAuthority>[1], nzbn: string) => {
    const stored = await loadEntity(context, nzbn);
    await requireAuthority(context, request, stored.nzbn);
    return stored.nzbn;
  };
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
    async (request) => {
      const nzbn = await entityActedFor(request, request.params.nzbn);
      return (await context.identity.listAuthorities('entity', nzbn)).map((a) => published(nzbn, a));
    },
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
      const nzbn = await entityActedFor(request, request.params.nzbn);
      const { userEmail, organisationId, role } = request.body;
      if ((userEmail === undefined) === (organisationId === undefined)) {
        throw badRequest('userEmail', 'give exactly one of userEmail and organisationId');
      }
      const holder = userEmail !== undefined ? { email: userEmail } : { organisation: organisationId! };
      const granted = await context.identity.grantAuthority('entity', nzbn, holder, {
        role: role ?? 'authority',
        ...(request.caller?.userId ? { grantedBy: request.caller.userId } : {}),
      });
      if (!granted) {
        throw userEmail !== undefined
          ? badRequest('userEmail', 'no user has this email address')
          : badRequest('organisationId', `no ${context.environment} organisation has this identifier`);
      }
      return reply.code(201).send(published(nzbn, granted));
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
      const nzbn = await entityActedFor(request, request.params.nzbn);
      const { authorityId } = request.params;
      const notFound = () =>
        new HttpError(NZBN_ERRORS.notFound, 'Object Not Found: no such authority over this entity');
      // The authority as listed (its bytes make the ETag; its grant is its last modification). The
      // holders live in the gateway's database, outside this register's transactions: a revocation
      // between this check and the revoke below is answered 404, as a second revoke is.
      const held = (await context.identity.listAuthorities('entity', nzbn)).find((a) => a.id === authorityId);
      if (!held) throw notFound();
      const shown = published(nzbn, held);
      conditionalWrite(request, { etag: strongEtag(shown), lastModified: held.grantedAt });
      if (!(await context.identity.revokeAuthority('entity', nzbn, authorityId))) throw notFound();
      return reply.code(204).send();
    },
  );
}
