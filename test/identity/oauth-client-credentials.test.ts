import { generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerClient } from '../../src/identity/operations/clients.ts';
import { loadSigningKeys, rotateSigningKey } from '../../src/identity/operations/signing-keys.ts';
import { servicesWithEcho } from '../support/echo-service.ts';
import { subscriber, type TestGateway, testGateway } from '../support/runtime.ts';

type SigningKey = Parameters<SignJWT['sign']>[0];

let gateway: TestGateway;
let key: string;
let clientId: string;
let clientSecret: string;
const SANDBOX = 'https://api.business.govt.nz/sandbox';

beforeAll(async () => {
  gateway = await testGateway({ app: { services: servicesWithEcho(['nzbn', 'market-rent']) } });
  const sub = await subscriber(gateway, 'sandbox-nzbn');
  key = sub.primaryKey;
  const registered = await registerClient(gateway.runtime.gateway.pool, {
    ownerUserId: sub.user.id,
    name: 'Batch job',
    environment: 'sandbox',
    redirectUris: [],
    grantTypes: ['client_credentials'],
    public: false,
  });
  clientId = registered.client.clientId;
  clientSecret = registered.clientSecret!;
});
afterAll(() => gateway?.close());

async function clientCredentials(body: Record<string, string>, basic = true) {
  return gateway.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(basic
        ? { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` }
        : {}),
    },
    payload: new URLSearchParams({ grant_type: 'client_credentials', ...body }).toString(),
  });
}

const echo = (token?: string, url = '/sandbox/nzbn/v5/echo') =>
  gateway.app.inject({
    url,
    headers: { 'Ocp-Apim-Subscription-Key': key, ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });

async function signed(
  claims: Record<string, unknown>,
  options: { alg?: string; kid?: string; key?: SigningKey } = {},
) {
  const keys = await loadSigningKeys(gateway.runtime.gateway.pool, 3600);
  const jwk = keys.privateKeys[0]! as JWK;
  const signingKey = options.key ?? ((await importJWK(jwk, 'ES256')) as SigningKey);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: `${SANDBOX}/.default`, client_id: clientId, ...claims })
    .setProtectedHeader({ alg: options.alg ?? 'ES256', kid: options.kid ?? jwk.kid! })
    .setIssuer(String(claims.iss ?? gateway.runtime.issuer))
    .setAudience(String(claims.aud ?? SANDBOX))
    .setIssuedAt(now)
    .setExpirationTime(typeof claims.exp === 'number' ? claims.exp : now + 600)
    .sign(signingKey);
}

describe('the authorization server', () => {
  it('publishes discovery and its keys', async () => {
    const discovery = await gateway.app.inject({ url: '/oauth2/.well-known/openid-configuration' });
    expect(discovery.statusCode).toBe(200);
    const document = discovery.json();
    expect(document.issuer).toBe(gateway.runtime.issuer);
    expect(document.grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'client_credentials', 'refresh_token']),
    );
    expect(document.code_challenge_methods_supported).toEqual(['S256']);
    const jwks = await gateway.app.inject({ url: '/oauth2/jwks' });
    expect(jwks.json().keys[0]).toMatchObject({ kty: 'EC', alg: 'ES256', use: 'sig' });
    expect(jwks.json().keys[0].d).toBeUndefined();
  });

  it('client credentials → a JWT whose audience is the environment, accepted by the gateway', async () => {
    const response = await clientCredentials({ scope: `${SANDBOX}/.default` });
    expect(response.json()).toMatchObject({ token_type: 'Bearer' });
    expect(response.statusCode).toBe(200);
    const { access_token: token, token_type: type, expires_in: expiresIn } = response.json();
    expect(type).toBe('Bearer');
    expect(expiresIn).toBe(3600);
    const [, payload] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(claims).toMatchObject({
      aud: SANDBOX,
      iss: gateway.runtime.issuer,
      client_id: clientId,
      scope: `${SANDBOX}/.default`,
    });
    const call = await echo(token);
    expect(call.statusCode).toBe(200);
    expect(call.json().caller.token.clientId).toBe(clientId);
    expect(call.json().caller.userId).toBeUndefined();
  });

  it('takes the secret in the body too (client_secret_post), and refuses a wrong secret', async () => {
    const posted = await clientCredentials(
      { scope: `${SANDBOX}/.default`, client_id: clientId, client_secret: clientSecret },
      false,
    );
    expect(posted.statusCode).toBe(200);
    const wrong = await gateway.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `grant_type=client_credentials&client_id=${clientId}&client_secret=wrong`,
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error).toBe('invalid_client');
  });

  it('a sandbox client cannot get a production token', async () => {
    const response = await clientCredentials({ scope: 'https://api.business.govt.nz/gateway/.default' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_target');
  });

  it('answers an address it does not serve in the OAuth shape, or with its error page for a browser', async () => {
    const unknown = await gateway.app.inject({ method: 'GET', url: '/oauth2/nowhere' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/json/);
    expect(unknown.json()).toEqual({
      error: 'invalid_request',
      error_description: 'no GET endpoint at this address',
    });
    // `/oauth2?x`: the root with a query (a 500 once: the provider needs a path that starts with `/`).
    const root = await gateway.app.inject({
      method: 'POST',
      url: '/oauth2?post_logout_redirect_uri=',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'a=b',
    });
    expect(root.statusCode).toBe(404);
    expect(root.json()).toMatchObject({ error: 'invalid_request' });
    // The authorization endpoint is GET only (oidc-provider 9): a POST gets the error page.
    const posted = await gateway.app.inject({
      method: 'POST',
      url: '/oauth2/auth',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `client_id=${clientId}&response_type=code`,
    });
    expect(posted.statusCode).toBe(404);
    expect(posted.headers['content-type']).toMatch(/^text\/html/);
    expect(posted.body).toContain('no POST endpoint at this address');
    const browser = await gateway.app.inject({
      method: 'GET',
      url: '/oauth2/nowhere',
      headers: { accept: 'text/html' },
    });
    expect(browser.statusCode).toBe(404);
    expect(browser.headers['content-type']).toMatch(/^text\/html/);
  });

  it('stores only a hash of the client secret', async () => {
    const rows = await gateway.runtime.gateway.pool.query(
      'SELECT secret_hash FROM oauth_clients WHERE client_id = $1',
      [clientId],
    );
    expect(rows.rows[0].secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows.rows[0].secret_hash).not.toContain(clientSecret);
  });
});

describe('token refusal matrix', () => {
  const now = () => Math.floor(Date.now() / 1000);

  it.each([
    ['expired', async () => signed({ exp: now() - 120 }), 401, 'Invalid JWT: the token has expired'],
    [
      'not yet valid',
      async () => signed({ nbf: now() + 600 }),
      401,
      'Invalid JWT: the token is not yet valid',
    ],
    [
      'wrong issuer',
      async () => signed({ iss: 'https://elsewhere.example/oauth2' }),
      401,
      "Invalid JWT: the token was not issued by this gateway's authorization server",
    ],
    [
      'missing scope',
      async () => signed({ scope: 'market-rent:read' }),
      403,
      'Insufficient scope: this operation needs the nzbn:read scope.',
    ],
  ])('%s', async (_name, make, status, message) => {
    const response = await echo(await make());
    expect(response.statusCode).toBe(status);
    expect(response.json()).toEqual({ statusCode: status, message });
    expect(response.headers['www-authenticate']).toMatch(
      /^Bearer error="(invalid_token|insufficient_scope)"/,
    );
  });

  it('wrong audience: a sandbox token on production', async () => {
    const production = await subscriber(gateway, 'production-nzbn');
    const token = await signed({});
    const response = await gateway.app.inject({
      url: '/gateway/nzbn/v5/echo',
      headers: { 'Ocp-Apim-Subscription-Key': production.primaryKey, authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json().message).toBe(
      "Invalid JWT: the token's audience is not this environment (https://api.business.govt.nz/gateway)",
    );
  });

  it('alg: none', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const body = Buffer.from(
      JSON.stringify({
        iss: gateway.runtime.issuer,
        aud: SANDBOX,
        exp: now() + 600,
        iat: now(),
        scope: `${SANDBOX}/.default`,
      }),
    ).toString('base64url');
    const response = await echo(`${header}.${body}.`);
    expect(response.statusCode).toBe(401);
    expect(response.json().message).toBe('Invalid JWT: its signing algorithm is not allowed (only ES256)');
  });

  it('an HMAC token signed with a guessable secret', async () => {
    const response = await echo(await signed({}, { alg: 'HS256', key: new TextEncoder().encode('secret') }));
    expect(response.json().message).toBe('Invalid JWT: its signing algorithm is not allowed (only ES256)');
  });

  it('tampered signature', async () => {
    const token = await signed({});
    const [h, p, s] = token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), client_id: 'someone-else' }),
    ).toString('base64url');
    const response = await echo(`${h}.${forged}.${s}`);
    expect(response.statusCode).toBe(401);
    expect(response.json().message).toBe('Invalid JWT: the signature does not verify');
  });

  it('unknown key id', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const response = await echo(await signed({}, { key: privateKey, kid: 'not-ours' }));
    expect(response.statusCode).toBe(401);
    expect(response.json().message).toBe('Invalid JWT: it was signed with an unknown key');
  });

  it('malformed', async () => {
    expect((await echo('not-a-jwt')).json().message).toBe('Invalid JWT: the token is malformed');
    const basic = await gateway.app.inject({
      url: '/sandbox/nzbn/v5/echo',
      headers: { 'Ocp-Apim-Subscription-Key': key, authorization: 'Basic abc' },
    });
    expect(basic.statusCode).toBe(401);
  });

  it('after key rotation, new tokens use the new key and old tokens still verify', async () => {
    const before = (await clientCredentials({ scope: `${SANDBOX}/.default` })).json().access_token;
    const kid = await rotateSigningKey(gateway.runtime.gateway.pool);
    await gateway.runtime.tokens.reload();
    // The token endpoint signs with the new key once the rotation's notice reaches it.
    const after = await vi.waitFor(
      async () => {
        const token: string = (await clientCredentials({ scope: `${SANDBOX}/.default` })).json().access_token;
        expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid).toBe(kid);
        return token;
      },
      { timeout: 5_000, interval: 50 },
    );
    expect((await echo(before)).statusCode).toBe(200);
    expect((await echo(after)).statusCode).toBe(200);
  });
});
