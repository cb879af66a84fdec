import type { FastifyReply, FastifyRequest } from 'fastify';

/** The body limit of every route that sets none (1 MiB); over it is 413 naming `body` and the limit. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** How long the rest of a body is read (and dropped) after an answer, before the connection is closed. */
export const LINGER_MS = 10_000;

/** How much of the rest of a body is read (and dropped) after an answer, before the connection is closed. */
export const LINGER_BYTES = 4 * 1024 * 1024;

/**
 * A body over its route's limit is refused as soon as the limit is passed (at once when Content-Length
 * declares it), and no byte past the limit is kept. Fastify then asks for the connection to close, which
 * Node does as soon as the 413 is out: a client still sending would meet a reset before it read the 413.
 * So the 413 keeps the connection, and the server's body watch (body-deadline.ts) reads the rest away
 * and drops it, as nginx's lingering close does, for at most `LINGER_MS` and `LINGER_BYTES`, then
 * destroys the socket: a body far over the limit is never read whole. Called by `sendError`
 * (errors.ts) for every 413 it sends, and by the onSend hook of the routes that have one
 * (answer-marks.ts) for a 413 sent otherwise.
 */
export function lingerAfterTooLarge(request: FastifyRequest, reply: FastifyReply): void {
  if (reply.statusCode !== 413 || request.raw.complete) return;
  reply.removeHeader('connection');
}
