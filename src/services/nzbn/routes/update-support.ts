/**
 * The shape every Primary Business Data update shares: a valid business number, a signed-in user
 * with business authority (the gateway has already required a user's token), the request's
 * preconditions checked against the locked row, the change applied in one transaction, and the new
 * version's validators on the answer.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { setValidators } from '../../../platform/http/conditional.ts';
import { conditionalWrite } from '../../../platform/http/operation.ts';
import type { Entity } from '../domain/schema.ts';
import type { StoredEntity } from '../store/entities.ts';
import { type Change, type Updated, type UpdateTools, updateEntity } from '../store/update.ts';
import { entityNotFound, type NzbnContext, nzbnParam, requireAuthority, viewEtag } from './support.ts';

export const UPDATE_ERRORS = [400, 401, 403, 404, 412];

/**
 * A write's preconditions (If-Match, If-Unmodified-Since) against the stored version, through the kit.
 * An ETag of either view of the current version matches: a client may have read the entity before it
 * signed in.
 */
export function checkWritePreconditions(request: FastifyRequest, stored: StoredEntity): void {
  const ifMatch = request.headers['if-match'];
  const publicTag = viewEtag(stored, false);
  const etag =
    typeof ifMatch === 'string' && ifMatch.includes(publicTag) ? publicTag : viewEtag(stored, true);
  conditionalWrite(request, { etag, lastModified: stored.lastUpdated });
}

export async function updateFor<T>(
  context: NzbnContext,
  request: FastifyRequest,
  nzbnGiven: string,
  change: (entity: Entity, tools: UpdateTools) => Promise<Change<T>> | Change<T>,
): Promise<Updated<T>> {
  const nzbn = nzbnParam(nzbnGiven);
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
  setValidators(reply, { etag: viewEtag(updated.stored, true), lastModified: updated.stored.lastUpdated });
  return reply;
}
