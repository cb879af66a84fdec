import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Environment, ServiceId } from '../../services/contract.ts';
import type { CapturedCall, PendingCall } from '../domain/inspector.ts';
import type { Inspector } from '../jobs/inspector.ts';

/**
 * One call as the hook keeps it: references only. Its answer's headers, its request's headers and body
 * are read when the inspector writes (`captured`), off the request's path: `reply.getHeaders()` copies
 * every header into a new object, which on every call cost about as much as the rest of the inspector
 * (bench:gateway). A reply keeps its headers after it is sent. At most 500 per subscription wait
 * (jobs/inspector.ts), so what this holds is bounded.
 */
class ReplyCall implements PendingCall {
  readonly subscriptionId: string;

  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    private readonly payload: unknown,
    private readonly sentAt: number,
    private readonly durationMs: number,
    private readonly environment: Environment,
    private readonly service: ServiceId,
    private readonly bodies: boolean,
  ) {
    this.subscriptionId = request.caller!.subscriptionId;
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
      requestBody: this.bodies ? request.body : undefined,
      // The answer of a 4xx is read for its reason even when bodies are not kept (it is not stored).
      responseBody: this.bodies || (status >= 400 && status < 500) ? this.payload : undefined,
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
    if (request.caller) {
      inspector.capture(
        new ReplyCall(request, reply, payload, Date.now(), reply.elapsedTime, environment, service, bodies),
      );
    }
    done(null, payload);
  });
}
