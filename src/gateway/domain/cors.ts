/**
 * Cross-origin resource sharing per product, as API Management's `cors` policy: allowed origins,
 * methods and headers, exposed headers, a preflight max age and allow-credentials (false by default).
 * Off until an operator names origins (`rsg products set ID --cors-origins …`).
 *
 * The rules only: what an option may say, a policy compiled for the hot path, which origin an answer
 * names and whether a preflight is allowed. The answers are http/cors.ts's (on @fastify/cors), the
 * policies in memory http/cors-policies.ts's.
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

/**
 * Exposed on every allowed cross-origin answer: the request id, `Retry-After` (429, quota), `ETag`, and
 * `x-rsg-hint` (the way to the right path when a key of another environment or API is refused).
 */
export const ALWAYS_EXPOSED = [
  'api-business-govt-nz-Request-Id',
  'Retry-After',
  'ETag',
  'x-rsg-hint',
] as const;
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
export interface CorsPolicy {
  anyOrigin: boolean;
  origins: ReadonlySet<string>;
  anyMethod: boolean;
  methods: ReadonlySet<string>;
  allowMethods: string;
  anyHeader: boolean;
  headers: ReadonlySet<string>;
  allowHeaders: string;
  expose: string;
  maxAgeSeconds: number;
  credentials: boolean;
}

/** The policy of a product's settings; undefined while its CORS is off. */
export function compile(settings: CorsSettings): CorsPolicy | undefined {
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
    maxAgeSeconds: settings.maxAgeSeconds,
    credentials: settings.allowCredentials,
  };
}

/** The `Access-Control-Allow-Origin` an answer to `origin` carries: `*`, the origin as browsers write it, or none. */
export function allowedOrigin(policy: CorsPolicy, origin: string): string | undefined {
  if (policy.anyOrigin) return '*';
  const normal = origin.toLowerCase();
  return policy.origins.has(normal) ? normal : undefined;
}

/** What a preflight asks for: its `Origin`, `Access-Control-Request-Method` and `-Headers` as sent. */
export interface PreflightRequest {
  origin: string;
  method: string;
  headers: string;
}

/** The allow headers of an allowed preflight's answer. */
export interface PreflightAllowance {
  origin: string;
  methods: string;
  /** The request headers allowed; none when the preflight asked for none that need allowing. */
  headers: string | undefined;
  maxAgeSeconds: number;
  credentials: boolean;
}

/**
 * A preflight is allowed when its origin, its method and every request header it names are; otherwise
 * (or with CORS off) it is refused and answered without allow headers, which the browser reports as a
 * CORS failure (API Management's `terminate-unmatched-request` answers an empty 200 the same way).
 */
export function preflightAllowance(
  policy: CorsPolicy | undefined,
  preflight: PreflightRequest,
): PreflightAllowance | undefined {
  if (!policy) return undefined;
  const origin = allowedOrigin(policy, preflight.origin);
  const method = preflight.method.trim().toUpperCase();
  const requested = list(preflight.headers).map((name) => name.toLowerCase());
  const methodAllowed = policy.anyMethod || policy.methods.has(method);
  const headersAllowed = policy.anyHeader || requested.every((name) => policy.headers.has(name));
  if (!origin || !method || !methodAllowed || !headersAllowed) return undefined;
  return {
    origin,
    methods: policy.anyMethod ? method : policy.allowMethods,
    // A wildcard is answered with the names asked for: `*` would not cover Authorization.
    headers: (policy.anyHeader ? requested.join(', ') : policy.allowHeaders) || undefined,
    maxAgeSeconds: policy.maxAgeSeconds,
    credentials: policy.credentials,
  };
}
