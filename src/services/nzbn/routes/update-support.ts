/**
 * What the routes of the Primary Business Data updates share: the write a request makes, the errors they
 * publish and the new version's validators (operations/entity-updates.ts) on the answer.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { setValidators } from '../../../platform/http/conditional.ts';
import { preconditionsOf } from '../../../platform/http/operation.ts';
import type { EntityUpdate, EntityWrite } from '../operations/entity-updates.ts';

export const UPDATE_ERRORS = [400, 401, 403, 404, 412];

/** The write a request makes: its caller, the entity of its path and its preconditions. */
export const writeOf = (request: FastifyRequest, nzbn: string): EntityWrite => ({
  caller: request.caller,
  nzbn,
  preconditions: preconditionsOf(request),
});

/** The new version's ETag (the authorised view: the caller acts for the entity) and Last-Modified. */
export function withValidators<T>(reply: FastifyReply, updated: EntityUpdate<T>): FastifyReply {
  setValidators(reply, updated.validators);
  return reply;
}
