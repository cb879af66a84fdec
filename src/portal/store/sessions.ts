import type { Pool } from 'pg';

/**
 * `portal_sessions`: one row per session, under the SHA-256 of the cookie's value (never the value);
 * `user_id` null for an anonymous session (the sign-in and sign-up forms' CSRF tokens).
 */

/** The live session under this hash: its user (null when anonymous); undefined when none or expired. */
export async function liveSession(
  pool: Pool,
  idHash: Buffer,
): Promise<{ userId: string | null } | undefined> {
  const result = await pool.query<{ userId: string | null }>(
    `SELECT s.user_id AS "userId" FROM portal_sessions s WHERE s.id_hash = $1 AND s.expires_at > now()`,
    [idHash],
  );
  return result.rows[0];
}

export async function deleteExpiredSessions(pool: Pool): Promise<void> {
  await pool.query('DELETE FROM portal_sessions WHERE expires_at < now()');
}

export async function insertSession(
  pool: Pool,
  idHash: Buffer,
  userId: string | null,
  ttlSeconds: number,
): Promise<void> {
  await pool.query(
    `INSERT INTO portal_sessions (id_hash, user_id, expires_at)
     VALUES ($1, $2, now() + make_interval(secs => $3))`,
    [idHash, userId, ttlSeconds],
  );
}

export async function deleteSession(pool: Pool, idHash: Buffer): Promise<void> {
  await pool.query('DELETE FROM portal_sessions WHERE id_hash = $1', [idHash]);
}

/** Ends every session of a user except the one under `keepHash` (after a password change). */
export async function deleteOtherSessions(pool: Pool, userId: string, keepHash: Buffer): Promise<void> {
  await pool.query('DELETE FROM portal_sessions WHERE user_id = $1 AND id_hash <> $2', [userId, keepHash]);
}
