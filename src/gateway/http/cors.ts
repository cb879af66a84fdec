import type { FastifyReply, FastifyRequest } from 'fastify';
import { type CompiledCors, list } from '../domain/cors.ts';

/** Adds `value` to the response's Vary header once. */
export function vary(reply: FastifyReply, value: string): void {
  const current = reply.getHeader('vary');
  if (current === undefined || current === '') {
    reply.header('vary', value);
    return;
  }
  const text = String(current);
  if (text === '*' || text.split(',').some((part) => part.trim().toLowerCase() === value.toLowerCase()))
    return;
  reply.header('vary', `${text}, ${value}`);
}

function allowedOrigin(policy: CompiledCors, origin: string): string | undefined {
  if (policy.anyOrigin) return '*';
  const normal = origin.toLowerCase();
  return policy.origins.has(normal) ? normal : undefined;
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** A CORS preflight: OPTIONS with `Origin` and `Access-Control-Request-Method`. */
export function isPreflight(request: FastifyRequest): boolean {
  return (
    request.method === 'OPTIONS' &&
    request.headers.origin !== undefined &&
    request.headers['access-control-request-method'] !== undefined
  );
}

/**
 * Headers for an actual (non-preflight) request: `Vary: Origin` whenever the policy is on (the answer
 * depends on the origin), and the allow and expose headers when the request's origin is allowed. A
 * disallowed origin is served without them (the browser then hides the answer from the page), as API
 * Management does with `terminate-unmatched-request="false"`.
 */
export function applyActual(policy: CompiledCors | undefined, request: FastifyRequest, reply: FastifyReply) {
  if (!policy) return;
  if (!policy.anyOrigin) vary(reply, 'Origin');
  const origin = single(request.headers.origin);
  if (origin === undefined) return;
  const allowed = allowedOrigin(policy, origin);
  if (!allowed) return;
  reply.header('access-control-allow-origin', allowed);
  reply.header('access-control-expose-headers', policy.expose);
  if (policy.credentials) reply.header('access-control-allow-credentials', 'true');
}

/**
 * Answers a preflight: 204 with the allow headers when the origin, the method and every requested
 * header are allowed; otherwise (or with CORS off) 204 without them, which the browser reports as a CORS
 * failure (API Management's `terminate-unmatched-request` answers an empty 200 the same way).
 */
export function answerPreflight(
  policy: CompiledCors | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  vary(reply, 'Origin');
  vary(reply, 'Access-Control-Request-Method');
  vary(reply, 'Access-Control-Request-Headers');
  reply.code(204);
  if (!policy) return reply.send();
  const origin = allowedOrigin(policy, single(request.headers.origin) ?? '');
  const method = (single(request.headers['access-control-request-method']) ?? '').trim().toUpperCase();
  const requested = list(single(request.headers['access-control-request-headers']) ?? '').map((name) =>
    name.toLowerCase(),
  );
  const methodAllowed = policy.anyMethod || policy.methods.has(method);
  const headersAllowed = policy.anyHeader || requested.every((name) => policy.headers.has(name));
  if (!origin || !method || !methodAllowed || !headersAllowed) return reply.send();
  reply.header('access-control-allow-origin', origin);
  reply.header('access-control-allow-methods', policy.anyMethod ? method : policy.allowMethods);
  // A wildcard is answered with the names asked for: `*` would not cover Authorization.
  const allowHeaders = policy.anyHeader ? requested.join(', ') : policy.allowHeaders;
  if (allowHeaders) reply.header('access-control-allow-headers', allowHeaders);
  reply.header('access-control-max-age', policy.maxAge);
  if (policy.credentials) reply.header('access-control-allow-credentials', 'true');
  return reply.send();
}
