import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubscription } from '../../src/gateway/operations/subscriptions.ts';
import { updateProduct } from '../../src/gateway/store/products.ts';
import { registerClient } from '../../src/identity/operations/clients.ts';
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
import { csrfOf, PortalClient, signedInUser } from './support/api.ts';

/**
 * "No 500s" for the portal's form posts (and the GET pages that read a query): random fields, repeated
 * fields, unicode, NUL, very long values, JSON and other bodies, bad CSRF tokens and cookies. Every
 * answer is a page (2xx or 4xx, HTML) or a redirect, and a refused form writes nothing.
 */
let gateway: TestGateway;
let user: Awaited<ReturnType<typeof signedInUser>>;
let operator: Awaited<ReturnType<typeof signedInUser>>;
let userCsrf: string;
let operatorCsrf: string;
let subscriptionId: string;
let primaryKey: string;
let clientId: string;
const pendingIds: string[] = [];

const PRODUCTS = ['sandbox-nzbn', 'production-nzbn', 'sandbox-market-rent', 'production-market-rent'];

beforeAll(async () => {
  gateway = await testGateway();
  const pool = gateway.runtime.gateway.pool;
  for (const id of PRODUCTS) await updateProduct(pool, id, { rateLimitPerMinute: 100_000, quota: null });
  user = await signedInUser(gateway);
  operator = await signedInUser(gateway, { operator: true });
  userCsrf = csrfOf((await user.client.get('/portal/subscriptions')).body);
  operatorCsrf = csrfOf((await operator.client.get('/portal/subscriptions')).body);
  const created = await createSubscription(pool, {
    userId: user.user.id,
    productId: 'sandbox-nzbn',
    state: 'active',
  });
  subscriptionId = created.subscriptionId;
  primaryKey = created.primaryKey;
  clientId = (
    await registerClient(pool, {
      ownerUserId: user.user.id,
      name: 'Mine',
      environment: 'sandbox',
      redirectUris: [],
      grantTypes: ['client_credentials'],
      public: false,
    })
  ).client.clientId;
  for (let i = 0; i < 3; i++) {
    const requester = await subscriber(gateway, 'production-nzbn', { state: 'requested' });
    pendingIds.push(requester.subscriptionId);
  }
});
afterAll(() => gateway?.close());

type Body = Record<string, string | string[] | undefined>;

/** Posts a form as `who` from a random address (the sign-up throttle is per address). */
async function post(
  url: string,
  body: Body,
  options: { cookie?: string; contentType?: string; raw?: string } = {},
): Promise<LightMyRequestResponse | undefined> {
  const contentType = options.contentType ?? 'application/x-www-form-urlencoded';
  const payload = contentType.startsWith('application/json')
    ? JSON.stringify(body)
    : formBody(body, options.raw);
  try {
    return await gateway.app.inject({
      method: 'POST',
      url,
      remoteAddress: `10.${randomBytes(3).join('.')}`,
      headers: { 'content-type': contentType, ...(options.cookie ? { cookie: options.cookie } : {}) },
      payload,
    });
  } catch (error) {
    // light-my-request refuses header values Node would never send; not the server's doing.
    if (error instanceof TypeError && /header|character/i.test(error.message)) return undefined;
    throw error;
  }
}

/** A page (HTML, 2xx or 4xx) or a redirect; never a 500. */
function checkPage(response: LightMyRequestResponse | undefined, request: unknown) {
  if (!response) return;
  expectNo500(response, request);
  if (response.statusCode >= 300 && response.statusCode < 400) {
    expect(String(response.headers.location)).toMatch(/^\/portal/);
  } else if (String(response.headers['content-type']).startsWith('application/problem+json')) {
    // What the router refuses before the portal sees the request (broken %-encoding, a path segment
    // longer than a parameter may be) is answered by src/app.ts in problem+json.
    expect([400, 414]).toContain(response.statusCode);
    expectProblem(response);
  } else {
    expect(response.headers['content-type']).toMatch(/^text\/html/);
  }
}

const count = async (table: string) =>
  Number((await gateway.runtime.gateway.pool.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);

/** The valid values mostly, junk now and then. */
const mostly = <T>(
  valid: fc.Arbitrary<T>,
  junk: fc.Arbitrary<string | string[] | undefined> = junkFormValue,
) => fc.oneof({ weight: 5, arbitrary: valid }, { weight: 1, arbitrary: junk });

/** A CSRF token: the right one mostly, or junk. */
const csrfFor = (right: () => string) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constant(undefined).map(right) },
    { weight: 1, arbitrary: junkFormValue },
  );

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/x-www-form-urlencoded') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'application/json',
      'text/plain',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded; charset=latin1',
    ),
  },
);

const email = fc.oneof(
  fc.constant(undefined).map(() => `${randomBytes(5).toString('hex')}@example.test`),
  fc.constantFrom(
    'a@b',
    'A@B.C',
    '@',
    'a@',
    'a@@b',
    ' a@b.c ',
    'İ@x.y',
    'a\u0000@b.c',
    `${'a'.repeat(250)}@b.cc`,
  ),
  junkString.map((s) => `${s}@example.test`),
  junkFormValue,
);
const password = fc.oneof(
  fc.constantFrom(
    'correct horse battery',
    'short',
    'x'.repeat(200),
    'x'.repeat(201),
    '          ',
    '\u0000'.repeat(12),
  ),
  junkFormValue,
);
const next = fc.oneof(
  fc.constantFrom('/portal/clients', '//evil.example', 'javascript:alert(1)', '/\\evil'),
  junkFormValue,
);

describe('portal forms under random input', () => {
  it('sign-up: a page or a redirect, and no account unless it succeeded', async () => {
    const anonymous = new PortalClient(gateway.app);
    let csrf = csrfOf((await anonymous.get('/portal/signup')).body);
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          { email, name: fc.oneof(fc.constant('Ada'), junkFormValue), password, next },
          { requiredKeys: [] },
        ),
        csrfFor(() => csrf),
        contentType,
        rawFormJunk,
        async (fields, token, type, raw) => {
          const before = await count('users');
          const request = { url: '/portal/signup', body: { ...fields, csrf: token }, type, raw };
          const response = await post(request.url, request.body, {
            cookie: anonymous.cookieHeader,
            contentType: type,
            raw,
          });
          checkPage(response, request);
          if (!response) return;
          if (response.statusCode >= 400) expect(await count('users')).toBe(before);
          if (response.statusCode === 303) {
            // Signed up and signed in: start again as a new visitor.
            anonymous.cookies.clear();
            csrf = csrfOf((await anonymous.get('/portal/signup')).body);
          }
        },
      ),
      runs(1001, 220),
    );
  });

  it('sign-in: a page or a redirect', async () => {
    const anonymous = new PortalClient(gateway.app);
    const csrf = csrfOf((await anonymous.get('/portal/signin')).body);
    await fc.assert(
      fc.asyncProperty(
        fc.record({ email: fc.oneof(fc.constant(user.email), email), password, next }, { requiredKeys: [] }),
        csrfFor(() => csrf),
        contentType,
        async (fields, token, type) => {
          const request = { url: '/portal/signin', body: { ...fields, csrf: token }, type };
          checkPage(
            await post(request.url, request.body, { cookie: anonymous.cookieHeader, contentType: type }),
            request,
          );
        },
      ),
      runs(1002, 120),
    );
  });

  it('subscriptions, keys, OAuth clients, account, try-it: pages, and nothing written on refusal', async () => {
    const form = fc.oneof(
      fc.record({
        url: fc.constant('/portal/subscriptions'),
        body: fc.record({ productId: mostly(fc.constantFrom(...PRODUCTS)) }, {}),
        table: fc.constant('subscriptions'),
      }),
      fc.record({
        url: fc.oneof(
          { weight: 3, arbitrary: fc.constant(`/portal/subscriptions/${subscriptionId}/keys`) },
          {
            weight: 1,
            arbitrary: fc.constant(undefined).map(() => `/portal/subscriptions/${randomUUID()}/keys`),
          },
          { weight: 1, arbitrary: fc.constant(`/portal/subscriptions/${pendingIds[0]}/keys`) },
          {
            weight: 1,
            arbitrary: junkString.map((s) => `/portal/subscriptions/${encodeURIComponent(s)}/keys`),
          },
        ),
        body: fc.record(
          { slot: mostly(fc.constantFrom('primary', 'secondary', 'both', 'PRIMARY', 'none')) },
          {},
        ),
        table: fc.constant('subscription_keys'),
      }),
      fc.record({
        url: fc.constant('/portal/clients'),
        body: fc.record(
          {
            name: mostly(fc.constant('My app')),
            environment: mostly(fc.constantFrom('sandbox', 'production', 'staging')),
            redirectUris: mostly(
              fc.constantFrom(
                'https://app.example/cb',
                'https://app.example/cb',
                'http://127.0.0.1:8080/cb',
                'http://localhost:3000/cb\nhttps://a.example/x',
                'http://evil.example/cb',
                'https://a.example/#frag',
                'com.example.app:/cb',
                'https://a.example/\u0000',
                'https://exa mple.com',
                Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`).join('\n'),
              ),
            ),
            grants: mostly(
              fc.oneof(
                {
                  weight: 4,
                  arbitrary: fc.subarray(['client_credentials', 'authorization_code', 'refresh_token']),
                },
                {
                  weight: 1,
                  arbitrary: fc.subarray([
                    'client_credentials',
                    'implicit',
                    'password',
                    'CLIENT_CREDENTIALS',
                  ]),
                },
              ),
            ),
            type: mostly(fc.constantFrom('public', 'confidential')),
          },
          {},
        ),
        table: fc.constant('oauth_clients'),
      }),
      fc.record({
        url: fc.oneof(
          { weight: 3, arbitrary: fc.constant(`/portal/clients/${clientId}/secret`) },
          { weight: 1, arbitrary: junkString.map((s) => `/portal/clients/${encodeURIComponent(s)}/secret`) },
        ),
        body: fc.constant({}),
        table: fc.constant('oauth_clients'),
      }),
      fc.record({
        url: fc.constant('/portal/account/password'),
        body: fc.record({ current: mostly(fc.constant(user.password), password), password }, {}),
        table: fc.constant('users'),
      }),
      fc.record({
        url: fc.constant('/portal/try'),
        body: fc.record(
          {
            service: mostly(fc.constantFrom('nzbn', 'market-rent', 'iponz', 'ppsr', 'disclose', 'unknown')),
            method: mostly(fc.constantFrom('GET', 'post', 'PUT', 'DELETE', 'TRACE', 'CONNECT')),
            path: mostly(
              fc.oneof(
                fc.constantFrom(
                  '/',
                  '/entities?search-term=acme',
                  '/../../portal',
                  '/%2e%2e/x',
                  '//x',
                  '/a#b',
                  '/%00',
                ),
                junkString.map((j) => `/entities/${encodeURIComponent(j.slice(0, 200))}`),
                junkString.map(
                  (j) => `/entities?search-term=${encodeURIComponent(j.slice(0, 200))}&page-size=${j.length}`,
                ),
              ),
            ),
            key: mostly(fc.constant(undefined).map(() => primaryKey)),
            token: mostly(fc.constantFrom('', '', 'a.b.c', 'x y')),
            body: fc.oneof(
              junkJson.map((v) => JSON.stringify(v) ?? ''),
              junkFormValue,
            ),
          },
          {},
        ),
        table: fc.constant('subscriptions'),
      }),
      fc.record({
        url: fc.constant('/portal/sandbox/organisations'),
        body: fc.record(
          {
            identifier: mostly(
              fc.oneof(
                fc.constantFrom('my-org', 'has space', 'ümlaut', 'x'.repeat(65), ''),
                fc.stringMatching(/^[a-z0-9._-]{1,20}$/),
                junkString,
              ),
            ),
            name: mostly(junkString),
          },
          {},
        ),
        table: fc.constant('organisations'),
      }),
      fc.record({
        url: fc.constant('/portal/access-requests'),
        body: fc.record(
          {
            kind: mostly(fc.constantFrom('organisation', 'authority', 'staging', 'AUTHORITY')),
            subject: mostly(fc.oneof(fc.constantFrom('acme', '9429000003025', '12345', ''), junkString)),
            name: mostly(junkString),
          },
          {},
        ),
        table: fc.constant('portal_access_requests'),
      }),
      fc.record({
        url: fc.constant('/portal/sandbox/authorities'),
        body: fc.constant({}),
        table: fc.constant('authorities'),
      }),
      fc.record({
        url: fc.constant('/portal/signout'),
        body: fc.constant({}),
        table: fc.constant('users'),
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        form,
        csrfFor(() => userCsrf),
        contentType,
        fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: rawFormJunk }),
        async (chosen, token, type, raw) => {
          // Sign-out would end the session the rest of the run needs: post it with a junk token only.
          const csrf = chosen.url === '/portal/signout' ? 'not-the-token' : token;
          const before = await count(chosen.table);
          const request = { url: chosen.url, body: { ...chosen.body, csrf }, type, raw };
          const response = await post(chosen.url, request.body as Body, {
            cookie: user.client.cookieHeader,
            contentType: type,
            raw,
          });
          checkPage(response, request);
          // A regenerated primary key replaces the one try-it sends.
          const shown = response && /id="key-primary"[^>]*>([0-9a-f]{64})</.exec(response.body);
          if (shown && chosen.url.endsWith(`${subscriptionId}/keys`)) primaryKey = shown[1]!;
          if (response && response.statusCode >= 400 && chosen.table !== 'users') {
            expect(await count(chosen.table)).toBe(before);
          }
        },
      ),
      runs(1003, 450),
    );
    // Still signed in.
    expect((await user.client.get('/portal/subscriptions')).statusCode).toBe(200);
  });

  it('operator approvals: pages or redirects, and a refused decision changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.constantFrom(...pendingIds).map((id) => `/portal/operator/approvals/${id}`),
          fc.constant(undefined).map(() => `/portal/operator/approvals/${randomUUID()}`),
          junkString.map((s) => `/portal/operator/approvals/${encodeURIComponent(s)}`),
        ),
        fc.record(
          {
            decision: mostly(fc.constantFrom('approve', 'reject', 'maybe')),
            reason: junkFormValue,
          },
          { requiredKeys: [] },
        ),
        csrfFor(() => operatorCsrf),
        fc.boolean(),
        async (url, fields, token, asOperator) => {
          const states = async () =>
            (
              await gateway.runtime.gateway.pool.query(
                "SELECT string_agg(id || state, ',' ORDER BY id) AS s FROM subscriptions WHERE state <> 'active'",
              )
            ).rows[0].s;
          const before = await states();
          const request = { url, body: { ...fields, csrf: asOperator ? token : userCsrf }, asOperator };
          const response = await post(url, request.body, {
            cookie: (asOperator ? operator : user).client.cookieHeader,
          });
          checkPage(response, request);
          if (response && response.statusCode >= 400) expect(await states()).toBe(before);
        },
      ),
      runs(1004, 120),
    );
  });

  it('any portal path, method, cookie and body: never a 500', async () => {
    const path = fc.oneof(
      fc.constantFrom(
        '/portal/signup',
        '/portal/signin',
        '/portal/signout',
        '/portal/subscriptions',
        `/portal/subscriptions/${subscriptionId}/keys`,
        `/portal/subscriptions/${subscriptionId}/usage`,
        '/portal/clients',
        '/portal/account/password',
        '/portal/try',
        '/portal/operator/approvals',
        '/portal/operator/outbox',
        '/portal/products/sandbox-nzbn',
        '/portal/products',
        '/portal/assets/portal.css',
        '/portal/',
      ),
      junkString.map((s) => `/portal/${encodeURIComponent(s.slice(0, 300))}`),
    );
    const cookie = fc.oneof(
      fc.constant(undefined).map(() => user.client.cookieHeader),
      fc.constantFrom(
        'rsg_portal=',
        'rsg_portal=%',
        'rsg_portal=%zz; rsg_portal=x',
        `rsg_portal=${'A'.repeat(43)}`,
        '=;=;',
      ),
      junkString.map((s) => `rsg_portal=${s.replace(/[\r\n;]/g, '')}`),
      fc.constant(undefined),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD') as fc.Arbitrary<
          'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD'
        >,
        path,
        fc.option(junkQuery(['next', 'days', 'service', 'path', 'decided']), { nil: undefined }),
        cookie,
        contentType,
        fc.oneof(
          junkJson.map((v) => JSON.stringify(v) ?? ''),
          junkString,
        ),
        async (method, base, query, cookieHeader, type, payload) => {
          const withBody = method !== 'GET' && method !== 'HEAD';
          const request = {
            method,
            url: `${base}${query ? `?${query}` : ''}`,
            headers: {
              ...(cookieHeader ? { cookie: cookieHeader } : {}),
              ...(withBody ? { 'content-type': type } : {}),
            },
            ...(withBody ? { payload } : {}),
          };
          let response: LightMyRequestResponse;
          try {
            response = await gateway.app.inject(request);
          } catch (error) {
            if (error instanceof TypeError && /header|character/i.test(error.message)) return;
            throw error;
          }
          expectNo500(response, request);
        },
      ),
      runs(1005, 300),
    );
    expect((await user.client.get('/portal/subscriptions')).statusCode).toBe(200);
  });
});
