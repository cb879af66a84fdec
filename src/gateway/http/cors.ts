import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  allowedOrigin,
  type CorsPolicy,
  type PreflightAllowance,
  type PreflightRequest,
  preflightAllowance,
} from '../domain/cors.ts';
import type { CorsPolicies } from './cors-policies.ts';

/**
 * CORS on a service's paths, from the path's product policy (CorsPolicies, fed by the products table).
 *
 * Preflights are answered by @fastify/cors, in a scope of their own outside the guarded one (a browser
 * sends no key on a preflight), its per-request options delegate handing it the policy's verdict. A thin
 * adapter stays around it, for what the plugin cannot say through a delegate:
 *
 * - whether a preflight is allowed at all. The plugin checks no requested method or header, and a
 *   delegate that refuses (`origin: false`) passes the request on to the plugin's route, which answers
 *   404; API Management answers a refused preflight with an empty success, so `preflightGate` answers it
 *   204 without allow headers (and a non-preflight OPTIONS with the API's 404) before the plugin runs;
 * - the headers of actual requests. With a delegate the plugin adds `Vary: Origin` to every answer, CORS
 *   on or off, and it would be one more hook on every guarded call (docs/decisions/0002); `applyActual`
 *   runs inside the guard's one hook instead, and costs a request without `Origin` to a product with
 *   CORS off a method compare and a map read.
 */

/** A CORS preflight: OPTIONS with `Origin` and `Access-Control-Request-Method`. */
export function isPreflight(request: FastifyRequest): boolean {
  return (
    request.method === 'OPTIONS' &&
    request.headers.origin !== undefined &&
    request.headers['access-control-request-method'] !== undefined
  );
}

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

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * Headers for an actual (non-preflight) request: `Vary: Origin` whenever the policy is on (the answer
 * depends on the origin), and the allow and expose headers when the request's origin is allowed. A
 * disallowed origin is served without them (the browser then hides the answer from the page), as API
 * Management does with `terminate-unmatched-request="false"`.
 */
export function applyActual(policy: CorsPolicy | undefined, request: FastifyRequest, reply: FastifyReply) {
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

const preflightOf = (request: FastifyRequest): PreflightRequest => ({
  origin: single(request.headers.origin) ?? '',
  method: single(request.headers['access-control-request-method']) ?? '',
  headers: single(request.headers['access-control-request-headers']) ?? '',
});

/** The plugin's options for an allowed preflight: the allow headers, no expose list (as before). */
function pluginOptions(allowance: PreflightAllowance): FastifyCorsOptions {
  return {
    origin: allowance.origin,
    methods: allowance.methods,
    // Left out, the plugin repeats the request's own list, which then names none that need allowing.
    ...(allowance.headers === undefined ? {} : { allowedHeaders: allowance.headers }),
    maxAge: allowance.maxAgeSeconds,
    credentials: allowance.credentials,
    // The gate has judged the preflight: the plugin's own check would refuse an empty Origin with 400,
    // which a policy of `*` allows.
    strictPreflight: false,
  };
}

/**
 * Answers the preflights of one service in one environment: `OPTIONS <prefix>` and `OPTIONS
 * <prefix>/…`, whatever the path (its product is the path's: one per service and environment).
 * `notFound` answers an OPTIONS that is no preflight (API Management's 404, as any unknown operation).
 */
export async function preflightRoutes(
  scope: FastifyInstance,
  policies: CorsPolicies,
  key: string,
  notFound: (request: FastifyRequest, reply: FastifyReply) => unknown,
): Promise<void> {
  // The gate's verdict on a preflight it lets through, for the plugin's delegate (the next hook).
  const allowed = new WeakMap<FastifyRequest, PreflightAllowance>();
  const preflightGate = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    if (!isPreflight(request)) {
      notFound(request, reply);
      return;
    }
    // The answer depends on all three, allowed or not.
    vary(reply, 'Origin');
    vary(reply, 'Access-Control-Request-Method');
    vary(reply, 'Access-Control-Request-Headers');
    const allowance = preflightAllowance(policies.get(key), preflightOf(request));
    if (!allowance) {
      reply.code(204).send();
      return;
    }
    allowed.set(request, allowance);
    done();
  };
  const delegator = (
    request: FastifyRequest,
    callback: (error: Error | null, options: FastifyCorsOptions) => void,
  ) => {
    const allowance = allowed.get(request);
    callback(null, allowance ? pluginOptions(allowance) : { origin: false });
  };
  // Prefixed `/`, so the plugin's own route (`*`) is `<prefix>/*` and leaves `<prefix>xyz` to the root's
  // 404; the route `''` is `<prefix>/` and, the router ignoring trailing slashes, `<prefix>` too.
  await scope.register(
    async (preflights) => {
      preflights.addHook('onRequest', preflightGate);
      preflights.options('', { schema: { hide: true } }, notFound);
      await preflights.register(fastifyCors, { delegator, hideOptionsRoute: true });
    },
    { prefix: '/' },
  );
}
