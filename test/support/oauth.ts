import { createHash, randomBytes } from 'node:crypto';
import { registerClient } from '../../src/identity/oauth/clients.ts';
import { addUser, setPassword } from '../../src/identity/users.ts';
import type { Environment } from '../../src/services/contract.ts';
import { CookieBrowser, csrfOf, location } from './cookie-browser.ts';
import type { TestGateway } from './runtime.ts';

/**
 * Three-legged tokens the way an integrator gets them: a user signs in and consents on our pages
 * (through inject, with a cookie jar), the app exchanges the code for a token. Adapted from
 * test/identity/oauth-three-legged.test.ts.
 */
const REDIRECT = 'http://localhost:7777/callback';
const PASSWORD = 'correct horse battery';

export interface SignedInUser {
  userId: string;
  email: string;
  token: string;
}

/** A new user who signs in through a new client and consents; returns their access token. */
export async function signedInUser(
  gateway: TestGateway,
  environment: Environment = 'sandbox',
): Promise<SignedInUser> {
  const pool = gateway.runtime.gateway.pool;
  const user = await addUser(pool, { email: `${randomBytes(5).toString('hex')}@example.test` });
  await setPassword(pool, user.id, PASSWORD);
  const { client, clientSecret } = await registerClient(pool, {
    ownerUserId: user.id,
    name: 'Accounting app',
    environment,
    redirectUris: [REDIRECT],
    grantTypes: ['authorization_code', 'refresh_token'],
    public: false,
  });
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    client_id: client.clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: `openid https://api.business.govt.nz/${environment === 'sandbox' ? 'sandbox' : 'gateway'}/.default`,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'xyz',
  });
  const browser = new CookieBrowser(gateway);
  let response = await browser.get(`/oauth2/auth?${query}`);
  const page = await browser.get(location(response));
  const loginUrl = /action="([^"]+\/login)"/.exec(page.body)![1]!;
  response = await browser.post(loginUrl, { csrf: csrfOf(page.body), email: user.email, password: PASSWORD });
  for (let hops = 0; hops < 6 && !location(response).startsWith('/callback'); hops++) {
    if (response.statusCode === 200 && /action="([^"]+\/confirm)"/.test(response.body)) {
      const confirmUrl = /action="([^"]+\/confirm)"/.exec(response.body)![1]!;
      response = await browser.post(confirmUrl, { csrf: csrfOf(response.body), decision: 'approve' });
    } else {
      const next = String(response.headers.location ?? '');
      if (next.startsWith(REDIRECT)) break;
      response = await browser.get(location(response));
    }
  }
  const code = new URL(String(response.headers.location)).searchParams.get('code')!;
  const token = await gateway.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: client.clientId,
      client_secret: clientSecret!,
    }).toString(),
  });
  if (token.statusCode !== 200) throw new Error(`token exchange failed: ${token.body}`);
  return { userId: user.id, email: user.email, token: token.json().access_token };
}

/** A client-credentials token (an application acting for itself, no user) of `environment`. */
export async function clientCredentialsToken(
  gateway: TestGateway,
  ownerUserId: string,
  environment: Environment = 'sandbox',
): Promise<string> {
  const { client, clientSecret } = await registerClient(gateway.runtime.gateway.pool, {
    ownerUserId,
    name: 'Back office',
    environment,
    redirectUris: [],
    grantTypes: ['client_credentials'],
    public: false,
  });
  const token = await gateway.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: clientSecret!,
      scope: `https://api.business.govt.nz/${environment === 'sandbox' ? 'sandbox' : 'gateway'}/.default`,
    }).toString(),
  });
  if (token.statusCode !== 200) throw new Error(`client-credentials grant failed: ${token.body}`);
  return token.json().access_token;
}
