import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSecretName } from '../../src/gateway/domain/redaction.ts';
import { registerClient } from '../../src/identity/operations/clients.ts';
import { loggerOptions, redactText, redactUrl } from '../../src/platform/http/log-redaction.ts';
import { PROJECT_ROOT } from '../../src/platform/paths.ts';
import { PortalClient, uniqueEmail } from '../portal/support/api.ts';
import { seedBusinessNumbers } from '../support/business-numbers.ts';
import { CookieBrowser, csrfOf, location } from '../support/cookie-browser.ts';
import { servicesWithEcho } from '../support/echo-service.ts';
import { subscriber, type TestGateway, testGateway } from '../support/runtime.ts';

/**
 * A whole session at LOG_LEVEL=debug, with the real logger writing to a buffer: keys in the header and
 * in `?subscription-key=`, a portal sign-up and sign-in, client credentials (basic and post), the
 * authorization code flow with PKCE and refresh, introspection and revocation, a push watchlist with
 * an authorization token. Then every secret used is looked for in the log, and none may be there.
 */
let gateway: TestGateway;
const lines: string[] = [];
const secrets = new Map<string, string>();
const remember = (what: string, value: string | undefined | null) => {
  expect(value, what).toBeTruthy();
  secrets.set(what, String(value));
};

const REDIRECT = 'http://localhost:7777/callback';
const SANDBOX_DEFAULT = 'https://api.business.govt.nz/sandbox/.default';
const ECHO = '/sandbox/tenancy-services/market-rent/v2';
const NZBN = '/sandbox/nzbn/v5';
const FIXTURE_COMPANY = '9429000001007';

let key: string;
let email: string;
let password: string;
let clientId: string;
let clientSecret: string;
let ccClientId: string;
let ccClientSecret: string;
let refreshToken: string;
let code: string;

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Every cookie set is a secret, except the interaction's id: it is the `{uid}` of the sign-in page's own
 * URL (oidc-provider's design), worthless without its signature cookie `_interaction.sig`, which is. */
const PUBLIC_COOKIES = new Set(['_interaction', '_interaction_resume']);
const cookieNames = new Set<string>();

function rememberCookies(what: string, response: LightMyRequestResponse) {
  for (const cookie of response.cookies as { name: string; value: string }[]) {
    cookieNames.add(cookie.name);
    if (cookie.value && !PUBLIC_COOKIES.has(cookie.name))
      remember(`${what} cookie ${cookie.name}`, cookie.value);
  }
}

beforeAll(async () => {
  gateway = await testGateway({
    env: { LOG_LEVEL: 'debug' },
    app: {
      logger: true,
      logStream: { write: (line: string) => void lines.push(line) },
      // Real business number routes (for the watchlist); the echo routes stand in for market rent.
      services: servicesWithEcho(['market-rent']),
    },
  });
  await seedBusinessNumbers(gateway, 10);
}, 120_000);
afterAll(() => gateway?.close());

/**
 * Follows the authorization server from /oauth2/auth to the client's redirect: signs in and consents
 * when asked. Returns the code, remembering every CSRF token and cookie on the way.
 */
async function codeFor(browser: CookieBrowser, verifier: string): Promise<string> {
  const query = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: `openid offline_access ${SANDBOX_DEFAULT}`,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'xyz',
  });
  let response = await browser.get(`/oauth2/auth?${query}`);
  for (let step = 0; step < 10; step++) {
    rememberCookies(`authorization server (step ${step})`, response);
    const next = String(response.headers.location ?? '');
    if (response.statusCode === 303 && next.startsWith(REDIRECT)) {
      const code = new URL(next).searchParams.get('code')!;
      remember(`authorization code ${secrets.size}`, code);
      return code;
    }
    if (response.statusCode === 303 || response.statusCode === 302) {
      response = await browser.get(location(response));
      continue;
    }
    expect(response.statusCode, response.body).toBe(200);
    const csrf = csrfOf(response.body);
    remember(`interaction CSRF ${secrets.size}`, csrf);
    const login = /action="([^"]+\/login)"/.exec(response.body)?.[1];
    const confirm = /action="([^"]+\/confirm)"/.exec(response.body)?.[1];
    response = login
      ? await browser.post(login, { csrf, email, password })
      : await browser.post(confirm!, { csrf, decision: 'approve' });
  }
  throw new Error('the authorization flow did not reach the redirect URI');
}

describe('a full session at LOG_LEVEL=debug', () => {
  it('signs up and signs in on the portal (password, session cookie, CSRF)', async () => {
    const portal = new PortalClient(gateway.app);
    email = uniqueEmail();
    password = `pw-${randomBytes(12).toString('hex')}`;
    remember('password', password);
    const signupPage = await portal.get('/portal/signup');
    remember('portal CSRF (sign-up)', csrfOf(signupPage.body));
    rememberCookies('portal anonymous', signupPage);
    const signedUp = await portal.signUp(email, password, 'Log Tester');
    rememberCookies('portal sign-up', signedUp);
    await portal.request({
      method: 'POST',
      url: '/portal/signout',
      form: { csrf: csrfOf((await portal.get('/portal/account')).body) },
    });
    const signinPage = await portal.get('/portal/signin');
    remember('portal CSRF (sign-in)', csrfOf(signinPage.body));
    const signedIn = await portal.signIn(email, password);
    expect(signedIn.statusCode).toBe(303);
    rememberCookies('portal sign-in', signedIn);
    const account = await portal.get('/portal/account');
    expect(account.statusCode).toBe(200);
    remember('portal CSRF (account)', csrfOf(account.body));
    // A wrong password is logged as a request, never as a field.
    const wrong = `wrong-${randomBytes(8).toString('hex')}`;
    remember('wrong password', wrong);
    expect((await new PortalClient(gateway.app).signIn(email, wrong)).statusCode).toBe(401);

    const userId = (
      await gateway.runtime.gateway.pool.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [
        email,
      ])
    ).rows[0]!.id;
    const sub = await subscriber(gateway, 'sandbox-market-rent');
    key = sub.primaryKey;
    remember('primary key', key);
    remember('secondary key', sub.secondaryKey);
    // The same user owns a key for the business number register (the watchlist below).
    const nzbnSub = await subscriber(gateway, 'sandbox-nzbn');
    remember('nzbn key', nzbnSub.primaryKey);
    secrets.set('nzbn key for calls', nzbnSub.primaryKey);
    // "Try it" makes an in-process call with the pasted key: that inner request is logged too.
    const tried = await portal.request({
      method: 'POST',
      url: '/portal/try',
      form: {
        csrf: csrfOf((await portal.get('/portal/try')).body),
        service: 'market-rent',
        method: 'GET',
        path: `/echo?subscription-key=${key}`,
        key,
        token: '',
        body: '',
      },
    });
    expect(tried.statusCode).toBe(200);

    const confidential = await registerClient(gateway.runtime.gateway.pool, {
      ownerUserId: userId,
      name: 'Accounting app',
      environment: 'sandbox',
      redirectUris: [REDIRECT],
      grantTypes: ['authorization_code', 'refresh_token'],
      public: false,
    });
    clientId = confidential.client.clientId;
    clientSecret = confidential.clientSecret!;
    remember('client secret (code flow)', clientSecret);
    const machine = await registerClient(gateway.runtime.gateway.pool, {
      ownerUserId: userId,
      name: 'Batch job',
      environment: 'sandbox',
      redirectUris: [],
      grantTypes: ['client_credentials'],
      public: false,
    });
    ccClientId = machine.client.clientId;
    ccClientSecret = machine.clientSecret!;
    remember('client secret (client credentials)', ccClientSecret);
  });

  it('calls with the key in the header, in ?subscription-key= (any case), and on an unknown path', async () => {
    const byHeader = await gateway.app.inject({
      url: `${ECHO}/echo`,
      headers: { 'Ocp-Apim-Subscription-Key': key },
    });
    expect(byHeader.statusCode).toBe(200);
    const byQuery = await gateway.app.inject({ url: `${ECHO}/echo?subscription-key=${key}&x=1` });
    expect(byQuery.statusCode).toBe(200);
    const upper = await gateway.app.inject({ url: `${ECHO}/echo?x=1&Subscription-Key=${key}` });
    expect(upper.statusCode).not.toBe(500);
    const unknown = await gateway.app.inject({ url: `/no/such/path?subscription-key=${key}` });
    expect(unknown.statusCode).toBe(404);
    const boom = await gateway.app.inject({ url: `${ECHO}/boom?subscription-key=${key}` });
    expect(boom.statusCode).toBe(500);
  });

  it('gets client-credentials tokens with client_secret_basic and client_secret_post', async () => {
    const viaBasic = await gateway.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM, authorization: basic(ccClientId, ccClientSecret) },
      payload: form({ grant_type: 'client_credentials', scope: SANDBOX_DEFAULT }),
    });
    expect(viaBasic.statusCode, viaBasic.body).toBe(200);
    remember('client-credentials token (basic)', viaBasic.json().access_token);
    const viaPost = await gateway.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: FORM,
      payload: form({
        grant_type: 'client_credentials',
        scope: SANDBOX_DEFAULT,
        client_id: ccClientId,
        client_secret: ccClientSecret,
      }),
    });
    expect(viaPost.statusCode, viaPost.body).toBe(200);
    remember('client-credentials token (post)', viaPost.json().access_token);
    const wrongSecret = `nope-${randomBytes(8).toString('hex')}`;
    remember('wrong client secret', wrongSecret);
    const refused = await gateway.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM, authorization: basic(ccClientId, wrongSecret) },
      payload: form({ grant_type: 'client_credentials' }),
    });
    expect(refused.statusCode).toBe(401);
  });

  it('runs the authorization code flow with PKCE, refresh, introspection and revocation', async () => {
    const browser = new CookieBrowser(gateway);
    const verifier = randomBytes(32).toString('base64url');
    remember('PKCE verifier', verifier);
    code = await codeFor(browser, verifier);

    const token = await gateway.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: FORM,
      payload: form({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: clientId,
        client_secret: clientSecret,
      }),
    });
    expect(token.statusCode, token.body).toBe(200);
    const first = token.json();
    remember('access token', first.access_token);
    remember('ID token', first.id_token);
    remember('refresh token', first.refresh_token);
    // A code is good once: the second try is refused (and revokes the grant's tokens).
    const again = await gateway.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM, authorization: basic(clientId, clientSecret) },
      payload: form({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      }),
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().error).toBe('invalid_grant');
    const revokedByReuse = await gateway.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM, authorization: basic(clientId, clientSecret) },
      payload: form({ grant_type: 'refresh_token', refresh_token: first.refresh_token }),
    });
    expect(revokedByReuse.statusCode).toBe(400);

    // A second authorization (the session is remembered; the grant was revoked, so consent again).
    const verifier2 = randomBytes(32).toString('base64url');
    remember('PKCE verifier 2', verifier2);
    const code2 = await codeFor(browser, verifier2);
    const second = (
      await gateway.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { ...FORM, authorization: basic(clientId, clientSecret) },
        payload: form({
          grant_type: 'authorization_code',
          code: code2,
          redirect_uri: REDIRECT,
          code_verifier: verifier2,
        }),
      })
    ).json();
    remember('access token 2', second.access_token);
    refreshToken = second.refresh_token;
    remember('refresh token 2', refreshToken);

    const me = await gateway.app.inject({
      url: `${ECHO}/me?subscription-key=${key}`,
      headers: { authorization: `Bearer ${second.access_token}` },
    });
    expect(me.statusCode).toBe(200);

    const refreshed = await gateway.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: FORM,
      payload: form({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: clientId,
        client_secret: clientSecret,
      }),
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    remember('refreshed access token', refreshed.json().access_token);
    if (refreshed.json().refresh_token) {
      refreshToken = refreshed.json().refresh_token;
      remember('rotated refresh token', refreshToken);
    }

    const introspect = (token: string) =>
      gateway.app.inject({
        method: 'POST',
        url: '/oauth2/token/introspection',
        headers: { ...FORM, authorization: basic(clientId, clientSecret) },
        payload: form({ token }),
      });
    const active = await introspect(refreshToken);
    expect(active.statusCode).toBe(200);
    expect(active.json()).toMatchObject({ active: true, client_id: clientId });
    expect(active.json()).not.toHaveProperty('jti');
    expect((await introspect(`x${refreshToken}`)).json()).toEqual({ active: false });

    const revoked = await gateway.app.inject({
      method: 'POST',
      url: '/oauth2/token/revocation',
      headers: FORM,
      payload: form({
        token: refreshToken,
        token_type_hint: 'refresh_token',
        client_id: clientId,
        client_secret: clientSecret,
      }),
    });
    expect(revoked.statusCode).toBe(200);
    expect((await introspect(refreshToken)).json()).toEqual({ active: false });
    const afterRevocation = await gateway.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM, authorization: basic(clientId, clientSecret) },
      payload: form({ grant_type: 'refresh_token', refresh_token: refreshToken }),
    });
    expect(afterRevocation.statusCode).toBe(400);
    expect(afterRevocation.json().error).toBe('invalid_grant');
  });

  it('creates and reads a push watchlist with an authorization token and a webhook secret', async () => {
    const authorizationToken = `Bearer wl-${randomBytes(12).toString('hex')}`;
    remember('watchlist authorization token', authorizationToken.slice('Bearer '.length));
    const nzbnKey = secrets.get('nzbn key for calls')!;
    const created = await gateway.app.inject({
      method: 'POST',
      url: `${NZBN}/watchlists?subscription-key=${nzbnKey}`,
      payload: {
        name: 'Suppliers',
        channel: 'PUSH',
        pushEndpoint: `https://receiver.example.com/hooks?token=hook-${randomBytes(6).toString('hex')}`,
        authorizationToken,
        adminEmailAddress: 'admin@example.com',
        changeEventTypes: ['ENTITY_NAME'],
        nzbns: [FIXTURE_COMPANY],
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    remember('webhook secret', created.json().webhookSecret);
    const read = await gateway.app.inject({
      url: `${NZBN}/watchlists/${created.json().watchlistId}`,
      headers: { 'Ocp-Apim-Subscription-Key': nzbnKey },
    });
    expect(read.statusCode).toBe(200);
  });

  it('left none of the secrets it used in the log', () => {
    const log = lines.join('');
    // The log is really there, at debug: every request twice, with the censored query string.
    expect(log).toContain('"msg":"incoming request"');
    expect(log).toContain('"msg":"request completed"');
    expect(log).toContain('subscription-key=[REDACTED]');
    expect(log).toContain('Subscription-Key=[REDACTED]');
    expect(log).toContain('/oauth2/token');
    expect(log).toContain('/portal/signin');
    expect(log).toContain('an unexpected failure with a secret stack');
    expect(secrets.size).toBeGreaterThan(25);
    expect([...cookieNames].sort()).toEqual(
      expect.arrayContaining(['_interaction.sig', '_session', '_session.sig', 'rsg_portal']),
    );
    const found = [...secrets].filter(([, value]) => log.includes(value)).map(([what]) => what);
    expect(found).toEqual([]);
    // The values are also absent URL-encoded and base64-encoded (as in a Basic header).
    const encoded = [...secrets].filter(
      ([, value]) =>
        log.includes(encodeURIComponent(value)) ||
        log.includes(Buffer.from(`${clientId}:${value}`).toString('base64')) ||
        log.includes(Buffer.from(`${ccClientId}:${value}`).toString('base64')),
    );
    expect(encoded.map(([what]) => what)).toEqual([]);
  });
});

const exchange = (code: string, verifier: string) =>
  gateway.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { ...FORM, authorization: basic(clientId, clientSecret) },
    payload: form({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    }),
  });

describe('hashed storage of codes and tokens', () => {
  const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
  const pool = () => gateway.runtime.gateway.pool;

  it('holds no plaintext authorization code or refresh token, only their hashes', async () => {
    const values = [...secrets].filter(([what]) => /^authorization code|refresh token/.test(what));
    expect(values.length).toBeGreaterThanOrEqual(3);
    for (const [what, value] of values) {
      const plain = await pool().query(
        `SELECT model FROM oidc_payloads
          WHERE id = $1 OR payload::text LIKE '%' || $1 || '%' OR grant_id = $1 OR uid = $1`,
        [value],
      );
      expect(plain.rows, what).toEqual([]);
    }
    // A fresh code and refresh token are there, under their hashes (the code consumed).
    const verifier = randomBytes(32).toString('base64url');
    const fresh = await codeFor(new CookieBrowser(gateway), verifier);
    const tokens = (await exchange(fresh, verifier)).json();
    remember('refresh token (storage)', tokens.refresh_token);
    const stored = await pool().query(
      'SELECT model, consumed_at IS NOT NULL AS consumed FROM oidc_payloads WHERE id = ANY($1) ORDER BY model',
      [[sha256(fresh), sha256(tokens.refresh_token)]],
    );
    expect(stored.rows).toEqual([
      { model: 'AuthorizationCode', consumed: true },
      { model: 'RefreshToken', consumed: false },
    ]);
    for (const value of [fresh, tokens.refresh_token]) {
      const plain = await pool().query('SELECT 1 FROM oidc_payloads WHERE id = $1 OR payload::text LIKE $2', [
        value,
        `%${value}%`,
      ]);
      expect(plain.rowCount).toBe(0);
    }
    // Nothing in the table holds any secret of the session.
    const dump = JSON.stringify((await pool().query('SELECT * FROM oidc_payloads')).rows);
    const leaked = [...secrets]
      .filter(([what]) => !what.includes('cookie'))
      .filter(([, value]) => dump.includes(value))
      .map(([what]) => what);
    expect(leaked).toEqual([]);
  });

  it('converts rows stored before hashing in place, so issued refresh tokens keep working', async () => {
    // A fresh refresh token, then its row put back the way it was stored before the change.
    const verifier = randomBytes(32).toString('base64url');
    const fresh = await codeFor(new CookieBrowser(gateway), verifier);
    const tokens = (await exchange(fresh, verifier)).json();
    const legacy = tokens.refresh_token as string;
    expect(legacy).toBeTruthy();
    const reverted = await pool().query(
      `UPDATE oidc_payloads SET id = $1, payload = payload || jsonb_build_object('jti', $1::text)
        WHERE model = 'RefreshToken' AND id = $2`,
      [legacy, sha256(legacy)],
    );
    expect(reverted.rowCount).toBe(1);
    const sql = await readFile(
      path.join(PROJECT_ROOT, 'src/identity/migrations/004_hashed_oauth_credentials.sql'),
      'utf8',
    );
    await pool().query(sql);
    const row = await pool().query(
      `SELECT payload FROM oidc_payloads WHERE model = 'RefreshToken' AND id = $1`,
      [sha256(legacy)],
    );
    expect(row.rows).toHaveLength(1);
    expect(row.rows[0].payload).not.toHaveProperty('jti');
    const refreshed = await gateway.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM, authorization: basic(clientId, clientSecret) },
      payload: form({ grant_type: 'refresh_token', refresh_token: legacy }),
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
  });
});

describe('redaction rules', () => {
  it('censors secret query parameters by name, any case, percent-encoded, and leaves the rest', () => {
    expect(redactUrl('/a?subscription-key=k1&page=2')).toBe('/a?subscription-key=[REDACTED]&page=2');
    expect(redactUrl('/a?SUBSCRIPTION-KEY=k1')).toBe('/a?SUBSCRIPTION-KEY=[REDACTED]');
    expect(redactUrl('/a?%73ubscription-key=k1')).toBe('/a?%73ubscription-key=[REDACTED]');
    expect(redactUrl('/cb?code=c&state=s')).toBe('/cb?code=[REDACTED]&state=s');
    expect(redactUrl('/t?refresh_token=r&client_secret=s&client_assertion=a&password=p&token=t')).toBe(
      '/t?refresh_token=[REDACTED]&client_secret=[REDACTED]&client_assertion=[REDACTED]&password=[REDACTED]&token=[REDACTED]',
    );
    expect(redactUrl('/a?%zz=1&search=x')).toBe('/a?%zz=1&search=x');
    expect(redactUrl('/plain/path')).toBe('/plain/path');
  });

  it('censors parameters and credentials quoted in free text', () => {
    expect(redactText('GET /a?subscription-key=abc failed')).toBe(
      'GET /a?subscription-key=[REDACTED] failed',
    );
    expect(redactText('authorization: Bearer eyJ.x.y')).toBe('authorization: Bearer [REDACTED]');
    expect(redactText('{"password":"hunter2","name":"n"}')).toBe('{"password":"[REDACTED]","name":"n"}');
  });

  it('follows the secret names the request inspector follows', () => {
    for (const name of [
      'financingStatementPin',
      'X-Amz-Signature',
      'webhook_secret',
      'apiKey',
      'debtor-pin',
    ]) {
      expect(isSecretName(name), name).toBe(true);
      expect(redactUrl(`/a?${name}=v&page=2`)).toBe(`/a?${name}=[REDACTED]&page=2`);
    }
    // A URL quoted under another name loses its signature all the same.
    expect(redactText('url: https://h/f?expires=1&signature=abc')).toBe(
      'url: https://h/f?expires=1&signature=[REDACTED]',
    );
  });

  it('censors secret headers and fields that a log object carries, and keeps the rest', () => {
    const out: string[] = [];
    const { stream, ...options } = loggerOptions('info', { write: (line: string) => void out.push(line) });
    const log = pino(options, stream);
    log.info(
      {
        headers: { authorization: 'Basic QQ==', cookie: 'rsg_portal=abc', 'ocp-apim-subscription-key': 'k' },
        request: { headers: { 'set-cookie': ['a=b'] }, body: { password: 'p', code: 'c', name: 'kept' } },
        body: { key: 'k2', client_secret: 's', refresh_token: 'r' },
        query: { 'subscription-key': 'k3', page: '2' },
        password: 'p2',
        code: 'ECONNRESET',
        err: Object.assign(new Error('GET /x?subscription-key=k4 failed'), { code: 'E_X' }),
        req: { method: 'GET', url: '/x?code=c2&page=1', headers: { authorization: 'Bearer t' } },
      },
      'line',
    );
    const line = JSON.parse(out.join(''));
    expect(line.headers).toEqual({
      authorization: '[REDACTED]',
      cookie: '[REDACTED]',
      'ocp-apim-subscription-key': '[REDACTED]',
    });
    expect(line.request).toEqual({
      headers: { 'set-cookie': '[REDACTED]' },
      body: { password: '[REDACTED]', code: '[REDACTED]', name: 'kept' },
    });
    expect(line.body).toEqual({
      key: '[REDACTED]',
      client_secret: '[REDACTED]',
      refresh_token: '[REDACTED]',
    });
    expect(line.query).toEqual({ 'subscription-key': '[REDACTED]', page: '2' });
    expect(line.password).toBe('[REDACTED]');
    expect(line.code).toBe('ECONNRESET');
    expect(line.err.code).toBe('E_X');
    expect(line.err.message).toBe('GET /x?subscription-key=[REDACTED] failed');
    expect(line.err.stack).not.toContain('k4');
    // The request serializer writes method and censored URL, never the headers.
    expect(line.req).toMatchObject({ method: 'GET', url: '/x?code=[REDACTED]&page=1' });
    expect(line.req).not.toHaveProperty('headers');
  });
});
