import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { REQUEST_ID_HEADER } from './answer-marks.ts';

/** What a caller may send as a request id; anything else is ignored and a fresh id is made. */
export const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The id of a request that brings none: a version-4 UUID (RFC 9562) of its own, 122 random bits from
 * the operating system's generator, so no id tells anything about the next one. (Ids once shared a
 * random stem and counted in their last two hex digits: cheaper, but the next id was known, and a
 * caller who sent it made another request's id its own.)
 */
export const newRequestId = (): string => randomUUID();

/** Fastify's `genReqId`: the caller's id when it is safe to echo and log, else a fresh one. */
export function requestIdOf(raw: { headers: Record<string, string | string[] | undefined> }): string {
  const supplied = raw.headers[REQUEST_ID_HEADER];
  return typeof supplied === 'string' && SAFE_REQUEST_ID.test(supplied) ? supplied : newRequestId();
}

/**
 * The request id the caller sent, or undefined when the gateway made one. Only an id the caller chose
 * may be an idempotency key (a repeat with it answers the first outcome): an id the gateway made names
 * the request in logs and answers, nothing more.
 */
export function callerRequestId(request: Pick<FastifyRequest, 'id' | 'headers'>): string | undefined {
  return request.headers[REQUEST_ID_HEADER] === request.id ? request.id : undefined;
}
