import type { FastifyInstance } from 'fastify';
import type { Environment, ServiceId } from '../../services/contract.ts';
import type { Inspector } from '../jobs/inspector.ts';

/**
 * The request inspector's hook on a service's guarded routes (`onSend`: the answer's status, headers and
 * body are final, and the guard has named the subscription). A call the guard could not tie to a
 * subscription (no key, an unknown one) is not recorded: it belongs to nobody's inspector. The hook only
 * keeps references and pushes them onto the inspector's bounded buffer; redaction and the database write
 * happen in the inspector's batch (jobs/inspector.ts), never on the request's path. `bodies` false keeps
 * metadata only (production, unless an operator turned bodies on); the answer of a 4xx is still read
 * for its reason, never stored.
 */
export function inspectCalls(
  guarded: FastifyInstance,
  inspector: Inspector,
  environment: Environment,
  service: ServiceId,
  bodies: boolean,
): void {
  guarded.addHook('onSend', (request, reply, payload, done) => {
    const caller = request.caller;
    if (caller) {
      const status = reply.statusCode;
      inspector.capture({
        sentAt: Date.now(),
        environment,
        service,
        subscriptionId: caller.subscriptionId,
        method: request.method,
        url: request.url,
        status,
        durationMs: reply.elapsedTime,
        requestHeaders: request.headers,
        responseHeaders: reply.getHeaders(),
        requestBody: bodies ? request.body : undefined,
        responseBody: bodies || (status >= 400 && status < 500) ? payload : undefined,
        bodies,
      });
    }
    done(null, payload);
  });
}
