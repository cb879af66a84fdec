/**
 * The one place a call is sent: the address (gateway, environment, register), the credentials, the
 * register's own headers, conditional requests (ETags remembered per resource), retries that honour
 * `Retry-After`, a timeout of the client's own, and every failure as a typed error. Runs on `fetch`
 * alone, so it works in Node.js 22+ and in browsers.
 */
import { errorOf, NoAnswerError, PreconditionFailedError, RegisterError } from './errors.ts';
import type { TokenSource } from './oauth.ts';

export type Environment = 'sandbox' | 'production';

/** The gateway's request id header: a write that carries the caller's own may be repeated safely. */
export const REQUEST_ID_HEADER = 'api-business-govt-nz-Request-Id';

export interface RetryPolicy {
  /** Attempts in all, the first included (1: never retry). Default 4. */
  attempts?: number;
  /** The longest wait between two attempts, whatever `Retry-After` says. Default 60 s. */
  maxDelayMs?: number;
  /** The first wait when the answer names none (doubled each time). Default 500 ms. */
  baseDelayMs?: number;
}

export interface TransportOptions {
  /** The gateway's address, e.g. `https://gateway.example.org` (no environment, no register). */
  baseUrl: string;
  environment: Environment;
  /** The register's path behind the environment prefix, e.g. `/ppsr/v2`. */
  registerPath: string;
  /** The subscription key of the register's product in this environment. */
  key?: string | undefined;
  /** Bearer tokens: client credentials (`@register-services/client/server`) or a user's (three-legged). */
  oauth?: TokenSource | undefined;
  /** Headers sent on every call (the offers register's `x-organisation`). */
  headers?: Record<string, string>;
  retry?: RetryPolicy | undefined;
  /** The client's own timeout of one attempt, in milliseconds. Default 60 s. */
  timeoutMs?: number | undefined;
  /**
   * The writes whose If-Match holds against another resource's ETag, from the document's `x-etag-of`:
   * `'METHOD /path'` (the template) to that resource's template, e.g. the business number register's
   * `POST /entities/{nzbn}/roles` to `/entities/{nzbn}`. A write not named holds against its own path.
   */
  etagOf?: Readonly<Record<string, string>> | undefined;
  /** A `fetch` of your own (a proxy agent, a test double); the global one by default. */
  fetch?: typeof fetch | undefined;
}

export interface Request {
  method: string;
  /** The path template of the operation, e.g. `/financing-statements/{registrationNumber}`. */
  path: string;
  pathParameters?: Record<string, unknown> | undefined;
  query?: Record<string, unknown> | undefined;
  headers?: Record<string, unknown> | undefined;
  /** A JSON value, a `FormData`, or text (XML) with its content type in `headers`. */
  body?: unknown;
  requestId?: string | undefined;
  ifMatch?: string | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
}

export interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

const PREFIX: Record<Environment, string> = { sandbox: '/sandbox', production: '/gateway' };
const DEFAULT_TIMEOUT_MS = 60_000;

/** `Retry-After` in milliseconds (seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Waits `ms`, or rejects when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

interface Remembered {
  etag: string;
  body: unknown;
}

export class Transport {
  /** The ETag and body of each resource read, by its path and query (for `If-None-Match`). */
  private readonly etags = new Map<string, Remembered>();
  /** The ETag of each resource as last read or written, by its scope (for `If-Match`). */
  private readonly versions = new Map<string, string>();
  private readonly fetch: typeof fetch;

  constructor(readonly options: TransportOptions) {
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** The register's address in its environment: `<baseUrl>/sandbox/ppsr/v2`. */
  get base(): string {
    return `${this.options.baseUrl.replace(/\/+$/, '')}${PREFIX[this.options.environment]}${this.options.registerPath}`;
  }

  /** The ETag remembered for a resource (`/financing-statements/FH04…`), as last read or written. */
  etagOf(resource: string): string | undefined {
    return this.versions.get(resource.split('?')[0]!);
  }

  /**
   * The resource whose ETag the request holds against: for a write its document's `x-etag-of` names
   * (the part of the request's path that template spans: `/entities/9429…` of
   * `/entities/9429…/roles`), else the request's own path.
   */
  private scopeOf(request: Request, resource: string): string {
    const path = resource.split('?')[0]!;
    const named = this.options.etagOf?.[`${request.method} ${request.path}`];
    return named === undefined ? path : path.split('/').slice(0, named.split('/').length).join('/');
  }

  /** Sends the request (retrying when that is safe) and answers its success, or throws its typed error. */
  async send<T = unknown>(request: Request): Promise<Answer<T>> {
    const resource = resourceOf(request);
    const read = request.method === 'GET' || request.method === 'HEAD';
    // Only reads and writes that carry the caller's request id are safe to send twice.
    const repeatable = read || request.requestId !== undefined;
    const attempts = repeatable ? Math.max(1, this.options.retry?.attempts ?? 4) : 1;
    const remembered = this.etags.get(resource);
    const scope = this.scopeOf(request, resource);
    const ifMatch = read ? undefined : (request.ifMatch ?? this.versions.get(scope));
    let authRetried = false;
    for (let attempt = 1; ; attempt++) {
      const response = await this.attempt(request, resource, read ? remembered?.etag : undefined, ifMatch);
      if (response.status === 304 && remembered) {
        return { status: 200, headers: response.headers, body: remembered.body as T };
      }
      if (response.status === 401 && this.options.oauth?.invalidate && !authRetried) {
        // A token the gateway no longer takes (revoked, expired early): one fresh token, once.
        authRetried = true;
        this.options.oauth.invalidate();
        attempt--;
        continue;
      }
      if ((response.status === 429 || response.status === 503) && attempt < attempts) {
        await response.body?.cancel();
        await sleep(this.delay(attempt, response.headers.get('retry-after')), request.signal);
        continue;
      }
      return this.settle<T>(request, resource, scope, response, ifMatch);
    }
  }

  private delay(attempt: number, retryAfter: string | null): number {
    const max = this.options.retry?.maxDelayMs ?? 60_000;
    const named = retryAfterMs(retryAfter);
    const base = this.options.retry?.baseDelayMs ?? 500;
    return Math.min(max, named ?? base * 2 ** (attempt - 1));
  }

  private async attempt(
    request: Request,
    resource: string,
    ifNoneMatch: string | undefined,
    ifMatch: string | undefined,
  ): Promise<Response> {
    const headers = await this.headersOf(request, ifNoneMatch, ifMatch);
    const timeoutMs = request.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    const body = encodeBody(request.body, headers);
    try {
      return await this.fetch(`${this.base}${resource}`, {
        method: request.method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal,
      });
    } catch (error) {
      if (request.signal?.aborted) throw error;
      const timedOut = timeout.aborted;
      throw new NoAnswerError(
        timedOut
          ? `${request.method} ${resource}: no answer within ${timeoutMs} ms`
          : `${request.method} ${resource}: ${(error as Error).message}`,
        timedOut,
        { cause: error },
      );
    }
  }

  private async headersOf(
    request: Request,
    ifNoneMatch: string | undefined,
    ifMatch: string | undefined,
  ): Promise<Headers> {
    const headers = new Headers(this.options.headers);
    if (this.options.key) headers.set('Ocp-Apim-Subscription-Key', this.options.key);
    if (this.options.oauth) headers.set('Authorization', `Bearer ${await this.options.oauth.token()}`);
    for (const [name, value] of Object.entries(request.headers ?? {})) {
      if (value !== undefined && value !== null) headers.set(name, String(value));
    }
    if (request.requestId !== undefined) headers.set(REQUEST_ID_HEADER, request.requestId);
    if (ifNoneMatch && !headers.has('If-None-Match')) headers.set('If-None-Match', ifNoneMatch);
    if (ifMatch && !headers.has('If-Match')) headers.set('If-Match', ifMatch);
    if (!headers.has('Accept')) headers.set('Accept', 'application/json');
    return headers;
  }

  private async settle<T>(
    request: Request,
    resource: string,
    scope: string,
    response: Response,
    ifMatch: string | undefined,
  ): Promise<Answer<T>> {
    const contentType = response.headers.get('content-type') ?? '';
    if (response.status >= 400) {
      const text = await response.text();
      const details = errorOf(
        response.status,
        contentType,
        text,
        response.headers.get(REQUEST_ID_HEADER) ?? undefined,
      );
      if (response.status === 412) throw new PreconditionFailedError(details, ifMatch);
      throw new RegisterError(details);
    }
    const body = (await decodeBody(response, contentType)) as T;
    const etag = response.headers.get('etag');
    if (request.method === 'GET') {
      if (etag) {
        this.etags.set(resource, { etag, body });
        this.versions.set(scope, etag);
      }
    } else if (etag) this.versions.set(scope, etag);
    // The write changed the resource: the ETag held for it is stale now.
    else this.versions.delete(scope);
    return { status: response.status, headers: response.headers, body };
  }
}

/** The request's path with its parameters filled in and its query: the key its ETag is kept under. */
function resourceOf(request: Request): string {
  const path = request.path.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const value = request.pathParameters?.[name];
    if (value === undefined || value === null) throw new TypeError(`path parameter ${name} is required`);
    return encodeURIComponent(String(value));
  });
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) query.append(name, String(item));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

function encodeBody(body: unknown, headers: Headers): RequestInit['body'] {
  if (body === undefined) return undefined;
  if (typeof FormData !== 'undefined' && body instanceof FormData) return body;
  if (typeof body === 'string') return body;
  headers.set('Content-Type', 'application/json');
  return JSON.stringify(body);
}

async function decodeBody(response: Response, contentType: string): Promise<unknown> {
  if (response.status === 204 || response.status === 304) return undefined;
  if (/[/+]json/.test(contentType)) {
    const text = await response.text();
    return text === '' ? undefined : JSON.parse(text);
  }
  if (contentType.startsWith('text/') || /[/+]xml/.test(contentType)) return response.text();
  // A document (a PDF, an image): a Blob, which keeps its media type, in Node.js and in browsers.
  return response.blob();
}
