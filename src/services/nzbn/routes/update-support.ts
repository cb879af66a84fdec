/**
 * The shape every Primary Business Data update shares: a valid business number, a signed-in user
 * with business authority (the gateway has already required a user's token), the request's
 * preconditions checked against the locked row, the change applied in one transaction, and the new
 * version's validators on the answer.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Entity } from '../domain/schema.ts';
import { type Change, type Updated, type UpdateTools, updateEntity } from '../store/update.ts';
import {
  checkWritePreconditions,
  entityNotFound,
  type NzbnContext,
  nzbnParam,
  requireAuthority,
  viewEtag,
} from './support.ts';

export const UPDATE_ERRORS = [400, 401, 403, 404, 412];

export async function updateFor<T>(
  context: NzbnContext,
  request: FastifyRequest<{ Params: { nzbn: string } }>,
  change: (entity: Entity, tools: UpdateTools) => Promise<Change<T>> | Change<T>,
): Promise<Updated<T>> {
  const nzbn = nzbnParam(request.params.nzbn);
  await requireAuthority(context, request, nzbn);
  const updated = await updateEntity(
    context.database.pool,
    nzbn,
    context.clock.now(),
    (stored) => checkWritePreconditions(request, stored),
    change,
  );
  if (!updated) throw entityNotFound(nzbn);
  return updated;
}

/** The new version's ETag (the authorised view: the caller acts for the entity) and Last-Modified. */
export function withValidators<T>(reply: FastifyReply, updated: Updated<T>): FastifyReply {
  return reply
    .header('ETag', viewEtag(updated.stored, true))
    .header('Last-Modified', updated.stored.lastUpdated.toUTCString());
}
