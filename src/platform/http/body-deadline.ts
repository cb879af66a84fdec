import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  preParsingHookHandler,
} from 'fastify';
import { LINGER_BYTES, LINGER_MS } from './body-limit.ts';
import { PLATFORM_ERRORS } from './error-codes.ts';
import { HttpError } from './errors.ts';

/**
 * Request bodies arrive within a bound. Node times out a request's headers (60 s) but, as Fastify sets
 * it up (`requestTimeout: 0`), never its body: one byte every few seconds would keep a request, and its
 * connection, open for ever. Every request that announces a body gets a deadline the moment its headers
 * are read (a listener on the server, before any hook: a request refused in the guard is bounded too):
 *
 * - `baseMs` for every body (`RSG_BODY_TIMEOUT_MS`, 30 s);
 * - on a route marked `LARGE_UPLOAD` in its config (the uploads whose limit is many megabytes), longer
 *   while the body keeps coming at `uploadRate` bytes a second on average (`RSG_UPLOAD_MIN_RATE`): the
 *   deadline is `baseMs` plus the time the bytes received so far would take at that rate.
 *
 * Past it, a request whose route is reading the body is answered **408** through the route's own error
 * handling (so in the addressed API's dialect: the business number register's body, problem+json, a SOAP
 * fault, OAuth's error, the portal's page) with `Connection: close`; once the answer is out the socket
 * is closed, and the request's stream fails with the same error so whatever reads it (a stream parser,
 * the SOAP reader staging an attachment) stops and cleans up. A request already answered (a refusal
 * sent before its body was read, a 413) whose body is still coming is not read for long either: the
 * rest is read and dropped for at most `LINGER_MS` and `LINGER_BYTES` (so that a client still sending
 * can read the answer rather than meet a reset), then the socket is destroyed. Unknown paths and the
 * refusals of onRequest hooks have no route reading the body: past the deadline their socket is closed.
 */
export interface BodyTimeouts {
  /** How long any request body may take to arrive, in ms. */
  baseMs: number;
  /** A large upload may take longer while it keeps this average rate, bytes per second (0: no longer). */
  uploadRate: number;
}

/** Route config of an upload route: its body may take longer, at the configured minimum rate. */
export const LARGE_UPLOAD = { largeUpload: true } as const;

/** The 408 of a body that did not arrive in time; `ms` is the bound it missed. */
export const bodyTimedOut = (ms: number): HttpError => {
  const rule = `did not arrive within ${ms} ms`;
  return new HttpError(PLATFORM_ERRORS.bodyTimeout, `body: ${rule}`, [{ field: 'body', message: rule }]);
};

/** The watch of one request's body, from its headers to its end (or its connection's). */
class BodyWatch {
  private readonly started = performance.now();
  private readonly startBytes: number;
  private timer: NodeJS.Timeout;
  /** Bytes a second the body may fall back to once past the base bound (0: the base bound only). */
  rate = 0;
  /** Answers the 408 through the route (set once the route starts to read the body); false if it cannot. */
  answer: ((error: HttpError) => boolean) | undefined;
  private lingered = 0;
  private timedOut: HttpError | undefined;

  /**
   * The connection, held from the start: `req.socket` is null once Node has let go of it (after an
   * answer, in some paths), and a timer firing then must not throw — it would end the process.
   */
  private readonly socket: Socket;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly limits: BodyTimeouts,
    socket: Socket,
  ) {
    this.socket = socket;
    this.startBytes = socket.bytesRead;
    this.timer = setTimeout(this.check, limits.baseMs);
    this.timer.unref();
    req.once('end', this.stop);
    socket.once('close', this.closed);
    res.once('finish', this.answered);
  }

  private readonly stop = (): void => {
    clearTimeout(this.timer);
    watches.delete(this.req);
    this.req.removeListener('end', this.stop);
    this.req.removeListener('data', this.count);
    this.socket.removeListener('close', this.closed);
    this.res.removeListener('finish', this.answered);
  };

  private readonly closed = (): void => {
    this.stop();
    // Whatever still reads the body (a parser, the SOAP reader) fails and cleans up; `destroy` emits the
    // error only if something listens for it.
    if (this.timedOut && !this.req.complete) this.req.destroy(this.timedOut);
  };

  /** Answered with the body unfinished: the rest is read and dropped, within bounds, then the socket closed. */
  private readonly answered = (): void => {
    if (this.req.complete) return void this.stop();
    // The 408 itself: sent with `Connection: close`, so Node closes the socket once it is out.
    if (this.timedOut) return;
    const elapsed = performance.now() - this.started;
    const remaining = Math.min(LINGER_MS, this.allowedMs() - elapsed);
    clearTimeout(this.timer);
    this.timer = setTimeout(this.expire, Math.max(0, remaining));
    this.timer.unref();
    this.req.on('data', this.count);
    this.req.resume();
  };

  private readonly count = (chunk: Buffer): void => {
    this.lingered += chunk.length;
    if (this.lingered > LINGER_BYTES) this.expire();
  };

  private allowedMs(): number {
    const received = this.socket.bytesRead - this.startBytes;
    return this.limits.baseMs + (this.rate > 0 ? (received / this.rate) * 1000 : 0);
  }

  private readonly check = (): void => {
    if (this.req.complete) return void this.stop();
    const left = this.allowedMs() - (performance.now() - this.started);
    if (left > 1) {
      this.timer = setTimeout(this.check, left);
      this.timer.unref();
      return;
    }
    this.expire();
  };

  private readonly expire = (): void => {
    clearTimeout(this.timer);
    if (this.res.headersSent || !this.answer) {
      this.stop();
      this.socket.destroy();
      return;
    }
    this.timedOut = bodyTimedOut(Math.round(this.allowedMs()));
    if (this.answer(this.timedOut)) return;
    this.stop();
    this.socket.destroy();
  };
}

const watches = new WeakMap<IncomingMessage, BodyWatch>();

/**
 * The logger of a request answered 408 by its deadline. The route's body parser still reads the body and
 * fails a moment later (its stream ends with the same error, so it can clean up); Fastify then tries to
 * answer that failure too and warns "Reply was already sent", with a stack, for a request that was
 * answered as it should be. That one warning is dropped; everything else is logged as before.
 */
function quietOnLateParser(log: FastifyBaseLogger): FastifyBaseLogger {
  const warn = log.warn.bind(log);
  return Object.assign(Object.create(log) as FastifyBaseLogger, {
    warn: (first: unknown, ...rest: unknown[]) => {
      if ((first as { err?: { code?: unknown } } | undefined)?.err?.code === 'FST_ERR_REP_ALREADY_SENT')
        return;
      (warn as (...args: unknown[]) => void)(first, ...rest);
    },
  });
}

/** Whether the request announces a body: a length other than 0, or a transfer coding. */
const announcesBody = (req: IncomingMessage): boolean => {
  const length = req.headers['content-length'];
  return length !== undefined ? length !== '0' : req.headers['transfer-encoding'] !== undefined;
};

/**
 * Watches every request body the server receives and, through an `onRoute` hook, lets each route that
 * takes a body answer its timeout (a `preParsing` hook on those routes only: a GET runs none).
 */
export function installBodyDeadlines(app: FastifyInstance, server: Server, limits: BodyTimeouts): void {
  // Before Fastify's own listener: a route without an async onRequest hook reaches preParsing inside it.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket as Socket | null;
    if (socket && !req.complete && announcesBody(req))
      watches.set(req, new BodyWatch(req, res, limits, socket));
  });
  const route = (rate: number): preParsingHookHandler =>
    function bodyDeadline(request: FastifyRequest, reply: FastifyReply, payload, done) {
      const watch = watches.get(request.raw);
      if (watch) {
        watch.rate = rate;
        // A reply handed over to the route's own writer (hijacked) cannot answer: the socket is closed.
        watch.answer = (error) => {
          if (reply.sent) return false;
          reply.header('connection', 'close');
          reply.send(error);
          reply.log = quietOnLateParser(reply.log);
          return true;
        };
      }
      done(null, payload);
    };
  const ordinary = route(0);
  const upload = route(limits.uploadRate);
  app.addHook('onRoute', (options) => {
    const methods = [options.method].flat();
    if (methods.every((method) => method === 'GET' || method === 'HEAD')) return;
    const large = (options.config as { largeUpload?: boolean } | undefined)?.largeUpload === true;
    const own = options.preParsing === undefined ? [] : [options.preParsing].flat();
    options.preParsing = [large ? upload : ordinary, ...own];
  });
}
