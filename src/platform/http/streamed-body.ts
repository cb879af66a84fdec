import type { FastifyRequest } from 'fastify';

/**
 * A body a route reads as a stream (a SOAP envelope) never reaches `request.body`: Fastify does not
 * parse it. What runs before the route and wants the body's start afterwards (the request inspector,
 * when it keeps bodies) asks for it here, and the route copies that many bytes as they pass. A request
 * nobody asked about costs the route nothing.
 */
const WANTED = Symbol('streamed body start wanted');

type Marked = FastifyRequest & { [WANTED]?: number };

/** Asks the route to copy the first `bytes` of a streamed body to `request.body`. */
export function wantStreamedBodyStart(request: FastifyRequest, bytes: number): void {
  (request as Marked)[WANTED] = bytes;
}

/** How many bytes of a streamed body to copy to `request.body` (0: nobody asked). */
export function wantedStreamedBodyStart(request: FastifyRequest): number {
  return (request as Marked)[WANTED] ?? 0;
}

/**
 * Passes `source` through, copying its first `bytes` into `request.body` (a Buffer) by the time the
 * returned iterator ends or is left.
 */
export async function* copyingStart(
  source: AsyncIterable<Buffer | string>,
  request: FastifyRequest,
  bytes: number,
): AsyncGenerator<Buffer | string> {
  const start: Buffer[] = [];
  let copied = 0;
  try {
    for await (const chunk of source) {
      if (copied < bytes) {
        const whole = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        const piece = Buffer.from(whole.subarray(0, bytes - copied));
        start.push(piece);
        copied += piece.byteLength;
      }
      yield chunk;
    }
  } finally {
    request.body = Buffer.concat(start);
  }
}
