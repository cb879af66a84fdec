/** OAuth clients' operations: registering one (its secret shown once) and a new secret. */
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import type { Environment } from '../../services/contract.ts';
import { type GrantType, hashSecret, type OAuthClient, validateClient } from '../domain/clients.ts';
import { ClientError } from '../errors.ts';
import { insertClient, updateClientSecret } from '../store/oauth-clients.ts';

export async function registerClient(
  pool: Pool,
  input: {
    ownerUserId: string;
    name: string;
    environment: Environment;
    redirectUris: string[];
    grantTypes: GrantType[];
    public: boolean;
  },
): Promise<{ client: OAuthClient; clientSecret: string | undefined }> {
  validateClient(input);
  const clientId = `${input.environment === 'sandbox' ? 'sbx' : 'prd'}_${randomBytes(12).toString('base64url')}`;
  const clientSecret = input.public ? undefined : randomBytes(32).toString('base64url');
  const client = await insertClient(pool, {
    clientId,
    ownerUserId: input.ownerUserId,
    name: input.name.trim(),
    environment: input.environment,
    redirectUris: [...new Set(input.redirectUris)],
    grantTypes: [...new Set(input.grantTypes)],
    public: input.public,
    secretHash: clientSecret ? hashSecret(clientSecret) : null,
  });
  return { client, clientSecret };
}

export async function regenerateClientSecret(
  pool: Pool,
  clientId: string,
  ownerUserId: string,
): Promise<string> {
  const secret = randomBytes(32).toString('base64url');
  if (!(await updateClientSecret(pool, clientId, ownerUserId, hashSecret(secret))))
    throw new ClientError('clientId', 'no confidential client with that id is yours');
  return secret;
}
