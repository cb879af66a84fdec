/**
 * The business number register's operations on the operation kit (platform/http/operation.ts): every
 * operation produces JSON and is declared through `nzbnOperation`, which keeps the register's
 * negotiation as it has always been: JSON whatever `Accept` says (RFC 9110 §12.5.1 lets a server
 * disregard it; the published definition lists no 406 for any operation of the register).
 */
import type { FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { DeclaredParts } from '../../../platform/http/declared-validators.ts';
import {
  conditionalRead,
  declareOperation,
  type OperationDeclaration,
  type ResourceValidators,
} from '../../../platform/http/operation.ts';
import { ConditionalHeaders, RequestHeaders } from '../schemas/operations.ts';

export const PRODUCES = ['application/json'] as const;

/**
 * `declareOperation` with `produces: application/json` and the register's lenient negotiation. An
 * operation that declares no headers gets the ones the published definition gives every operation: the
 * request id, and If-None-Match (with the other conditions) on a read with validators. A write declares
 * If-Match itself where the definition names it (`WriteHeaders`); every write of an existing resource
 * honours it all the same. A body that is not JSON (the multipart uploads) declares its `validators`.
 */
export function nzbnOperation<Options extends RouteShorthandOptions>(
  options: Options,
  conditional?: OperationDeclaration['conditional'],
  validators?: DeclaredParts,
): Options {
  const schema = options.schema as { headers?: unknown } | undefined;
  if (schema && schema.headers === undefined) {
    schema.headers = conditional === 'read' ? ConditionalHeaders : RequestHeaders;
  }
  return declareOperation(options, {
    produces: PRODUCES,
    unacceptable: 'first',
    ...(conditional === undefined ? {} : { conditional }),
    ...(validators === undefined ? {} : { validators }),
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
