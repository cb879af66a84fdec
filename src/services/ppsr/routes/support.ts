/**
 * What the register's routes share: the media type they produce and the statement PIN a change request
 * carries. (What the operations share is `operations/support.ts`; paging is the platform's `parsePage`,
 * conditions its operation kit's `conditionalRead` and `preconditionsOf`.)
 */
import type { FastifyRequest } from 'fastify';
import { HEADERS } from '../schemas.ts';

/**
 * Ours: the financing statement PIN lets another organisation change a statement (as on the website).
 * Declared by the changes' schemas (`transactionHeaders`, 8 digits); read lower-cased, as Node.js gives it.
 */
export const PIN_HEADER = HEADERS.pin.toLowerCase();

/** Published: the register answers JSON only; any other `Accept` is 406. */
export const JSON_ONLY = ['application/json'] as const;

/** The type of every JSON answer. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** The statement's PIN the request sends, if any. */
export function pinOf(request: FastifyRequest): string | undefined {
  const pin = request.headers[PIN_HEADER];
  return typeof pin === 'string' ? pin : undefined;
}
