/** The SQL of `signing_keys` (gateway database). Making and rotating keys is operations/signing-keys.ts. */
import type { JWK } from 'jose';
import type { Pool } from 'pg';
import { publish } from '../../platform/db/notify.ts';
import { withTransaction } from '../../platform/db/pool.ts';
import { SIGNING_ALG } from '../domain/signing-keys.ts';

export async function hasSigningKey(pool: Pool): Promise<boolean> {
  const current = await pool.query('SELECT 1 FROM signing_keys WHERE retired_at IS NULL LIMIT 1');
  return (current.rowCount ?? 0) > 0;
}

export async function insertSigningKey(pool: Pool, jwk: JWK): Promise<void> {
  await pool.query('INSERT INTO signing_keys (kid, alg, private_jwk) VALUES ($1, $2, $3)', [
    jwk.kid,
    SIGNING_ALG,
    jwk,
  ]);
}

/** Retires every signing key and adds `jwk` in one transaction, and tells every process at its commit. */
export async function replaceSigningKey(pool: Pool, jwk: JWK): Promise<void> {
  await withTransaction(pool, async (client) => {
    await client.query('UPDATE signing_keys SET retired_at = now() WHERE retired_at IS NULL');
    await client.query('INSERT INTO signing_keys (kid, alg, private_jwk) VALUES ($1, $2, $3)', [
      jwk.kid,
      SIGNING_ALG,
      jwk,
    ]);
    await publish(client, { kind: 'signing-keys' });
  });
}

/** The private JWKs still published (unretired, or retired less than `publishedForSeconds` ago), signer first. */
export async function publishedSigningKeys(pool: Pool, publishedForSeconds: number): Promise<JWK[]> {
  const result = await pool.query<{ private_jwk: JWK }>(
    `SELECT private_jwk FROM signing_keys
      WHERE retired_at IS NULL OR retired_at > now() - make_interval(secs => $1)
      ORDER BY (retired_at IS NULL) DESC, created_at DESC`,
    [publishedForSeconds],
  );
  return result.rows.map((row) => row.private_jwk);
}
