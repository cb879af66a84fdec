import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import { lingerAfterTooLarge } from './body-limit.ts';
import { keepRequestShapes } from './kept-shapes.ts';

/** The response header that names every answer's request (reference/gateway.md). */
export const REQUEST_ID_HEADER = 'api-business-govt-nz-request-id';

/**
 * What every answer carries beyond its own headers: the request id, and, once the gateway is shutting
 * down, `Connection: close`, so the client opens its next connection elsewhere (docs/operations.md).
 *
 * Where it is set: a guarded service route does it in the guard's `onRequest` hook (`mark`), which it
 * runs anyway, so its hot path runs no `onSend` hook phase (each costs every call a turn of Fastify's
 * hook runner: docs/decisions/0002-gateway-per-request-costs.md); every other route through the `onSend` hook of its scope
 * (`onSend`), and the router's own refusals in `frameworkErrors` (app.ts).
 *
 * A shutdown that begins while answers are in flight: `close()` gives every connection's answer whose
 * head is not yet written `Connection: close` itself (Node keeps a connection's current answer on its
 * socket), so an answer that started before the shutdown still closes its connection after it and the
 * server can finish closing.
 */
export class AnswerMarks {
  private closingNow = false;
  private readonly sockets = new Set<Socket>();

  /** Follows the server's connections (one listener a connection, not a request). */
  constructor(server: Server) {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  get closing(): boolean {
    return this.closingNow;
  }

  /** Before the answer is sent: names it, and asks for the connection to close while shutting down. */
  mark(request: FastifyRequest, reply: FastifyReply): void {
    reply.header(REQUEST_ID_HEADER, request.id);
    if (this.closingNow) reply.header('connection', 'close');
  }

  /**
   * The hook form of `mark`, for the routes that run no `onRequest` hook of their own. It also keeps the
   * latest request and reply answered without a body alive (kept-shapes.ts), and has a 413 sent by a
   * route's own error handler read the rest of the body away (body-limit.ts; `sendError` does it for
   * the rest) unless shutting down.
   */
  readonly onSend: onSendHookHandler = (request, reply, payload, done) => {
    this.markAnswer(request, reply);
    if (!this.closingNow && reply.statusCode === 413) lingerAfterTooLarge(request, reply);
    done(null, payload);
  };

  /** `mark`, with the request and reply kept alive when the request had no body (kept-shapes.ts). */
  markAnswer(request: FastifyRequest, reply: FastifyReply): void {
    if (request.body === undefined) keepRequestShapes(request, reply);
    this.mark(request, reply);
  }

  /** The shutdown begins: answers from now on close their connection, and so do those in flight. */
  close(): void {
    this.closingNow = true;
    for (const socket of this.sockets) {
      const answer = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
      if (answer && !answer.headersSent) answer.setHeader('connection', 'close');
    }
  }
}
