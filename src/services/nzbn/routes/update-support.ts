/**
 * What the answers of the Primary Business Data updates share: the errors they publish and the new
 * version's validators (operations/entity-updates.ts) on the answer.
 */
import type { FastifyReply } from 'fastify';
import { setValidators } from '../../../platform/http/conditional.ts';
import type { EntityUpdate } from '../operations/entity-updates.ts';

export const UPDATE_ERRORS = [400, 401, 403, 404, 412];

/** The new version's ETag (the authorised view: the caller acts for the entity) and Last-Modified. */
export function withValidators<T>(reply: FastifyReply, updated: EntityUpdate<T>): FastifyReply {
  setValidators(reply, updated.validators);
  return reply;
}
