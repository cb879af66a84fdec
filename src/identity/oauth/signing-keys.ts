import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Pool } from 'pg';
import { publish } from '../../platform/db/notify.ts';
import { withTransaction } from '../../platform/db/pool.ts';

/**
 * Token signing keys, kept in the database so that every process signs and verifies with the same
 * ones, and rotatable: `rsg oauth rotate-key` adds a new signing key and retires the old one, which stays
 * published (and so keeps verifying) until every token it signed has expired.
 */
export const SIGNING_ALG = 'ES256';

export interface SigningKeys {
  /** Private keys, the signing key first (oidc-provider signs with the first that fits). */
  privateKeys: JWK[];
  /** The public half of every published key, for verification and the JWKS endpoint. */
  publicKeys: JWK[];
}

async function newKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: randomBytes(12).toString('base64url'), alg: SIGNING_ALG, use: 'sig' };
}

export async function ensureSigningKey(pool: Pool): Promise<void> {
  const current = await pool.query('SELECT 1 FROM signing_keys WHERE retired_at IS NULL LIMIT 1');
  if (current.rowCount) return;
  const jwk = await newKey();
  // Two processes starting at once may both insert one; the newest signs, both verify. Harmless.
  await pool.query('INSERT INTO signing_keys (kid, alg, private_jwk) VALUES ($1, $2, $3)', [
    jwk.kid,
    SIGNING_ALG,
    jwk,
  ]);
}

export async function rotateSigningKey(pool: Pool): Promise<string> {
  const jwk = await newKey();
  await withTransaction(pool, async (client) => {
    await client.query('UPDATE signing_keys SET retired_at = now() WHERE retired_at IS NULL');
    await client.query('INSERT INTO signing_keys (kid, alg, private_jwk) VALUES ($1, $2, $3)', [
      jwk.kid,
      SIGNING_ALG,
      jwk,
    ]);
    await publish(client, { kind: 'signing-keys' });
  });
  return jwk.kid!;
}

const publicHalf = ({ d: _d, ...rest }: JWK): JWK => rest;

export async function loadSigningKeys(pool: Pool, publishedForSeconds: number): Promise<SigningKeys> {
  const result = await pool.query<{ private_jwk: JWK }>(
    `SELECT private_jwk FROM signing_keys
      WHERE retired_at IS NULL OR retired_at > now() - make_interval(secs => $1)
      ORDER BY (retired_at IS NULL) DESC, created_at DESC`,
    [publishedForSeconds],
  );
  const privateKeys = result.rows.map((row) => row.private_jwk);
  return { privateKeys, publicKeys: privateKeys.map(publicHalf) };
}
