import type { FastifyReply, FastifyRequest } from 'fastify';

/** The body limit of every route that sets none (1 MiB); over it is 413 naming `body` and the limit. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** How long the rest of a refused body is read (and dropped) before the connection is closed. */
export const LINGER_MS = 10_000;

/** The requests already lingering (a 413 can pass both callers). */
const lingering = new WeakSet<object>();

/**
 * A body over its route's limit is refused as soon as the limit is passed (at once when Content-Length
 * declares it), and no byte past the limit is kept. Fastify then closes the connection at once; a client
 * still sending would meet a reset before it read the 413. Instead the connection is kept and the rest
 * of the body read and dropped, as nginx's lingering close does, for at most `LINGER_MS`, after which
 * the socket is destroyed. Called by `sendError` (errors.ts) for every 413 it sends, and by the onSend
 * hook of the routes that have one (answer-marks.ts) for a 413 sent otherwise; once a request.
 */
export function lingerAfterTooLarge(request: FastifyRequest, reply: FastifyReply): void {
  const raw = request.raw;
  if (reply.statusCode !== 413 || raw.complete || lingering.has(raw)) return;
  lingering.add(raw);
  reply.removeHeader('connection');
  const socket = raw.socket;
  // An injected request (tests, the portal's in-process calls) has a stand-in socket without destroy().
  const timer = setTimeout(() => socket.destroy?.(), LINGER_MS);
  timer.unref();
  const stop = () => {
    clearTimeout(timer);
    raw.removeListener('end', stop);
    socket.removeListener('close', stop);
  };
  raw.once('end', stop);
  socket.once('close', stop);
}
