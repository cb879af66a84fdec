/**
 * The SQL of `oidc_payloads` (gateway database): the authorization server's sessions, interactions,
 * codes, grants and tokens. Which ids are stored hashed is the adapter's rule (oauth/adapter.ts): these
 * functions take the id as stored.
 */
import type { AdapterPayload } from 'oidc-provider';
import type { Pool } from 'pg';

export async function upsertPayload(
  pool: Pool,
  record: {
    model: string;
    id: string;
    payload: AdapterPayload;
    grantId: string | null;
    userCode: string | null;
    uid: string | null;
    expiresIn: number | null;
  },
): Promise<void> {
  await pool.query(
    `INSERT INTO oidc_payloads (model, id, payload, grant_id, user_code, uid, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $7::int IS NULL THEN NULL ELSE now() + make_interval(secs => $7) END)
     ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
       user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at`,
    [record.model, record.id, record.payload, record.grantId, record.userCode, record.uid, record.expiresIn],
  );
}

/** The unexpired payload of a model found by its id, user code or uid, and when it was consumed. */
export async function findPayload(
  pool: Pool,
  model: string,
  column: 'id' | 'user_code' | 'uid',
  value: string,
): Promise<{ payload: AdapterPayload; consumed_at: Date | null } | undefined> {
  const result = await pool.query<{ payload: AdapterPayload; consumed_at: Date | null }>(
    `SELECT payload, consumed_at FROM oidc_payloads
      WHERE model = $1 AND ${column} = $2 AND (expires_at IS NULL OR expires_at > now())`,
    [model, value],
  );
  return result.rows[0];
}

export async function consumePayload(pool: Pool, model: string, id: string): Promise<void> {
  await pool.query('UPDATE oidc_payloads SET consumed_at = now() WHERE model = $1 AND id = $2', [model, id]);
}

export async function destroyPayload(pool: Pool, model: string, id: string): Promise<void> {
  await pool.query('DELETE FROM oidc_payloads WHERE model = $1 AND id = $2', [model, id]);
}

export async function destroyPayloadsOfGrant(pool: Pool, grantId: string): Promise<void> {
  await pool.query('DELETE FROM oidc_payloads WHERE grant_id = $1', [grantId]);
}
