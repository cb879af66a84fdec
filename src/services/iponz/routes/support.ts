/**
 * What the IP office's routes share: the not-found error, paging (the platform's, under the register's
 * names), and operations that answer their default media type whatever the `Accept`.
 */
import type { RouteShorthandOptions } from 'fastify';
import { declareOperation, type OperationDeclaration } from '../../../platform/http/operation.ts';

export { notFound, pagedAnswer } from '../operations/support.ts';

/** The JSON operations: any other `Accept` is 406. */
export const JSON_ONLY = ['application/json'] as const;

/**
 * A declared operation that answers its first media type to an `Accept` none of `produces` fits, as these
 * operations always have (the XSDs, the WSDLs, the SOAP endpoints: their clients send what their tools
 * send), rather than 406 — RFC 9110 §12.5.1 lets a server disregard `Accept`.
 */
export const declareAnyAccept = <Options extends RouteShorthandOptions>(
  options: Options,
  declaration: OperationDeclaration,
): Options => declareOperation(options, { unacceptable: 'first', ...declaration });
