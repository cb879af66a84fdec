import { randomBytes } from 'node:crypto';
import { registerClient } from '../../src/identity/operations/clients.ts';
import { addUser, setPassword } from '../../src/identity/operations/users.ts';
import { threeLeggedToken } from '../../src/portal/examples/sign-in.ts';
import type { Environment } from '../../src/services/contract.ts';
import type { TestGateway } from './runtime.ts';

/**
 * Tokens the way an integrator gets them. A three-legged one comes from the product's own sign-in walk
 * (`src/portal/examples/sign-in.ts`, which the response-example recorder uses too): the user signs in and
 * consents on our pages through inject with a cookie jar, and the code is exchanged for a token.
 */
const PASSWORD = 'correct horse battery';

export interface SignedInUser {
  userId: string;
  email: string;
  token: string;
}

/** A new user (an operator, when asked) who signs in through a new client and consents; returns their access token. */
export async function signedInUser(
  gateway: TestGateway,
  environment: Environment = 'sandbox',
  options: { isOperator?: boolean } = {},
): Promise<SignedInUser> {
  const pool = gateway.runtime.gateway.pool;
  const user = await addUser(pool, {
    email: `${randomBytes(5).toString('hex')}@example.test`,
    ...(options.isOperator ? { isOperator: true } : {}),
  });
  await setPassword(pool, user.id, PASSWORD);
  const token = await threeLeggedToken(
    gateway.app,
    pool,
    { id: user.id, email: user.email, password: PASSWORD },
    { environment, clientName: 'Accounting app' },
  );
  return { userId: user.id, email: user.email, token };
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
