import type { Pool } from 'pg';
import type { Environment } from '../../services/contract.ts';

/**
 * `portal_bulk_access`: bulk data access per user and environment (asked, approved, declined, revoked).
 * Who asked is a user id: their email and name are identity's to say.
 */

export type Decision = 'requested' | 'approved' | 'declined' | 'revoked';

export interface BulkAccessRow {
  id: string;
  userId: string;
  environment: Environment;
  purpose: string;
  state: Decision;
  reason: string;
  createdAt: Date;
  decidedAt: Date | null;
}

const BULK_COLUMNS = `b.id, b.user_id AS "userId", b.environment, b.purpose, b.state, b.reason,
  b.created_at AS "createdAt", b.decided_at AS "decidedAt"`;
const BULK_FROM = 'portal_bulk_access b';

/** Records a request; false when one is already waiting or approved for that user and environment. */
export async function insertBulkAccessRequest(
  pool: Pool,
  input: { userId: string; environment: Environment; purpose: string },
): Promise<boolean> {
  const result = await pool.query(
    `INSERT INTO portal_bulk_access (user_id, environment, purpose) VALUES ($1, $2, $3)
     ON CONFLICT (user_id, environment) WHERE state IN ('requested', 'approved') DO NOTHING`,
    [input.userId, input.environment, input.purpose],
  );
  return (result.rowCount ?? 0) > 0;
}

/** The user's latest request per environment. */
export async function bulkAccessOf(pool: Pool, userId: string): Promise<Map<Environment, BulkAccessRow>> {
  const rows = (
    await pool.query<BulkAccessRow>(
      `SELECT DISTINCT ON (b.environment) ${BULK_COLUMNS} FROM ${BULK_FROM}
        WHERE b.user_id = $1 ORDER BY b.environment, b.created_at DESC`,
      [userId],
    )
  ).rows;
  return new Map(rows.map((row) => [row.environment, row]));
}

export async function hasBulkAccess(pool: Pool, userId: string, environment: Environment): Promise<boolean> {
  const result = await pool.query(
    "SELECT 1 FROM portal_bulk_access WHERE user_id = $1 AND environment = $2 AND state = 'approved'",
    [userId, environment],
  );
  return (result.rowCount ?? 0) > 0;
}

export async function waitingBulkAccess(pool: Pool): Promise<BulkAccessRow[]> {
  const rows = await pool.query<BulkAccessRow>(
    `SELECT ${BULK_COLUMNS} FROM ${BULK_FROM} WHERE b.state = 'requested' ORDER BY b.created_at LIMIT 500`,
  );
  return rows.rows;
}

/** Approved grants, most recently decided first (the operator's list to revoke from). */
export async function approvedBulkAccess(pool: Pool): Promise<BulkAccessRow[]> {
  const rows = await pool.query<BulkAccessRow>(
    `SELECT ${BULK_COLUMNS} FROM ${BULK_FROM} WHERE b.state = 'approved' ORDER BY b.decided_at DESC LIMIT 500`,
  );
  return rows.rows;
}

/** Revokes an approved grant; undefined when it was not approved. */
export async function markBulkAccessRevoked(
  pool: Pool,
  id: string,
  input: { reason: string; operatorId: string },
): Promise<BulkAccessRow | undefined> {
  const rows = await pool.query<BulkAccessRow>(
    `UPDATE portal_bulk_access b SET state = 'revoked', reason = $2, decided_at = now(), decided_by = $3
      WHERE id = $1 AND state = 'approved' RETURNING ${BULK_COLUMNS}`,
    [id, input.reason, input.operatorId],
  );
  return rows.rows[0];
}

/** Decides a waiting request; undefined when it was not waiting. */
export async function markBulkAccessDecided(
  pool: Pool,
  id: string,
  input: { state: 'approved' | 'declined'; reason: string; operatorId: string },
): Promise<BulkAccessRow | undefined> {
  const rows = await pool.query<BulkAccessRow>(
    `UPDATE portal_bulk_access b SET state = $2, reason = $3, decided_at = now(), decided_by = $4
      WHERE id = $1 AND state = 'requested' RETURNING ${BULK_COLUMNS}`,
    [id, input.state, input.reason, input.operatorId],
  );
  return rows.rows[0];
}
