/**
 * The SQL of `oauth_clients` (gateway database). Registering a client (its rules, its id and secret) is
 * operations/clients.ts; what a client is, domain/clients.ts.
 */
import type { Pool } from 'pg';
import type { Environment } from '../../services/contract.ts';
import type { GrantType, OAuthClient } from '../domain/clients.ts';

const COLUMNS = `client_id AS "clientId", owner_user_id AS "ownerUserId", name, environment,
  redirect_uris AS "redirectUris", grant_types AS "grantTypes", public, created_at AS "createdAt"`;

export async function insertClient(
  pool: Pool,
  client: {
    clientId: string;
    ownerUserId: string;
    name: string;
    environment: Environment;
    redirectUris: string[];
    grantTypes: GrantType[];
    public: boolean;
    secretHash: string | null;
  },
): Promise<OAuthClient> {
  const result = await pool.query<OAuthClient>(
    `INSERT INTO oauth_clients (client_id, owner_user_id, name, environment, redirect_uris, grant_types, public, secret_hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [
      client.clientId,
      client.ownerUserId,
      client.name,
      client.environment,
      client.redirectUris,
      client.grantTypes,
      client.public,
      client.secretHash,
    ],
  );
  return result.rows[0]!;
}

/** Replaces a confidential client's secret hash; false when the owner has no such confidential client. */
export async function updateClientSecret(
  pool: Pool,
  clientId: string,
  ownerUserId: string,
  secretHash: string,
): Promise<boolean> {
  const result = await pool.query(
    `UPDATE oauth_clients SET secret_hash = $3, secret_rotated_at = now()
      WHERE client_id = $1 AND owner_user_id = $2 AND NOT public`,
    [clientId, ownerUserId, secretHash],
  );
  return (result.rowCount ?? 0) > 0;
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

/** What the authorization server reads of a client: the registration and the secret's hash. */
export interface ClientRecord {
  client_id: string;
  redirect_uris: string[];
  grant_types: GrantType[];
  public: boolean;
  secret_hash: string | null;
  environment: Environment;
  name: string;
}

export async function findClientRecord(pool: Pool, clientId: string): Promise<ClientRecord | undefined> {
  return (
    await pool.query<ClientRecord>(
      'SELECT client_id, redirect_uris, grant_types, public, secret_hash, environment, name FROM oauth_clients WHERE client_id = $1',
      [clientId],
    )
  ).rows[0];
}
