import type { Pool } from 'pg';
import type { AccessKind } from '../domain/sandbox.ts';

/**
 * `portal_access_requests`: production access asked of the operators (an organisation to create and
 * own, or business authority over a business number). Who asked is a user id: their email is
 * identity's to say.
 */
export interface AccessRequestRow {
  id: string;
  userId: string;
  kind: AccessKind;
  subject: string;
  name: string;
  state: 'requested' | 'approved' | 'declined';
  createdAt: Date;
}

const COLUMNS = `r.id, r.user_id AS "userId", r.kind, r.subject, r.name, r.state, r.created_at AS "createdAt"`;

/** Records a request; false when the same one is already waiting. */
export async function insertAccessRequest(
  pool: Pool,
  input: { userId: string; kind: AccessKind; subject: string; name: string },
): Promise<boolean> {
  const result = await pool.query(
    `INSERT INTO portal_access_requests (user_id, kind, subject, name) VALUES ($1, $2, $3, $4)
     ON CONFLICT (user_id, kind, subject) WHERE state = 'requested' DO NOTHING`,
    [input.userId, input.kind, input.subject, input.name],
  );
  return (result.rowCount ?? 0) > 0;
}

/** The user's requests, newest first. */
export async function accessRequestsOf(pool: Pool, userId: string): Promise<AccessRequestRow[]> {
  const result = await pool.query<AccessRequestRow>(
    `SELECT ${COLUMNS} FROM portal_access_requests r
      WHERE r.user_id = $1 ORDER BY r.created_at DESC LIMIT 100`,
    [userId],
  );
  return result.rows;
}

/** Requests waiting for an operator, oldest first. */
export async function waitingAccessRequests(pool: Pool): Promise<AccessRequestRow[]> {
  const result = await pool.query<AccessRequestRow>(
    `SELECT ${COLUMNS} FROM portal_access_requests r
      WHERE r.state = 'requested' ORDER BY r.created_at LIMIT 500`,
  );
  return result.rows;
}

/** One request waiting for an operator; undefined when it is not waiting (or does not exist). */
export async function waitingAccessRequest(pool: Pool, id: string): Promise<AccessRequestRow | undefined> {
  const result = await pool.query<AccessRequestRow>(
    `SELECT ${COLUMNS} FROM portal_access_requests r WHERE r.id = $1 AND r.state = 'requested'`,
    [id],
  );
  return result.rows[0];
}

/** Marks a waiting request decided; undefined when it was not waiting (decided already, or no such id). */
export async function markAccessRequestDecided(
  pool: Pool,
  id: string,
  state: 'approved' | 'declined',
  operatorId: string,
): Promise<AccessRequestRow | undefined> {
  const result = await pool.query<AccessRequestRow>(
    `UPDATE portal_access_requests r SET state = $2, decided_at = now(), decided_by = $3
      WHERE r.id = $1 AND r.state = 'requested' RETURNING ${COLUMNS}`,
    [id, state, operatorId],
  );
  return result.rows[0];
}
