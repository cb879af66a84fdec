import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CorsRuleError,
  type CorsSettings,
  compile,
  parseCredentials,
  parseHeaderNames,
  parseMaxAge,
  parseMethods,
  parseOrigins,
  preflightAllowance,
} from '../../src/gateway/domain/cors.ts';
import { findProduct, updateProduct } from '../../src/gateway/store/products.ts';
import { rsg } from '../support/cli.ts';
import { servicesWithEcho } from '../support/echo-service.ts';
import { subscriber, type TestGateway, testGateway } from '../support/runtime.ts';

const ALLOWED = 'https://app.example';
const OTHER = 'https://evil.example';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway({ app: { services: servicesWithEcho(['nzbn', 'market-rent']) } });
  const pool = gateway.runtime.gateway.pool;
  // sandbox-nzbn: CORS on for one origin; production-nzbn and every market-rent product: off (default).
  await updateProduct(pool, 'sandbox-nzbn', {
    rateLimitPerMinute: 3,
    quota: null,
    cors: {
      origins: [ALLOWED, 'http://localhost:3000'],
      methods: ['GET', 'POST', 'PUT'],
      maxAgeSeconds: 600,
    },
  });
  await gateway.runtime.cors.reload();
});
afterAll(() => gateway?.close());

const preflight = (url: string, origin: string, method = 'GET', headers?: string) =>
  gateway.app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': method,
      ...(headers ? { 'access-control-request-headers': headers } : {}),
    },
  });

const allowHeaders = (headers: Record<string, unknown>) =>
  Object.keys(headers).filter((name) => name.startsWith('access-control-'));

describe('preflight (no key: the product is the path’s)', () => {
  it('an allowed origin, method and headers → 204 with the allow headers and Vary: Origin', async () => {
    const response = await preflight(
      '/sandbox/nzbn/v5/entities/9429000001007',
      ALLOWED,
      'PUT',
      'ocp-apim-subscription-key, content-type, if-match',
    );
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(response.headers['access-control-allow-methods']).toBe('GET, POST, PUT');
    expect(String(response.headers['access-control-allow-headers']).toLowerCase()).toContain(
      'ocp-apim-subscription-key',
    );
    expect(response.headers['access-control-max-age']).toBe('600');
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
    expect(String(response.headers.vary)).toMatch(/\bOrigin\b/);
    // The origin is matched as browsers serialise it; another allowed origin gets itself back.
    const local = await preflight('/sandbox/nzbn/v5/echo', 'http://localhost:3000');
    expect(local.headers['access-control-allow-origin']).toBe('http://localhost:3000');
  });

  it('a disallowed origin → 204 without allow headers', async () => {
    const response = await preflight('/sandbox/nzbn/v5/echo', OTHER);
    expect(response.statusCode).toBe(204);
    expect(allowHeaders(response.headers)).toEqual([]);
    expect(String(response.headers.vary)).toMatch(/\bOrigin\b/);
    // Scheme and port are part of the origin.
    const http = await preflight('/sandbox/nzbn/v5/echo', 'http://app.example');
    expect(allowHeaders(http.headers)).toEqual([]);
    const port = await preflight('/sandbox/nzbn/v5/echo', 'https://app.example:8443');
    expect(allowHeaders(port.headers)).toEqual([]);
  });

  it('a disallowed method or request header → 204 without allow headers', async () => {
    const method = await preflight('/sandbox/nzbn/v5/echo', ALLOWED, 'DELETE');
    expect(method.statusCode).toBe(204);
    expect(allowHeaders(method.headers)).toEqual([]);
    const header = await preflight('/sandbox/nzbn/v5/echo', ALLOWED, 'GET', 'x-secret-header');
    expect(header.statusCode).toBe(204);
    expect(allowHeaders(header.headers)).toEqual([]);
  });

  it('a product with CORS off (the default) → 204 without allow headers', async () => {
    for (const url of ['/gateway/nzbn/v5/echo', '/sandbox/tenancy-services/market-rent/v2/echo']) {
      const response = await preflight(url, ALLOWED);
      expect(response.statusCode).toBe(204);
      expect(allowHeaders(response.headers)).toEqual([]);
    }
  });

  it('an OPTIONS that is not a preflight is the API Management 404, as before', async () => {
    const response = await gateway.app.inject({ method: 'OPTIONS', url: '/sandbox/nzbn/v5/echo' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ statusCode: 404, message: 'Resource not found' });
  });

  it('the portal and the health routes get no CORS', async () => {
    for (const url of ['/portal', '/portal/products', '/healthz']) {
      const actual = await gateway.app.inject({ url, headers: { origin: ALLOWED } });
      expect(allowHeaders(actual.headers)).toEqual([]);
      const options = await preflight(url, ALLOWED);
      expect(allowHeaders(options.headers)).toEqual([]);
    }
  });
});

describe('actual requests with an Origin', () => {
  it('an allowed origin can read the answer, the request id and Retry-After, also on 401 and 429', async () => {
    const { primaryKey } = await subscriber(gateway, 'sandbox-nzbn');
    const call = () =>
      gateway.app.inject({
        url: '/sandbox/nzbn/v5/echo',
        headers: { origin: ALLOWED, 'Ocp-Apim-Subscription-Key': primaryKey },
      });
    const ok = await call();
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(ALLOWED);
    const exposed = String(ok.headers['access-control-expose-headers']).toLowerCase();
    expect(exposed).toContain('api-business-govt-nz-request-id');
    expect(exposed).toContain('retry-after');
    expect(String(ok.headers.vary)).toMatch(/\bOrigin\b/);
    expect(ok.headers['access-control-allow-credentials']).toBeUndefined();

    const missingKey = await gateway.app.inject({
      url: '/sandbox/nzbn/v5/echo',
      headers: { origin: ALLOWED },
    });
    expect(missingKey.statusCode).toBe(401);
    expect(missingKey.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(String(missingKey.headers['access-control-expose-headers'])).toContain('Retry-After');

    // The limit is 3 a minute: the 4th call is refused, and the page can read Retry-After.
    await call();
    await call();
    const limited = await call();
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(limited.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(String(limited.headers['access-control-expose-headers'])).toContain('Retry-After');

    // The not-found answer and a failure inside a route carry them too.
    const unknown = await gateway.app.inject({
      url: '/sandbox/nzbn/v5/nothing-here',
      headers: { origin: ALLOWED },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(unknown.json()).toEqual({ statusCode: 404, message: 'Resource not found' });
    // The service's document, outside the guard, too.
    const document = await gateway.app.inject({
      url: '/sandbox/nzbn/v5/openapi.json',
      headers: { origin: ALLOWED },
    });
    expect(document.statusCode).toBe(200);
    expect(document.headers['access-control-allow-origin']).toBe(ALLOWED);
  });

  it('a key of another environment: the page can read the hint that names the right path', async () => {
    const production = await subscriber(gateway, 'production-nzbn');
    const refused = await gateway.app.inject({
      url: '/sandbox/nzbn/v5/echo',
      headers: { origin: ALLOWED, 'Ocp-Apim-Subscription-Key': production.primaryKey },
    });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['x-rsg-hint']).toBe(
      'this key belongs to the production environment; use /gateway/nzbn/v5/echo',
    );
    expect(refused.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(String(refused.headers['access-control-expose-headers']).toLowerCase()).toContain('x-rsg-hint');
  });

  it('a route error (500) keeps the CORS headers', async () => {
    const { primaryKey } = await subscriber(gateway, 'sandbox-nzbn');
    const boom = await gateway.app.inject({
      url: '/sandbox/nzbn/v5/boom',
      headers: { origin: ALLOWED, 'Ocp-Apim-Subscription-Key': primaryKey },
    });
    expect(boom.statusCode).toBe(500);
    expect(boom.headers['access-control-allow-origin']).toBe(ALLOWED);
  });

  it('a disallowed origin, or a product with CORS off, is served without allow headers', async () => {
    const { primaryKey } = await subscriber(gateway, 'sandbox-market-rent');
    const off = await gateway.app.inject({
      url: '/sandbox/tenancy-services/market-rent/v2/echo',
      headers: { origin: ALLOWED, 'Ocp-Apim-Subscription-Key': primaryKey },
    });
    expect(off.statusCode).toBe(200);
    expect(allowHeaders(off.headers)).toEqual([]);
    expect(off.headers.vary).toBeUndefined();
    const other = await gateway.app.inject({ url: '/sandbox/nzbn/v5/echo', headers: { origin: OTHER } });
    expect(other.statusCode).toBe(401);
    expect(allowHeaders(other.headers)).toEqual([]);
    expect(String(other.headers.vary)).toMatch(/\bOrigin\b/);
  });
});

describe('rsg products set --cors-*', () => {
  it('a change applies at once to preflights in a running gateway, and none turns CORS off', async () => {
    const url = '/gateway/tenancy-services/market-rent/v2/statistics';
    expect(allowHeaders((await preflight(url, ALLOWED)).headers)).toEqual([]);
    const on = await rsg(
      [
        'products',
        'set',
        'production-market-rent',
        '--cors-origins',
        `${ALLOWED}/,HTTPS://B.Example:443`,
        '--cors-methods',
        'get',
        '--cors-max-age',
        '120',
        '--cors-credentials',
        'true',
        '--json',
      ],
      { urls: gateway.urls },
    );
    expect(on.stderr).toBe('');
    expect(on.code).toBe(0);
    expect(JSON.parse(on.stdout).cors).toMatchObject({
      origins: [ALLOWED, 'https://b.example'],
      methods: ['GET'],
      maxAgeSeconds: 120,
      allowCredentials: true,
    });
    // Heard through the change feed (LISTEN/NOTIFY), not a cache expiry.
    await vi.waitFor(
      async () => {
        const answer = await preflight(url, 'https://b.example');
        expect(answer.headers['access-control-allow-origin']).toBe('https://b.example');
        expect(answer.headers['access-control-allow-credentials']).toBe('true');
        expect(answer.headers['access-control-max-age']).toBe('120');
        expect(answer.headers['access-control-allow-methods']).toBe('GET');
      },
      { timeout: 10_000, interval: 50 },
    );

    const off = await rsg(['products', 'set', 'production-market-rent', '--cors-origins', 'none'], {
      urls: gateway.urls,
    });
    expect(off.code).toBe(0);
    expect(off.stdout).toMatch(/CORS off/);
    await vi.waitFor(async () => expect(allowHeaders((await preflight(url, ALLOWED)).headers)).toEqual([]), {
      timeout: 10_000,
      interval: 50,
    });
    // The other settings are kept for when it is turned on again.
    const stored = await findProduct(gateway.runtime.gateway.pool, 'production-market-rent');
    expect(stored?.cors).toMatchObject({ origins: null, methods: ['GET'], maxAgeSeconds: 120 });
  });

  it('bad values: exit 2 naming the option and the rule; nothing stored', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['--cors-origins', 'https://a.example/path'],
        /--cors-origins: "https:\/\/a.example\/path" is not an origin: write scheme:\/\/host\[:port\]/,
      ],
      [['--cors-methods', 'GET,TRACE'], /--cors-methods: "TRACE" is not allowed/],
      [['--cors-max-age', '90000'], /--cors-max-age: must be a whole number of seconds from 0 to 86400/],
      [
        ['--cors-origins', '*', '--cors-credentials', 'true'],
        /--cors-credentials: cannot be true while --cors-origins is \*/,
      ],
    ];
    for (const [flags, message] of cases) {
      const result = await rsg(['products', 'set', 'sandbox-market-rent', ...flags], { urls: gateway.urls });
      expect(result.code, flags.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    const stored = await findProduct(gateway.runtime.gateway.pool, 'sandbox-market-rent');
    expect(stored?.cors.origins).toBeNull();
  });
});

describe('OIDC discovery and JWKS', () => {
  it('any origin may read them, never with credentials', async () => {
    for (const path of ['/oauth2/.well-known/openid-configuration', '/oauth2/jwks']) {
      const response = await gateway.app.inject({ url: path, headers: { origin: OTHER, cookie: 'a=b' } });
      expect(response.statusCode).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
      const options = await preflight(path, OTHER, 'GET', 'x-requested-with');
      expect(options.statusCode).toBe(204);
      expect(options.headers['access-control-allow-origin']).toBe('*');
      expect(options.headers['access-control-allow-methods']).toBe('GET, HEAD');
      expect(options.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });
});

describe('policy rules (unit)', () => {
  it('origins are normalised as browsers send them', () => {
    expect(parseOrigins('https://A.Example:443/, http://localhost:3000')).toEqual([
      'https://a.example',
      'http://localhost:3000',
    ]);
    expect(parseOrigins('*')).toEqual(['*']);
    expect(parseOrigins('none')).toBeNull();
    for (const bad of [
      'a.example',
      'ftp://a.example',
      'https://user@a.example',
      'https://a.example?x',
      'https://',
      ' , ',
    ]) {
      expect(() => parseOrigins(bad), bad).toThrow(CorsRuleError);
    }
    expect(() => parseOrigins('*,https://a.example')).toThrow(
      '--cors-origins: * allows every origin and must stand alone',
    );
  });

  it('methods, header names and max age', () => {
    expect(parseMethods('get, Post')).toEqual(['GET', 'POST']);
    expect(parseMethods('*')).toEqual(['*']);
    expect(() => parseMethods('CONNECT')).toThrow(/--cors-methods/);
    expect(parseHeaderNames('X-A, x-a, Content-Type', '--cors-headers', true)).toEqual([
      'X-A',
      'Content-Type',
    ]);
    expect(parseHeaderNames('none', '--cors-headers', true)).toEqual([]);
    expect(() => parseHeaderNames('*', '--cors-expose-headers', false)).toThrow(/--cors-expose-headers/);
    expect(parseMaxAge('0')).toBe(0);
    expect(() => parseMaxAge('86401')).toThrow(/--cors-max-age/);
    expect(() => parseMaxAge('-1')).toThrow(/--cors-max-age/);
    expect(() => parseHeaderNames('bad header', '--cors-headers', true)).toThrow(
      '--cors-headers: "bad header" is not a header name',
    );
    expect(() => parseCredentials('yes')).toThrow('--cors-credentials: must be true or false');
  });

  it('a preflight is allowed when its origin, method and every header are', () => {
    const settings: CorsSettings = {
      origins: [ALLOWED],
      methods: ['GET', 'PUT'],
      headers: ['Content-Type', 'If-Match'],
      exposeHeaders: [],
      maxAgeSeconds: 600,
      allowCredentials: true,
    };
    const policy = compile(settings);
    expect(
      preflightAllowance(policy, { origin: 'HTTPS://APP.EXAMPLE', method: 'put', headers: 'if-match' }),
    ).toEqual({
      origin: ALLOWED,
      methods: 'GET, PUT',
      headers: 'Content-Type, If-Match',
      maxAgeSeconds: 600,
      credentials: true,
    });
    for (const refused of [
      { origin: OTHER, method: 'GET', headers: '' },
      { origin: ALLOWED, method: 'DELETE', headers: '' },
      { origin: ALLOWED, method: 'GET', headers: 'content-type, x-secret' },
      { origin: ALLOWED, method: ' ', headers: '' },
    ]) {
      expect(preflightAllowance(policy, refused), JSON.stringify(refused)).toBeUndefined();
    }
    expect(compile({ ...settings, origins: null })).toBeUndefined();
    // A wildcard answers with what was asked: `*` would not cover Authorization.
    const any = compile({
      ...settings,
      origins: ['*'],
      methods: ['*'],
      headers: ['*'],
      allowCredentials: false,
    });
    expect(
      preflightAllowance(any, { origin: OTHER, method: 'patch', headers: 'Authorization, X-A' }),
    ).toEqual({
      origin: '*',
      methods: 'PATCH',
      headers: 'authorization, x-a',
      maxAgeSeconds: 600,
      credentials: false,
    });
    expect(preflightAllowance(any, { origin: OTHER, method: 'GET', headers: '' })?.headers).toBeUndefined();
  });
});
