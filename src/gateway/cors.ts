import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import type { ChangeFeed } from '../platform/db/notify.ts';
import { corsPolicyRows } from './store/cors-policies.ts';

/**
 * Cross-origin resource sharing per product, as API Management's `cors` policy: allowed origins,
 * methods and headers, exposed headers, a preflight max age and allow-credentials (false by default).
 * Off until an operator names origins (`rsg products set ID --cors-origins …`).
 *
 * A preflight carries no key, so its product is found from the path: each service has exactly one
 * product per environment (products are UNIQUE (environment, service)), so a path under a service's
 * address behind `/sandbox` is always that service's sandbox product. Policies are held in memory per product and reloaded when the change feed
 * announces a product change, so `rsg products set` applies at once in every process.
 */
export interface CorsSettings {
  /** null: CORS off. `['*']`: any origin. Otherwise normalised origins (`https://a.example:8443`). */
  origins: string[] | null;
  /** Upper case; `['*']` allows any. */
  methods: string[];
  /** Request headers a browser may send; `['*']` allows any. */
  headers: string[];
  /** Response headers a script may read, beyond those always exposed. */
  exposeHeaders: string[];
  maxAgeSeconds: number;
  allowCredentials: boolean;
}

/** Exposed on every allowed cross-origin answer: the request id, `Retry-After` (429, quota) and `ETag`. */
export const ALWAYS_EXPOSED = ['api-business-govt-nz-Request-Id', 'Retry-After', 'ETag'] as const;
export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const MAX_AGE_LIMIT = 86_400;

/** A setting that breaks a rule: `argument` names the command-line option (`--cors-origins`). */
export class CorsRuleError extends Error {
  constructor(
    readonly argument: string,
    readonly rule: string,
  ) {
    super(`${argument}: ${rule}`);
    this.name = 'CorsRuleError';
  }
}

const list = (raw: string) =>
  raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

const ORIGIN_SHAPE = /^(https?):\/\/([^/?#@\s\\]+)\/?$/i;

/** `none` (or `off`) turns CORS off: null. `*` alone allows any origin. */
export function parseOrigins(raw: string, argument = '--cors-origins'): string[] | null {
  const trimmed = raw.trim().toLowerCase();
  if (trimmed === 'none' || trimmed === 'off') return null;
  const items = list(raw);
  if (items.length === 0)
    throw new CorsRuleError(argument, 'names no origin; give origins, * or none (to turn CORS off)');
  if (items.includes('*')) {
    if (items.length > 1) throw new CorsRuleError(argument, '* allows every origin and must stand alone');
    return ['*'];
  }
  if (items.length > 100) throw new CorsRuleError(argument, 'at most 100 origins');
  const origins = items.map((item) => {
    const rule = `"${item}" is not an origin: write scheme://host[:port] (http or https, no path, query or user), * alone, or none`;
    if (!ORIGIN_SHAPE.test(item)) throw new CorsRuleError(argument, rule);
    try {
      // The browser's own serialisation: lower case, default port dropped, international names in punycode.
      return new URL(item).origin;
    } catch {
      throw new CorsRuleError(argument, rule);
    }
  });
  return [...new Set(origins)];
}

export function parseMethods(raw: string, argument = '--cors-methods'): string[] {
  const items = list(raw).map((item) => item.toUpperCase());
  const rule = `must be a comma-separated list of ${METHODS.join(', ')}, or * alone`;
  if (items.length === 0) throw new CorsRuleError(argument, rule);
  if (items.includes('*')) {
    if (items.length > 1) throw new CorsRuleError(argument, rule);
    return ['*'];
  }
  for (const item of items) {
    if (!(METHODS as readonly string[]).includes(item))
      throw new CorsRuleError(argument, `"${item}" is not allowed: ${rule}`);
  }
  return [...new Set(items)];
}

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;

/** Header names (RFC 9110 tokens); `none` is the empty list; `*` alone allows any (request headers only). */
export function parseHeaderNames(raw: string, argument: string, wildcard: boolean): string[] {
  if (raw.trim().toLowerCase() === 'none') return [];
  const items = list(raw);
  const rule = `must be a comma-separated list of header names${wildcard ? ', * alone' : ''} or none`;
  if (items.length === 0) throw new CorsRuleError(argument, rule);
  if (items.includes('*')) {
    if (!wildcard || items.length > 1) throw new CorsRuleError(argument, rule);
    return ['*'];
  }
  if (items.length > 50) throw new CorsRuleError(argument, 'at most 50 header names');
  for (const item of items) {
    if (!HEADER_NAME.test(item)) throw new CorsRuleError(argument, `"${item}" is not a header name: ${rule}`);
  }
  const seen = new Set<string>();
  return items.filter((item) => !seen.has(item.toLowerCase()) && seen.add(item.toLowerCase()));
}

export function parseMaxAge(raw: string, argument = '--cors-max-age'): number {
  if (!/^\d{1,6}$/.test(raw.trim()) || Number(raw) > MAX_AGE_LIMIT)
    throw new CorsRuleError(argument, `must be a whole number of seconds from 0 to ${MAX_AGE_LIMIT}`);
  return Number(raw);
}

export function parseCredentials(raw: string, argument = '--cors-credentials'): boolean {
  const value = raw.trim().toLowerCase();
  if (value !== 'true' && value !== 'false') throw new CorsRuleError(argument, 'must be true or false');
  return value === 'true';
}

/** The rule a stored policy must keep whatever was changed: no credentials with a wildcard origin. */
export const wildcardCredentials = () =>
  new CorsRuleError(
    '--cors-credentials',
    'cannot be true while --cors-origins is * (browsers refuse credentials with a wildcard origin); name the origins',
  );

/** A policy ready for the hot path: sets for matching, header values joined once. */
export interface CompiledCors {
  anyOrigin: boolean;
  origins: ReadonlySet<string>;
  anyMethod: boolean;
  methods: ReadonlySet<string>;
  allowMethods: string;
  anyHeader: boolean;
  headers: ReadonlySet<string>;
  allowHeaders: string;
  expose: string;
  maxAge: string;
  credentials: boolean;
}

export function compile(settings: CorsSettings): CompiledCors | undefined {
  if (!settings.origins || settings.origins.length === 0) return undefined;
  const exposed: string[] = [...ALWAYS_EXPOSED];
  for (const name of settings.exposeHeaders) {
    if (!exposed.some((known) => known.toLowerCase() === name.toLowerCase())) exposed.push(name);
  }
  return {
    anyOrigin: settings.origins.includes('*'),
    origins: new Set(settings.origins),
    anyMethod: settings.methods.includes('*'),
    methods: new Set(settings.methods),
    allowMethods: settings.methods.join(', '),
    anyHeader: settings.headers.includes('*'),
    headers: new Set(settings.headers.map((name) => name.toLowerCase())),
    allowHeaders: settings.headers.join(', '),
    expose: exposed.join(', '),
    maxAge: String(settings.maxAgeSeconds),
    credentials: settings.allowCredentials,
  };
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

const RETRY_MS = 2_000;

/**
 * Every product's CORS policy in memory, keyed `<environment>:<service>`. Reloaded (all ten rows) on a
 * product change or a feed reset; when the database cannot be read the last policies stay in force and
 * the load is tried again every two seconds.
 */
export class CorsPolicies {
  private policies = new Map<string, CompiledCors>();
  private running: Promise<void> | undefined;
  private again = false;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly unsubscribe: (() => void) | undefined;

  constructor(
    private readonly pool: Pool,
    feed?: ChangeFeed,
    private readonly log: (error: unknown) => void = () => {},
  ) {
    this.unsubscribe = feed?.on((notice) => {
      if (notice.kind === 'product' || notice.kind === 'reset') void this.reload().catch(() => {});
    });
  }

  static key(environment: string, service: string): string {
    return `${environment}:${service}`;
  }

  get(key: string): CompiledCors | undefined {
    return this.policies.get(key);
  }

  /**
   * Loads every policy. Loads never overlap: a reload asked for while one runs makes that one load once
   * more, and every caller waits for the load that started after its request, so nothing stale wins.
   */
  reload(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const running = (async () => {
      try {
        do {
          this.again = false;
          await this.loadOnce();
        } while (this.again);
      } catch (error) {
        this.log(error);
        this.retryLater();
        throw error;
      } finally {
        this.running = undefined;
      }
    })();
    this.running = running;
    return running;
  }

  private async loadOnce(): Promise<void> {
    const next = new Map<string, CompiledCors>();
    for (const row of await corsPolicyRows(this.pool)) {
      const policy = compile(row);
      if (policy) next.set(CorsPolicies.key(row.environment, row.service), policy);
    }
    this.policies = next;
  }

  /** The database could not be read: the last policies stay in force; try again shortly. */
  private retryLater(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.closed) void this.reload().catch(() => {});
    }, RETRY_MS);
    this.retry.unref();
  }

  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.unsubscribe?.();
  }
}
