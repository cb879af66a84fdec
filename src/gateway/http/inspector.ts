import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import { wantStreamedBodyStart } from '../../platform/http/streamed-body.ts';
import type { Environment, ServiceId } from '../../services/contract.ts';
import { BODY_READ_LIMIT, type CapturedCall, PARSED_BODY_LIMIT, STREAMED_BODY } from '../domain/inspector.ts';
import type { Inspector, InspectorCounts } from '../jobs/inspector.ts';

/** A string's first `length` characters as a string of their own (a slice would keep the whole alive). */
const copied = (text: string, length: number) => Buffer.from(text.slice(0, length), 'utf8').toString('utf8');

/**
 * What a waiting call holds of a body: small ones by reference; of a large text or bytes their first
 * `BODY_READ_LIMIT` copied (the rest is let go with the request); a large parsed body as the start of
 * its text, or, past `PARSED_BODY_LIMIT`, a note. So 500 calls of a subscription never hold 500 large
 * bodies. Only large bodies pay here.
 */
function heldBody(body: unknown, declaredLength: string | undefined): unknown {
  if (typeof body === 'string') return body.length > BODY_READ_LIMIT ? copied(body, BODY_READ_LIMIT) : body;
  if (Buffer.isBuffer(body)) {
    return body.byteLength > BODY_READ_LIMIT ? Buffer.from(body.subarray(0, BODY_READ_LIMIT)) : body;
  }
  if (body === null || typeof body !== 'object' || declaredLength === undefined) return body;
  const length = Number(declaredLength);
  if (!(length > BODY_READ_LIMIT)) return body;
  if (length > PARSED_BODY_LIMIT || typeof (body as { pipe?: unknown }).pipe === 'function') {
    return `[a body of ${length} bytes: larger than the inspector reads]`;
  }
  try {
    return copied(JSON.stringify(body), BODY_READ_LIMIT);
  } catch {
    return undefined;
  }
}

/**
 * The answer's body from what its `end` was given: Fastify ends a whole answer with its text or bytes
 * (and a `Content-Length`); an answer ended without them and without a `Content-Length`, though its
 * status has a body, was streamed (piped, or written by a hijacked reply) and is not read.
 */
function sentBody(chunk: unknown, status: number, headers: Record<string, unknown>, method: string): unknown {
  if (typeof chunk === 'string' || chunk instanceof Uint8Array) return heldBody(chunk, undefined);
  const bodiless = status < 200 || status === 204 || status === 304 || method === 'HEAD';
  return bodiless || headers['content-length'] !== undefined ? undefined : STREAMED_BODY;
}

type End = ServerResponse['end'];

/**
 * The request inspector on a service's guarded routes, as the guard's `identified` step (guard.ts): a
 * call the guard tied to a subscription asks the inspector whether that subscription has room (a map
 * read; past its 500 calls waiting for the next write, nothing more happens), and only then is its
 * answer watched: its `end` is wrapped for this answer alone, and when the answer is sent the call is
 * taken as the inspector keeps it (`CapturedCall`): the method, the URL, the status, the time taken,
 * references to the request's headers and body and to the answer as sent, and a copy of the answer's
 * headers. The request and reply themselves are let go with the answer. Nothing else runs on the
 * request's path: no hook phase for every call (each costs every call a turn of Fastify's hook runner:
 * docs/decisions/0002-gateway-per-request-costs.md), no redaction, no I/O (those happen in the
 * inspector's batch, jobs/inspector.ts). A call the guard could not tie to a subscription (no key, an
 * unknown one) is not recorded: it belongs to nobody's inspector. `bodies` false keeps metadata only
 * (production, unless an operator turned bodies on); a 4xx answer is still kept for its reason (never
 * stored). An answer never ended (the connection dropped) is not recorded.
 */
export function inspectCalls(
  inspector: Inspector,
  environment: Environment,
  service: ServiceId,
  bodies: boolean,
): (request: FastifyRequest, reply: FastifyReply) => void {
  /** The call as kept once its answer is sent; any fault here only loses the call, never the answer. */
  const sent = (request: FastifyRequest, reply: FastifyReply, chunk: unknown): void => {
    try {
      const status = reply.raw.statusCode;
      const responseHeaders = reply.getHeaders();
      const refusal = status >= 400 && status < 500;
      const call: CapturedCall = {
        // The clock Fastify times the call with (`elapsedTime`), so its start is exact.
        sentAt: performance.timeOrigin + performance.now(),
        environment,
        service,
        subscriptionId: request.caller!.subscriptionId,
        method: request.method,
        url: request.url,
        status,
        durationMs: reply.elapsedTime,
        requestHeaders: request.headers,
        responseHeaders,
        requestBody: bodies ? heldBody(request.body, request.headers['content-length']) : undefined,
        // The answer of a 4xx is read for its reason even when bodies are not kept (it is not stored).
        responseBody:
          bodies || refusal ? sentBody(chunk, status, responseHeaders, request.method) : undefined,
        bodies,
      };
      inspector.capture(call);
    } catch {
      // The inspector is a debugging aid: a call it cannot read is not kept.
    }
  };
  return (request, reply) => {
    if (!request.caller || !inspector.admits(request.caller.subscriptionId)) return;
    // A route that streams its body (a SOAP envelope) copies its start for `heldBody` only when asked.
    if (bodies) wantStreamedBodyStart(request, BODY_READ_LIMIT);
    const raw = reply.raw;
    const end = raw.end as (this: ServerResponse, ...args: unknown[]) => ServerResponse;
    let watching = true;
    raw.end = function endInspected(
      this: ServerResponse,
      chunk?: unknown,
      encoding?: unknown,
      callback?: unknown,
    ) {
      if (watching) {
        watching = false;
        sent(request, reply, chunk);
      }
      return end.call(this, chunk, encoding, callback);
    } as End;
  };
}

/**
 * `rsg_inspector_calls_dropped_total{reason}`: the calls the request inspector could not keep — `full`
 * (2,000 calls already waited for the next write) or `unwritten` (their batch could not be written: the
 * database away) — read from the inspector when /metrics is read. Calls past a subscription's 500 between
 * two writes are not counted: that is the inspector's bound, not a loss.
 */
export function reportInspectorDrops(registry: Registry, stats: () => InspectorCounts): void {
  new Counter({
    name: 'rsg_inspector_calls_dropped_total',
    help: 'Calls the request inspector could not keep: full (too many waiting) or unwritten (database away)',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      const { full, unwritten } = stats();
      this.reset();
      this.inc({ reason: 'full' }, full);
      this.inc({ reason: 'unwritten' }, unwritten);
    },
  });
}
