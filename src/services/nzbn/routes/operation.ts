/**
 * The business number register's operations on the operation kit (platform/http/operation.ts): every
 * operation produces JSON and is declared through `nzbnOperation`, which keeps the register's
 * negotiation as it has always been: JSON whatever `Accept` says (RFC 9110 §12.5.1 lets a server
 * disregard it; the published definition lists no 406 for any operation of the register).
 */
import type { FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import {
  conditionalRead,
  declareOperation,
  type OperationDeclaration,
  type ResourceValidators,
} from '../../../platform/http/operation.ts';

export const PRODUCES = ['application/json'] as const;

/** `declareOperation` with `produces: application/json` and the register's lenient negotiation. */
export function nzbnOperation<Options extends RouteShorthandOptions>(
  options: Options,
  conditional?: OperationDeclaration['conditional'],
): Options {
  return declareOperation(options, {
    produces: PRODUCES,
    unacceptable: 'first',
    ...(conditional === undefined ? {} : { conditional }),
  });
}

/**
 * A read's answer: 304 with an empty body when the request's conditions say the client has it (412 when
 * they fail), otherwise the JSON as the operation made it, with its validators.
 */
export function sendRead(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: { validators: ResourceValidators; body: string | Buffer },
): FastifyReply {
  if (conditionalRead(request, reply, answer.validators)) return reply;
  return reply.type('application/json; charset=utf-8').send(answer.body);
}
