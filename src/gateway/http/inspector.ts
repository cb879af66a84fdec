import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Environment, ServiceId } from '../../services/contract.ts';
import {
  BODY_READ_LIMIT,
  type CapturedCall,
  PARSED_BODY_LIMIT,
  type PendingCall,
} from '../domain/inspector.ts';
import type { Inspector } from '../jobs/inspector.ts';

/**
 * One call as the hook keeps it: references only. Its answer's headers, its request's headers and body
 * are read when the inspector writes (`captured`), off the request's path: `reply.getHeaders()` copies
 * every header into a new object, which on every call cost about as much as the rest of the inspector
 * (bench:gateway). A reply keeps its headers after it is sent. At most 500 per subscription wait
 * (jobs/inspector.ts), so what this holds is bounded.
 */
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

class ReplyCall implements PendingCall {
  readonly subscriptionId: string;

  private readonly requestBody: unknown;
  private readonly payload: unknown;

  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    payload: unknown,
    private readonly sentAt: number,
    private readonly durationMs: number,
    private readonly environment: Environment,
    private readonly service: ServiceId,
    private readonly bodies: boolean,
  ) {
    this.subscriptionId = request.caller!.subscriptionId;
    const refusal = reply.statusCode >= 400 && reply.statusCode < 500;
    this.requestBody = bodies ? heldBody(request.body, request.headers['content-length']) : undefined;
    // The answer of a 4xx is read for its reason even when bodies are not kept (it is not stored).
    this.payload = bodies || refusal ? heldBody(payload, undefined) : undefined;
  }

  captured(): CapturedCall {
    const { request, reply } = this;
    const status = reply.statusCode;
    return {
      sentAt: this.sentAt,
      environment: this.environment,
      service: this.service,
      subscriptionId: this.subscriptionId,
      method: request.method,
      url: request.url,
      status,
      durationMs: this.durationMs,
      requestHeaders: request.headers,
      responseHeaders: reply.getHeaders(),
      requestBody: this.requestBody,
      responseBody: this.payload,
      bodies: this.bodies,
    };
  }
}

/**
 * The request inspector's hook on a service's guarded routes (`onSend`: the answer's status and body
 * are final, and the guard has named the subscription). A call the guard could not tie to a
 * subscription (no key, an unknown one) is not recorded: it belongs to nobody's inspector. The hook keeps
 * references in the inspector's bounded rings; reading, redaction and the database write happen in the
 * inspector's batch (jobs/inspector.ts), never on the request's path. `bodies` false keeps metadata only
 * (production, unless an operator turned bodies on).
 */
export function inspectCalls(
  guarded: FastifyInstance,
  inspector: Inspector,
  environment: Environment,
  service: ServiceId,
  bodies: boolean,
): void {
  guarded.addHook('onSend', (request, reply, payload, done) => {
    // A subscription with 500 calls waiting for the next write pays a map read, nothing more.
    if (request.caller && inspector.admits(request.caller.subscriptionId)) {
      inspector.keepCall(
        new ReplyCall(request, reply, payload, Date.now(), reply.elapsedTime, environment, service, bodies),
      );
    }
    done(null, payload);
  });
}
