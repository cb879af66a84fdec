/**
 * What the register's routes share: the media type they produce and the statement PIN a change request
 * carries. (What the operations share is `operations/support.ts`; paging is the platform's `parsePage`,
 * conditions its operation kit's `conditionalRead` and `preconditionsOf`.)
 */
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HEADERS, RESPONSE_HEADERS, SERVICE_VERSION } from '../schemas.ts';

const correlationIds = new WeakMap<FastifyRequest, string>();

/** The correlation id made for the request (published, version 1): one per request, kept by its transaction. */
export function correlationIdOf(request: FastifyRequest): string {
  let id = correlationIds.get(request);
  if (!id) {
    id = randomUUID();
    correlationIds.set(request, id);
  }
  return id;
}

const REQUEST_ID = 'api-business-govt-nz-request-id';
const REQUEST_ID_ALIAS = HEADERS.requestIdAlias.toLowerCase();

/**
 * The version 1 headers on every answer of the register (published): `Service-Version`, the request's
 * `NZRIS-org-nz-Correlation-Id`, and `NZRIS-org-nz-Request-Id` echoed when sent, as the request id in
 * force (the gateway's header wins, as for a transaction, which sets it itself).
 */
export function answerHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header(RESPONSE_HEADERS.serviceVersion, SERVICE_VERSION);
  reply.header(RESPONSE_HEADERS.correlationId, correlationIdOf(request));
  const alias = request.headers[REQUEST_ID_ALIAS];
  if (typeof alias !== 'string' || alias === '' || reply.hasHeader(HEADERS.requestIdAlias)) return;
  const gateways = request.headers[REQUEST_ID];
  reply.header(HEADERS.requestIdAlias, typeof gateways === 'string' && gateways !== '' ? gateways : alias);
}

/**
 * Ours: the financing statement PIN lets another organisation change a statement (as on the website).
 * Declared by the changes' schemas (`transactionHeaders`, 8 digits); read lower-cased, as Node.js gives it.
 */
export const PIN_HEADER = HEADERS.pin.toLowerCase();

/** Ours: the debtor PIN opens a whole statement for reading. */
export const DEBTOR_PIN_HEADER = HEADERS.debtorPin.toLowerCase();

/** The debtor PIN the request sends, if any. */
export function debtorPinOf(request: FastifyRequest): string | undefined {
  const pin = request.headers[DEBTOR_PIN_HEADER];
  return typeof pin === 'string' ? pin : undefined;
}

/** Published: the register answers JSON only; any other `Accept` is 406. */
export const JSON_ONLY = ['application/json'] as const;

/** The type of every JSON answer. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** The statement's PIN the request sends, if any. */
export function pinOf(request: FastifyRequest): string | undefined {
  const pin = request.headers[PIN_HEADER];
  return typeof pin === 'string' ? pin : undefined;
}
