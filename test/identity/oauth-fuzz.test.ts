import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClient } from '../../src/identity/operations/clients.ts';
import { setPassword } from '../../src/identity/operations/users.ts';
import { CookieBrowser, csrfOf, location } from '../support/cookie-browser.ts';
import {
  expectNo500,
  expectProblem,
  formBody,
  junkFormValue,
  junkJson,
  junkQuery,
  junkString,
  rawFormJunk,
  runs,
} from '../support/fuzz.ts';
import { subscriber, type TestGateway, testGateway } from '../support/runtime.ts';

/**
 * "No 500s" for the authorization server at /oauth2: the token, introspection and revocation endpoints
 * with random grants, parameters and client authentication; the authorization endpoint with random
 * queries; our login and consent pages with random form posts; and anything else under /oauth2.
 */
let gateway: TestGateway;
const REDIRECT = 'http://localhost:7777/callback';
const SANDBOX = 'https://api.business.govt.nz/sandbox';
const PRODUCTION = 'https://api.business.govt.nz/gateway';
let email: string;
/** A second user, whose sign-in the throttle has not seen (the first one's attempts are fuzzed). */
let secondEmail: string;
const PASSWORD = 'correct horse battery';
const clients: { id: string; secret?: string }[] = [];

beforeAll(async () => {
  gateway = await testGateway();
  const sub = await subscriber(gateway, 'sandbox-nzbn');
  email = sub.user.email;
  const pool = gateway.runtime.gateway.pool;
  await setPassword(pool, sub.user.id, PASSWORD);
  const second = await subscriber(gateway, 'sandbox-nzbn');
  secondEmail = second.user.email;
  await setPassword(pool, second.user.id, PASSWORD);
  const shapes = [
    { environment: 'sandbox', grantTypes: ['client_credentials'], public: false, redirectUris: [] },
    {
      environment: 'sandbox',
      grantTypes: ['authorization_code', 'refresh_token'],
      public: false,
      redirectUris: [REDIRECT],
    },
    { environment: 'sandbox', grantTypes: ['authorization_code'], public: true, redirectUris: [REDIRECT] },
    { environment: 'production', grantTypes: ['client_credentials'], public: false, redirectUris: [] },
  ] as const;
  for (const shape of shapes) {
    const registered = await registerClient(pool, {
      ownerUserId: sub.user.id,
      name: 'Fuzz client',
      ...shape,
      redirectUris: [...shape.redirectUris],
      grantTypes: [...shape.grantTypes],
    });
    clients.push({ id: registered.client.clientId, secret: registered.clientSecret });
  }
});
afterAll(() => gateway?.close());

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

/** A client id: one of ours, or junk. */
const clientId = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 3 }).map((i) => clients[i]!.id) },
  { weight: 1, arbitrary: junkString.map((s) => s.slice(0, 500)) },
);
const clientSecret = fc.oneof(
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 3 }).map((i) => clients[i]!.secret ?? '') },
  { weight: 1, arbitrary: junkString.map((s) => s.slice(0, 500)) },
);
const scope = fc.oneof(
  fc.constantFrom(
    `${SANDBOX}/.default`,
    `${PRODUCTION}/.default`,
    'openid',
    'openid offline_access',
    'nzbn:read nzbn:write',
    `openid ${SANDBOX}/.default`,
    'unknown:scope',
    '',
  ),
  junkString,
);
const resource = fc.oneof(
  fc.constantFrom(SANDBOX, PRODUCTION, 'https://example.com', 'urn:x', 'not a url', ''),
  junkString,
);
const authorization = fc.oneof(
  fc.constant(undefined),
  fc.tuple(clientId, clientSecret).map(([id, secret]) => basic(id, secret)),
  fc.constantFrom('Basic', 'Basic ', 'Basic %%%', 'Basic Og==', 'Bearer x', 'Basic YTpi:c', 'Digest x=y'),
  junkString.map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
  junkString.map((s) => `Basic ${s.replace(/[\r\n]/g, '')}`),
);

function requestFailedLocally(error: unknown): boolean {
  // light-my-request refuses header values Node would never send; not the server's doing.
  return error instanceof TypeError && /header|character/i.test(error.message);
}

async function send(options: InjectOptions) {
  try {
    return await gateway.app.inject(options);
  } catch (error) {
    if (requestFailedLocally(error)) return undefined;
    throw error;
  }
}

/** The OAuth error shape (RFC 6749 §5.2): JSON with `error` and maybe `error_description`. */
function expectOAuthError(response: LightMyRequestResponse) {
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = response.json();
  expect(typeof body.error).toBe('string');
  if (body.error_description !== undefined) expect(typeof body.error_description).toBe('string');
}

function checkJsonEndpoint(response: LightMyRequestResponse | undefined, request: unknown) {
  if (!response) return;
  expectNo500(response, request);
  if (response.statusCode >= 400 && response.statusCode !== 404) expectOAuthError(response);
}

describe('the token endpoint under random input', () => {
  it('random grants and parameters: never a 500, errors in the OAuth shape', async () => {
    const form = fc.record(
      {
        grant_type: fc.oneof(
          {
            weight: 4,
            arbitrary: fc.constantFrom(
              'client_credentials',
              'authorization_code',
              'refresh_token',
              'password',
              'implicit',
              'urn:ietf:params:oauth:grant-type:device_code',
              'urn:ietf:params:oauth:grant-type:jwt-bearer',
              'urn:ietf:params:oauth:grant-type:token-exchange',
              'CLIENT_CREDENTIALS',
            ),
          },
          { weight: 1, arbitrary: junkFormValue },
        ),
        client_id: fc.oneof(clientId, junkFormValue),
        client_secret: fc.oneof(clientSecret, junkFormValue),
        scope: fc.oneof(scope, junkFormValue),
        resource: fc.oneof(resource, fc.array(resource, { minLength: 2, maxLength: 3 })),
        code: junkFormValue,
        redirect_uri: fc.oneof(fc.constant(REDIRECT), junkFormValue),
        code_verifier: junkFormValue,
        refresh_token: junkFormValue,
        client_assertion: junkFormValue,
        client_assertion_type: fc.oneof(
          fc.constant('urn:ietf:params:oauth:client-assertion-type:jwt-bearer'),
          junkFormValue,
        ),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        form,
        rawFormJunk,
        authorization,
        fc.constantFrom(
          'application/x-www-form-urlencoded',
          'application/x-www-form-urlencoded; charset=utf-8',
          'application/x-www-form-urlencoded; charset=latin1',
          'application/json',
          'text/plain',
          'multipart/form-data; boundary=x',
        ),
        fc.constantFrom('/oauth2/token', '/oauth2/token/introspection', '/oauth2/token/revocation'),
        async (fields, raw, auth, contentType, url) => {
          const payload = contentType.startsWith('application/json')
            ? JSON.stringify(fields)
            : formBody(fields as Record<string, string | string[] | undefined>, raw);
          const request = {
            method: 'POST' as const,
            url,
            headers: { 'content-type': contentType, ...(auth ? { authorization: auth } : {}) },
            payload,
          };
          checkJsonEndpoint(await send(request), request);
        },
      ),
      runs(6749, 150),
    );
  });

  it('near-valid requests by real clients with one or two fields spoiled: never a 500', async () => {
    const FIELDS = [
      'grant_type',
      'scope',
      'resource',
      'code',
      'redirect_uri',
      'code_verifier',
      'refresh_token',
      'client_id',
      'client_secret',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom('client_credentials', 'authorization_code', 'refresh_token'),
        fc.boolean(),
        fc.option(scope, { nil: undefined }),
        fc.option(resource, { nil: undefined }),
        fc.array(fc.tuple(fc.constantFrom(...FIELDS), junkFormValue), { maxLength: 2 }),
        async (which, grant, post, scopeValue, resourceValue, spoiled) => {
          const client = clients[which]!;
          const fields: Record<string, string | string[] | undefined> = {
            grant_type: grant,
            scope: scopeValue,
            resource: resourceValue,
            ...(grant === 'authorization_code'
              ? {
                  code: randomBytes(32).toString('base64url'),
                  redirect_uri: REDIRECT,
                  code_verifier: 'v'.repeat(43),
                }
              : {}),
            ...(grant === 'refresh_token' ? { refresh_token: randomBytes(32).toString('base64url') } : {}),
            ...(post ? { client_id: client.id, client_secret: client.secret } : {}),
          };
          for (const [name, value] of spoiled) fields[name] = value;
          const request = {
            method: 'POST' as const,
            url: '/oauth2/token',
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              ...(!post && client.secret ? { authorization: basic(client.id, client.secret) } : {}),
            },
            payload: formBody(fields),
          };
          checkJsonEndpoint(await send(request), request);
        },
      ),
      runs(6750, 250),
    );
  });

  it('introspection and revocation of random tokens by a real client', async () => {
    const token = fc.oneof(
      junkString,
      fc.constantFrom('a.b.c', 'eyJhbGciOiJub25lIn0.e30.', `${'A'.repeat(43)}`, '\u0000'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/oauth2/token/introspection', '/oauth2/token/revocation'),
        token,
        fc.option(fc.constantFrom('access_token', 'refresh_token', 'junk'), { nil: undefined }),
        fc.integer({ min: 0, max: 1 }),
        async (url, value, hint, which) => {
          const client = clients[which === 0 ? 0 : 1]!;
          const request = {
            method: 'POST' as const,
            url,
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              authorization: basic(client.id, client.secret!),
            },
            payload: formBody({ token: value, token_type_hint: hint }),
          };
          checkJsonEndpoint(await send(request), request);
        },
      ),
      runs(7662, 150),
    );
  });

  it('regression: a client id or token holding U+0000 is refused with an OAuth error, not a 500', async () => {
    const cases = [
      formBody({ grant_type: 'client_credentials', client_id: 'a\u0000b', client_secret: 'x' }),
      formBody({ grant_type: 'client_credentials', client_id: '\u0000' }),
    ];
    for (const payload of cases) {
      const response = await gateway.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload,
      });
      expect(response.statusCode).toBeGreaterThanOrEqual(400);
      expect(response.statusCode).toBeLessThan(500);
      expectOAuthError(response);
    }
    const basicNul = await gateway.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basic('a\u0000b', 'x'),
      },
      payload: 'grant_type=client_credentials',
    });
    expect(basicNul.statusCode).toBeGreaterThanOrEqual(400);
    expect(basicNul.statusCode).toBeLessThan(500);
    expectOAuthError(basicNul);
    // A raw NUL byte in the form body (not %00) is answered in the OAuth shape too.
    const raw = await gateway.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials&client_id=a\u0000b&client_secret=x',
    });
    expect(raw.statusCode).toBeGreaterThanOrEqual(400);
    expect(raw.statusCode).toBeLessThan(500);
    expectOAuthError(raw);
    const client = clients[0]!;
    const introspected = await gateway.app.inject({
      method: 'POST',
      url: '/oauth2/token/introspection',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basic(client.id, client.secret!),
      },
      payload: formBody({ token: 'x\u0000y' }),
    });
    expect(introspected.statusCode).toBe(200);
    expect(introspected.json()).toEqual({ active: false });
  });
});

describe('the authorization endpoint under random input', () => {
  it('random queries: a redirect or a 4xx page, never a 500', async () => {
    const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
    const known = fc.record(
      {
        client_id: clientId,
        response_type: fc.oneof(fc.constantFrom('code', 'token', 'id_token', 'code id_token'), junkString),
        redirect_uri: fc.oneof(fc.constantFrom(REDIRECT, 'https://evil.example/cb'), junkString),
        scope,
        resource,
        state: junkString,
        nonce: junkString,
        prompt: fc.oneof(fc.constantFrom('login', 'consent', 'none', 'select_account'), junkString),
        max_age: fc.oneof(fc.constantFrom('0', '-1', '1e9', 'x'), junkString),
        code_challenge: fc.oneof(fc.constant(challenge), junkString),
        code_challenge_method: fc.oneof(fc.constantFrom('S256', 'plain'), junkString),
        response_mode: fc.oneof(fc.constantFrom('query', 'fragment', 'form_post', 'jwt'), junkString),
        request: fc.oneof(fc.constantFrom('a.b.c', 'eyJhbGciOiJub25lIn0.e30.'), junkString),
        request_uri: junkString,
        claims: fc.oneof(
          junkJson.map((v) => JSON.stringify(v) ?? ''),
          junkString,
        ),
        ui_locales: junkString,
        login_hint: junkString,
        id_token_hint: junkString,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        known,
        fc.option(junkQuery(['client_id', 'scope', 'resource']), { nil: undefined, freq: 2 }),
        fc.constantFrom('GET', 'POST'),
        async (params, extra, method) => {
          const query = formBody(
            Object.fromEntries(
              Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v.slice(0, 2000) : v]),
            ) as Record<string, string>,
            extra ?? '',
          );
          const request =
            method === 'GET'
              ? { method: 'GET' as const, url: `/oauth2/auth?${query}` }
              : {
                  method: 'POST' as const,
                  url: '/oauth2/auth',
                  headers: { 'content-type': 'application/x-www-form-urlencoded' },
                  payload: query,
                };
          const response = await send(request);
          if (!response) return;
          expectNo500(response, request);
          // The provider's own error page, or (for %00 or broken %-encoding in the URL, refused before the
          // provider sees it) the gateway's problem+json.
          if (response.statusCode >= 400) {
            const type = String(response.headers['content-type']);
            if (type.startsWith('application/problem+json')) expectProblem(response);
            else expect(type).toMatch(/^text\/html/);
          }
        },
      ),
      runs(1984, 250),
    );
  });
});

describe('other routes under /oauth2', () => {
  it('any method and path: never a 500', async () => {
    const path = fc.oneof(
      fc.constantFrom(
        '/.well-known/openid-configuration',
        '/jwks',
        '/me',
        '/reg',
        '/session/end',
        '/session/end/confirm',
        '/token',
        '/auth',
        '/interaction/x',
        '/interaction/x/login',
        '/interaction/x/confirm',
        '/backchannel',
        '/device/auth',
        '/request',
        '/',
        '',
      ),
      junkString.map((s) => `/${encodeURIComponent(s.slice(0, 300))}`),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD') as fc.Arbitrary<
          'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'OPTIONS' | 'HEAD'
        >,
        path,
        fc.option(junkQuery(['client_id', 'id_token_hint', 'post_logout_redirect_uri']), {
          nil: undefined,
        }),
        fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'text/plain'),
        fc.oneof(
          junkJson.map((v) => JSON.stringify(v) ?? ''),
          junkString,
        ),
        fc.option(fc.constantFrom('Bearer x', 'Bearer', 'Basic Og=='), { nil: undefined }),
        async (method, suffix, query, contentType, payload, auth) => {
          const withBody = method !== 'GET' && method !== 'HEAD';
          const request = {
            method,
            url: `/oauth2${suffix}${query ? `?${query}` : ''}`,
            headers: {
              ...(withBody ? { 'content-type': contentType } : {}),
              ...(auth ? { authorization: auth } : {}),
            },
            ...(withBody ? { payload } : {}),
          };
          const response = await send(request);
          if (response) expectNo500(response, request);
        },
      ),
      runs(31337, 200),
    );
  });
});

describe('the login and consent pages under random forms', () => {
  it('random posts to a live interaction: a page or redirect, never a 500', async () => {
    const browser = new CookieBrowser(gateway);
    const verifier = randomBytes(32).toString('base64url');
    const query = new URLSearchParams({
      client_id: clients[1]!.id,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: `openid offline_access ${SANDBOX}/.default`,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'xyz',
    });
    const start = await browser.get(`/oauth2/auth?${query}`);
    expect(start.statusCode).toBe(303);
    const interactionUrl = location(start);
    const page = await browser.get(interactionUrl);
    expect(page.statusCode).toBe(200);
    const csrf = csrfOf(page.body);
    const cookie = (start.cookies as { name: string; value: string }[])
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
    const form = fc.record(
      {
        csrf: fc.oneof({ weight: 3, arbitrary: fc.constant(csrf) }, { weight: 1, arbitrary: junkFormValue }),
        email: fc.oneof(fc.constant(email), junkFormValue),
        password: fc.oneof(fc.constant('wrong password'), junkFormValue),
        decision: fc.oneof(fc.constantFrom('approve', 'deny'), junkFormValue),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('login', 'confirm'),
        fc.oneof(
          { weight: 3, arbitrary: fc.constant(interactionUrl) },
          { weight: 1, arbitrary: junkString.map((s) => `/oauth2/interaction/${encodeURIComponent(s)}`) },
        ),
        form,
        rawFormJunk,
        fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain'),
        async (action, base, fields, raw, contentType) => {
          const request = {
            method: 'POST' as const,
            url: `${base}/${action}`,
            headers: { cookie, 'content-type': contentType },
            payload:
              contentType === 'application/json'
                ? JSON.stringify(fields)
                : formBody(fields as Record<string, string | string[] | undefined>, raw),
          };
          const response = await send(request);
          if (!response) return;
          expectNo500(response, request);
          // Our pages answer errors in problem+json; a path Fastify cannot route to them (a uid longer than
          // its parameter limit) falls through to the provider, which answers in the OAuth shape.
          if (response.statusCode >= 400) {
            const type = String(response.headers['content-type']);
            if (type.startsWith('application/problem+json')) expectProblem(response);
            else if (type.startsWith('application/json')) expectOAuthError(response);
            else expect(type).toMatch(/^text\/html/);
          }
        },
      ),
      runs(2718, 200),
    );
    // The interaction still works after all that: the right password signs in.
    const signIn = await browser.post(`${interactionUrl}/login`, { csrf, email, password: PASSWORD });
    expect([303, 429]).toContain(signIn.statusCode);
  });

  it('signed in: random consent posts and random authorization requests, never a 500', async () => {
    const browser = new CookieBrowser(gateway);
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const query = new URLSearchParams({
      client_id: clients[2]!.id,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: `openid ${SANDBOX}/.default`,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const start = await browser.get(`/oauth2/auth?${query}`);
    const loginPage = await browser.get(location(start));
    const loginUrl = /action="([^"]+\/login)"/.exec(loginPage.body)![1]!;
    let response = await browser.post(loginUrl, {
      csrf: csrfOf(loginPage.body),
      email: secondEmail,
      password: PASSWORD,
    });
    expect(response.statusCode).toBe(303);
    response = await browser.get(location(response));
    const consent = await browser.get(location(response));
    expect(consent.body).toContain('Allow');
    const confirmUrl = /action="([^"]+\/confirm)"/.exec(consent.body)![1]!;
    const csrf = csrfOf(consent.body);
    const jar = (browser as unknown as { jar: Map<string, string> }).jar;
    const cookie = () => [...jar].map(([n, v]) => `${n}=${v}`).join('; ');
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            csrf: fc.oneof(
              { weight: 3, arbitrary: fc.constant(csrf) },
              { weight: 1, arbitrary: junkFormValue },
            ),
            decision: fc.oneof(fc.constantFrom('deny', 'maybe', 'APPROVE'), junkFormValue),
          },
          { requiredKeys: [] },
        ),
        async (fields) => {
          const request = {
            method: 'POST' as const,
            url: confirmUrl,
            headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
            payload: formBody(fields as Record<string, string | string[] | undefined>),
          };
          const answer = await send(request);
          if (answer) expectNo500(answer, request);
        },
      ),
      runs(2719, 60),
    );
    // With the provider's session cookie: random authorization requests by a signed-in user.
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            client_id: clientId,
            response_type: fc.oneof(fc.constant('code'), junkString),
            redirect_uri: fc.oneof(fc.constant(REDIRECT), junkString),
            scope,
            resource,
            prompt: fc.oneof(fc.constantFrom('none', 'login', 'consent', 'none login'), junkString),
            max_age: fc.oneof(fc.constantFrom('0', '-1', '99999999999999999999'), junkString),
            code_challenge: fc.oneof(fc.constant(challenge), junkString),
            code_challenge_method: fc.constant('S256'),
            id_token_hint: junkString,
          },
          {
            requiredKeys: [
              'client_id',
              'response_type',
              'redirect_uri',
              'code_challenge',
              'code_challenge_method',
            ],
          },
        ),
        async (params) => {
          const request = {
            method: 'GET' as const,
            url: `/oauth2/auth?${formBody(params as Record<string, string>)}`,
            headers: { cookie: cookie() },
          };
          const answer = await send(request);
          if (!answer) return;
          expectNo500(answer, request);
          // Follow the provider into our interaction page once: it must render (or refuse) cleanly.
          const next = location(answer);
          if (answer.statusCode === 303 && next.startsWith('/oauth2/interaction/')) {
            const page = await send({ method: 'GET', url: next, headers: { cookie: cookie() } });
            if (page) expectNo500(page, { url: next });
          }
        },
      ),
      runs(2720, 100),
    );
  });
});
