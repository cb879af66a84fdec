import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AdapterPayload } from 'oidc-provider';
import type { Pool } from 'pg';
import type { Environment } from '../../services/contract.ts';

/**
 * OAuth clients that subscribers register: redirect URIs (matched exactly), grant types, and for a
 * confidential client a secret shown once and kept only as a hash. Public clients (no secret) must use
 * PKCE.
 */
export type GrantType = 'client_credentials' | 'authorization_code' | 'refresh_token';

export interface OAuthClient {
  clientId: string;
  ownerUserId: string;
  name: string;
  environment: Environment;
  redirectUris: string[];
  grantTypes: GrantType[];
  public: boolean;
  createdAt: Date;
}

export class ClientError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export const hashSecret = (secret: string): string =>
  createHash('sha256').update(secret, 'utf8').digest('hex');

export function secretMatches(storedHash: string | undefined, presented: string): boolean {
  if (!storedHash) return false;
  const a = Buffer.from(storedHash, 'hex');
  const b = Buffer.from(hashSecret(presented), 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

function validRedirectUri(uri: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return false;
  }
  if (parsed.hash) return false;
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
  return (
    parsed.protocol === 'https:' ||
    (parsed.protocol === 'http:' && loopback) ||
    /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(parsed.protocol)
  );
}

export function validateClient(input: {
  name: string;
  redirectUris: string[];
  grantTypes: GrantType[];
  public: boolean;
}): void {
  if (!input.name.trim() || input.name.length > 100)
    throw new ClientError('name', 'must be 1 to 100 characters');
  const grants = new Set(input.grantTypes);
  if (grants.size === 0) throw new ClientError('grantTypes', 'must name at least one grant type');
  for (const grant of grants) {
    if (!['client_credentials', 'authorization_code', 'refresh_token'].includes(grant)) {
      throw new ClientError(
        'grantTypes',
        `"${grant}" is not one of client_credentials, authorization_code, refresh_token`,
      );
    }
  }
  if (input.public && grants.has('client_credentials')) {
    throw new ClientError('grantTypes', 'a public client (no secret) cannot use client_credentials');
  }
  if (grants.has('refresh_token') && !grants.has('authorization_code')) {
    throw new ClientError('grantTypes', 'refresh_token goes with authorization_code');
  }
  if (grants.has('authorization_code') && input.redirectUris.length === 0) {
    throw new ClientError('redirectUris', 'authorization_code needs at least one redirect URI');
  }
  for (const uri of input.redirectUris) {
    if (!validRedirectUri(uri)) {
      throw new ClientError(
        'redirectUris',
        `"${uri}" must be an https URL (http only on localhost) without a fragment`,
      );
    }
  }
}

const COLUMNS = `client_id AS "clientId", owner_user_id AS "ownerUserId", name, environment,
  redirect_uris AS "redirectUris", grant_types AS "grantTypes", public, created_at AS "createdAt"`;

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
  const result = await pool.query<OAuthClient>(
    `INSERT INTO oauth_clients (client_id, owner_user_id, name, environment, redirect_uris, grant_types, public, secret_hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [
      clientId,
      input.ownerUserId,
      input.name.trim(),
      input.environment,
      [...new Set(input.redirectUris)],
      [...new Set(input.grantTypes)],
      input.public,
      clientSecret ? hashSecret(clientSecret) : null,
    ],
  );
  return { client: result.rows[0]!, clientSecret };
}

export async function regenerateClientSecret(
  pool: Pool,
  clientId: string,
  ownerUserId: string,
): Promise<string> {
  const secret = randomBytes(32).toString('base64url');
  const result = await pool.query(
    `UPDATE oauth_clients SET secret_hash = $3, secret_rotated_at = now()
      WHERE client_id = $1 AND owner_user_id = $2 AND NOT public`,
    [clientId, ownerUserId, hashSecret(secret)],
  );
  if (!result.rowCount) throw new ClientError('clientId', 'no confidential client with that id is yours');
  return secret;
}

export async function clientsOf(pool: Pool, ownerUserId: string): Promise<OAuthClient[]> {
  return (
    await pool.query<OAuthClient>(
      `SELECT ${COLUMNS} FROM oauth_clients WHERE owner_user_id = $1 ORDER BY created_at`,
      [ownerUserId],
    )
  ).rows;
}

export async function findClient(pool: Pool, clientId: string): Promise<OAuthClient | undefined> {
  return (
    await pool.query<OAuthClient>(`SELECT ${COLUMNS} FROM oauth_clients WHERE client_id = $1`, [clientId])
  ).rows[0];
}

/**
 * The client as oidc-provider wants it. `client_secret` carries the stored hash; the provider's secret
 * comparison is replaced (see provider.ts) to hash what the client presents before comparing.
 */
export async function clientMetadata(pool: Pool, clientId: string): Promise<AdapterPayload | undefined> {
  const row = (
    await pool.query<{
      client_id: string;
      redirect_uris: string[];
      grant_types: GrantType[];
      public: boolean;
      secret_hash: string | null;
      environment: Environment;
      name: string;
    }>(
      'SELECT client_id, redirect_uris, grant_types, public, secret_hash, environment, name FROM oauth_clients WHERE client_id = $1',
      [clientId],
    )
  ).rows[0];
  if (!row) return undefined;
  const grants = row.grant_types;
  return {
    client_id: row.client_id,
    client_name: row.name,
    ...(row.secret_hash ? { client_secret: row.secret_hash } : {}),
    token_endpoint_auth_method: row.public ? 'none' : 'client_secret_basic',
    grant_types: grants,
    response_types: grants.includes('authorization_code') ? ['code'] : [],
    redirect_uris: row.redirect_uris,
    'urn:rsg:environment': row.environment,
  } as AdapterPayload;
}
