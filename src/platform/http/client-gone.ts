import type { FastifyRequest } from 'fastify';

/**
 * A client that closes its connection before its request is read or its answer written is not a
 * server fault: Node fails the body's stream with ECONNRESET "aborted" (the same code a database
 * connection reset has, so without this check the request was taken for a database outage, answered
 * 503 and logged as an error with a stack), and a write to the closed socket fails. Such requests are
 * logged once at info, without a stack, and answered as a bad request that nobody reads.
 */
const ABORT_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_STREAM_DESTROYED',
]);

/** The request's connection is closed and `error` is what that closing caused (or nothing in particular). */
export function clientWentAway(request: FastifyRequest, error?: unknown): boolean {
  const raw = request.raw;
  // The socket closed, or the body was cut before its end (a body read to its end may be destroyed
  // too, and a database fault after it is not the client's).
  const closed = raw.socket?.destroyed === true || (raw.destroyed && !raw.complete);
  if (!closed) return false;
  if (error === undefined) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && ABORT_CODES.has(code);
}

/** The one line a client going away gets: info level, the reason, no stack. */
export function logClientWentAway(request: FastifyRequest, error?: unknown): void {
  const reason = error instanceof Error ? error.message : undefined;
  request.log.info({ reason }, 'client went away before the answer was complete');
}
