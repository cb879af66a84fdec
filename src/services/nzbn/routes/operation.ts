/**
 * The business number register's operations on the operation kit (platform/http/operation.ts): every
 * operation produces JSON and is declared through `nzbnOperation`, which keeps the register's
 * negotiation as it has always been: JSON whatever `Accept` says (RFC 9110 §12.5.1 lets a server
 * disregard it; the published definition lists no 406 for any operation of the register).
 */
import type { FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { declareOperation, type OperationDeclaration } from '../../../platform/http/operation.ts';

export const PRODUCES = ['application/json'] as const;

type Hook = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

/**
 * `declareOperation` with `produces: application/json` and the register's lenient negotiation: the kit's
 * hook (the first of the route's `onRequest` hooks, and synchronous) sees no `Accept`, so it chooses
 * JSON instead of answering 406; the header is back before any other hook runs.
 */
export function nzbnOperation<Options extends RouteShorthandOptions>(
  options: Options,
  conditional?: OperationDeclaration['conditional'],
): Options {
  const declared = declareOperation(options, {
    produces: PRODUCES,
    ...(conditional === undefined ? {} : { conditional }),
  });
  const [kit, ...own] = declared.onRequest as Hook[];
  const lenient: Hook = (request, reply, done) => {
    const headers = request.headers;
    const accept = headers.accept;
    if (accept === undefined) return kit!(request, reply, done);
    headers.accept = '';
    kit!(request, reply, (error) => {
      headers.accept = accept;
      done(error);
    });
  };
  return { ...declared, onRequest: [lenient, ...own] } as Options;
}
