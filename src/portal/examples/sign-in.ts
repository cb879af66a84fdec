/**
 * A three-legged token for the recorder, got the way an integrator gets one: the recorder's own user
 * (made in its throwaway sandbox, with a password) registers a client, signs in on the authorization
 * server's pages and consents (through inject, carrying cookies), and the code is exchanged for a token.
 * Nothing is signed by hand, so the token is the same as any integrator's. The tests get their users'
 * tokens through it too (test/support/oauth.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Pool } from 'pg';
import { registerClient } from '../../identity/operations/clients.ts';
import type { Environment } from '../../services/contract.ts';

const REDIRECT = 'http://localhost:7777/callback';

/** The path of a redirect, without scheme and host. */
const locationOf = (response: LightMyRequestResponse) =>
  String(response.headers.location ?? '').replace(/^https?:\/\/[^/]+/, '');

const formAction = (body: string, ending: string) => new RegExp(`action="([^"]+/${ending})"`).exec(body)?.[1];

const csrfOf = (body: string) => {
  const found = /name="csrf" value="([^"]+)"/.exec(body)?.[1];
  if (!found) throw new Error('sign-in: the page has no CSRF token');
  return found;
};

/**
 * Signs `user` in through a new client of its own (named `clientName`, of `environment`) and consents;
 * answers the access token.
 */
export async function threeLeggedToken(
  app: FastifyInstance,
  pool: Pool,
  user: { id: string; email: string; password: string },
  {
    environment = 'sandbox',
    clientName = 'Response examples',
  }: { environment?: Environment; clientName?: string } = {},
): Promise<string> {
  const { client, clientSecret } = await registerClient(pool, {
    ownerUserId: user.id,
    name: clientName,
    environment,
    redirectUris: [REDIRECT],
    grantTypes: ['authorization_code'],
    public: false,
  });
  const jar = new Map<string, string>();
  const remember = (response: LightMyRequestResponse) => {
    for (const cookie of response.cookies as { name: string; value: string }[]) {
      if (cookie.value === '') jar.delete(cookie.name);
      else jar.set(cookie.name, cookie.value);
    }
    return response;
  };
  const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  const get = async (url: string) => remember(await app.inject({ url, headers: { cookie: cookie() } }));
  const post = async (url: string, form: Record<string, string>) =>
    remember(
      await app.inject({
        method: 'POST',
        url,
        headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(form).toString(),
      }),
    );

  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    client_id: client.clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: `openid https://api.business.govt.nz/${environment === 'sandbox' ? 'sandbox' : 'gateway'}/.default`,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'examples',
  });
  let response = await get(`/oauth2/auth?${query}`);
  const page = await get(locationOf(response));
  const login = formAction(page.body, 'login');
  if (!login) throw new Error(`sign-in: no login form (${page.statusCode})`);
  response = await post(login, { csrf: csrfOf(page.body), email: user.email, password: user.password });
  for (let hops = 0; hops < 6; hops++) {
    const next = String(response.headers.location ?? '');
    if (next.startsWith(REDIRECT)) break;
    const confirm = response.statusCode === 200 ? formAction(response.body, 'confirm') : undefined;
    if (confirm) response = await post(confirm, { csrf: csrfOf(response.body), decision: 'approve' });
    else if (next) response = await get(locationOf(response));
    else throw new Error(`sign-in: stopped at ${response.statusCode}`);
  }
  const code = new URL(String(response.headers.location)).searchParams.get('code');
  if (!code) throw new Error('sign-in: no authorization code');
  const token = await app.inject({
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
  if (token.statusCode !== 200)
    throw new Error(`sign-in: the token exchange answered ${token.statusCode}: ${token.body}`);
  return (token.json() as { access_token: string }).access_token;
}
