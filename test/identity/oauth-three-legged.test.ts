import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantAuthority } from '../../src/identity/operations/authorities.ts';
import { registerClient } from '../../src/identity/operations/clients.ts';
import { setPassword } from '../../src/identity/operations/users.ts';
import { CookieBrowser, csrfOf, location } from '../support/cookie-browser.ts';
import { servicesWithEcho } from '../support/echo-service.ts';
import { subscriber, type TestGateway, testGateway } from '../support/runtime.ts';

/** A user signs in and consents through our pages; the app gets a code, then a token for that user. */
let gateway: TestGateway;
let key: string;
let clientId: string;
let clientSecret: string;
let email: string;
const REDIRECT = 'http://localhost:7777/callback';
const SANDBOX_DEFAULT = 'https://api.business.govt.nz/sandbox/.default';
const NZBN = '9429041925676';

beforeAll(async () => {
  gateway = await testGateway({ app: { services: servicesWithEcho(['nzbn']) } });
  const sub = await subscriber(gateway, 'sandbox-nzbn');
  key = sub.primaryKey;
  const pool = gateway.runtime.gateway.pool;
  await setPassword(pool, sub.user.id, 'correct horse battery');
  await grantAuthority(
    pool,
    { environment: 'sandbox', service: 'nzbn', kind: 'entity', id: NZBN },
    { userId: sub.user.id },
  );
  const registered = await registerClient(pool, {
    ownerUserId: sub.user.id,
    name: 'Accounting app',
    environment: 'sandbox',
    redirectUris: [REDIRECT],
    grantTypes: ['authorization_code', 'refresh_token'],
    public: false,
  });
  clientId = registered.client.clientId;
  clientSecret = registered.clientSecret!;
  email = sub.user.email;
});
afterAll(() => gateway?.close());

async function authorize(browser: CookieBrowser, email: string, password: string) {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: `openid offline_access ${SANDBOX_DEFAULT}`,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'xyz',
  });
  let response = await browser.get(`/oauth2/auth?${query}`);
  expect(response.statusCode).toBe(303);
  const page = await browser.get(location(response));
  expect(page.body).toContain('<h1 id="title">Sign in</h1>');
  const loginUrl = /action="([^"]+\/login)"/.exec(page.body)![1]!;
  response = await browser.post(loginUrl, { csrf: csrfOf(page.body), email, password });
  return { response, verifier, loginUrl, page };
}

describe('three-legged sign-in', () => {
  it('login → consent → code → token that carries the user and their authority', async () => {
    const browser = new CookieBrowser(gateway);
    let { response, verifier } = await authorize(browser, email, 'correct horse battery');
    expect(response.statusCode).toBe(303);
    response = await browser.get(location(response));
    const consent = await browser.get(location(response));
    expect(consent.body).toContain('Allow Accounting app to act for you?');
    const confirmUrl = /action="([^"]+\/confirm)"/.exec(consent.body)![1]!;
    response = await browser.post(confirmUrl, { csrf: csrfOf(consent.body), decision: 'approve' });
    response = await browser.get(location(response));
    expect(response.statusCode).toBe(303);
    const callback = new URL(String(response.headers.location));
    expect(callback.origin + callback.pathname).toBe(REDIRECT);
    expect(callback.searchParams.get('state')).toBe('xyz');
    const code = callback.searchParams.get('code')!;

    const token = await gateway.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: clientId,
        client_secret: clientSecret,
      }).toString(),
    });
    expect(token.statusCode).toBe(200);
    const { access_token: accessToken, refresh_token: refreshToken } = token.json();
    const claims = JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString());
    expect(claims.aud).toBe('https://api.business.govt.nz/sandbox');
    expect(claims.authorities).toEqual([`nzbn:entity:${NZBN}`]);

    const me = await gateway.app.inject({
      url: '/sandbox/nzbn/v5/me',
      headers: { 'Ocp-Apim-Subscription-Key': key, authorization: `Bearer ${accessToken}` },
    });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toEqual({ userId: claims.sub, mayActOnFixture: true });

    const refreshed = await gateway.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      },
      payload: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString(),
    });
    expect(refreshed.statusCode).toBe(200);
    expect(refreshed.json().access_token).toBeTruthy();
  });

  it('a three-legged operation refuses a key alone and a client-credentials token', async () => {
    const keyOnly = await gateway.app.inject({
      url: '/sandbox/nzbn/v5/me',
      headers: { 'Ocp-Apim-Subscription-Key': key },
    });
    expect(keyOnly.statusCode).toBe(401);
    expect(keyOnly.json()).toEqual({
      statusCode: 401,
      message: 'This operation needs a three-legged OAuth token: an end user must sign in and consent.',
    });
  });

  it('a wrong password is refused, and repeated failures are throttled', async () => {
    const browser = new CookieBrowser(gateway);
    const first = await authorize(browser, email, 'wrong password!!');
    expect(first.response.statusCode).toBe(401);
    expect(first.response.body).toContain('The email or password is wrong.');
    let last = first.response;
    for (let i = 0; i < 10; i++) {
      last = await browser.post(first.loginUrl, {
        csrf: csrfOf(first.page.body),
        email,
        password: 'wrong password!!',
      });
    }
    expect(last.statusCode).toBe(429);
    expect(last.body).toContain('Too many attempts');
  });

  it('a login form without its CSRF token is refused', async () => {
    const browser = new CookieBrowser(gateway);
    const { loginUrl } = await authorize(browser, email, 'irrelevant-password');
    const forged = await browser.post(loginUrl, { csrf: 'forged', email, password: 'correct horse battery' });
    expect(forged.statusCode).toBe(403);
  });

  it('an unregistered redirect URI is refused, exactly matched', async () => {
    const query = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: `${REDIRECT}/../evil`,
      scope: 'openid',
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
    });
    const response = await gateway.app.inject({ url: `/oauth2/auth?${query}` });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('redirect_uri');
  });
});

describe('x-organisation', () => {
  it('names an organisation the caller belongs to, or is refused with 403', async () => {
    const { addOrganisation } = await import('../../src/identity/operations/organisations.ts');
    const { addMember } = await import('../../src/identity/store/memberships.ts');
    const pool = gateway.runtime.gateway.pool;
    const member = await addOrganisation(pool, {
      environment: 'sandbox',
      identifier: 'FUND-MGR-1',
      name: 'Fund manager',
    });
    await addOrganisation(pool, { environment: 'sandbox', identifier: 'OTHER-ORG', name: 'Other' });
    const user = (await pool.query('SELECT id FROM users WHERE email = $1', [email])).rows[0].id;
    await addMember(pool, member.id, user, 'member');
    const call = (organisation: string) =>
      gateway.app.inject({
        url: '/sandbox/nzbn/v5/echo',
        headers: { 'Ocp-Apim-Subscription-Key': key, 'x-organisation': organisation },
      });
    const ok = await call('FUND-MGR-1');
    expect(ok.statusCode).toBe(200);
    expect(ok.json().caller.organisationId).toBe(member.id);
    for (const refused of [await call('OTHER-ORG'), await call('NO-SUCH-ORG')]) {
      expect(refused.statusCode).toBe(403);
      expect(refused.json().message).toMatch(/^The caller does not act for the organisation/);
    }
  });
});
