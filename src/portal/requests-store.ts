import type { Pool } from 'pg';
import type { Environment } from '../services/contract.ts';
import { withUsers } from './store.ts';

/**
 * The portal's queries for bulk data access (bulk-data.ts) and data requests (data-requests.ts); who
 * asked (email, name) comes from identity (`withUsers`).
 */

export type Decision = 'requested' | 'approved' | 'declined' | 'revoked';

export interface BulkAccess {
  id: string;
  userId: string;
  userEmail: string;
  userName: string;
  environment: Environment;
  purpose: string;
  state: Decision;
  reason: string;
  createdAt: Date;
  decidedAt: Date | null;
}

type BulkRow = Omit<BulkAccess, 'userEmail' | 'userName'>;

const BULK_COLUMNS = `b.id, b.user_id AS "userId", b.environment, b.purpose, b.state, b.reason,
  b.created_at AS "createdAt", b.decided_at AS "decidedAt"`;
const BULK_FROM = 'portal_bulk_access b';

/** Records a request; false when one is already waiting or approved for that user and environment. */
export async function requestBulkAccess(
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
export async function bulkAccessOf(pool: Pool, userId: string): Promise<Map<Environment, BulkAccess>> {
  const rows = (
    await pool.query<BulkRow>(
      `SELECT DISTINCT ON (b.environment) ${BULK_COLUMNS} FROM ${BULK_FROM}
        WHERE b.user_id = $1 ORDER BY b.environment, b.created_at DESC`,
      [userId],
    )
  ).rows;
  return new Map((await withUsers(pool, rows)).map((row) => [row.environment, row]));
}

export async function hasBulkAccess(pool: Pool, userId: string, environment: Environment): Promise<boolean> {
  const result = await pool.query(
    "SELECT 1 FROM portal_bulk_access WHERE user_id = $1 AND environment = $2 AND state = 'approved'",
    [userId, environment],
  );
  return (result.rowCount ?? 0) > 0;
}

export async function waitingBulkAccess(pool: Pool): Promise<BulkAccess[]> {
  const rows = await pool.query<BulkRow>(
    `SELECT ${BULK_COLUMNS} FROM ${BULK_FROM} WHERE b.state = 'requested' ORDER BY b.created_at LIMIT 500`,
  );
  return withUsers(pool, rows.rows);
}

/** Approved grants, most recently decided first (the operator's list to revoke from). */
export async function approvedBulkAccess(pool: Pool): Promise<BulkAccess[]> {
  const rows = await pool.query<BulkRow>(
    `SELECT ${BULK_COLUMNS} FROM ${BULK_FROM} WHERE b.state = 'approved' ORDER BY b.decided_at DESC LIMIT 500`,
  );
  return withUsers(pool, rows.rows);
}

/** Revokes an approved grant; undefined when it was not approved. */
export async function revokeBulkAccess(
  pool: Pool,
  id: string,
  input: { reason: string; operatorId: string },
): Promise<BulkAccess | undefined> {
  const rows = await pool.query<BulkRow>(
    `UPDATE portal_bulk_access b SET state = 'revoked', reason = $2, decided_at = now(), decided_by = $3
      WHERE id = $1 AND state = 'approved' RETURNING ${BULK_COLUMNS}`,
    [id, input.reason, input.operatorId],
  );
  return (await withUsers(pool, rows.rows))[0];
}

/** Decides a waiting request; undefined when it was not waiting. */
export async function decideBulkAccess(
  pool: Pool,
  id: string,
  input: { state: 'approved' | 'declined'; reason: string; operatorId: string },
): Promise<BulkAccess | undefined> {
  const rows = await pool.query<BulkRow>(
    `UPDATE portal_bulk_access b SET state = $2, reason = $3, decided_at = now(), decided_by = $4
      WHERE id = $1 AND state = 'requested' RETURNING ${BULK_COLUMNS}`,
    [id, input.state, input.reason, input.operatorId],
  );
  return (await withUsers(pool, rows.rows))[0];
}

export type DataRequestFormat = 'csv' | 'json' | 'xlsx' | 'other';
export type DataRequestState = 'open' | 'answered' | 'declined';

export interface DataRequest {
  id: string;
  userId: string;
  userEmail: string;
  userName: string;
  data: string;
  purpose: string;
  format: DataRequestFormat;
  contact: string;
  state: DataRequestState;
  reason: string;
  fileName: string | null;
  contentType: string | null;
  fileBytes: number | null;
  fileSha256: string | null;
  createdAt: Date;
  decidedAt: Date | null;
}

type DataRow = Omit<DataRequest, 'userEmail' | 'userName'>;

const DATA_COLUMNS = `r.id, r.user_id AS "userId", r.data, r.purpose,
  r.format, r.contact, r.state, r.reason, r.file_name AS "fileName", r.content_type AS "contentType",
  r.file_bytes::float8 AS "fileBytes", r.file_sha256 AS "fileSha256", r.created_at AS "createdAt",
  r.decided_at AS "decidedAt"`;
const DATA_FROM = 'portal_data_requests r';

export async function addDataRequest(
  pool: Pool,
  input: { userId: string; data: string; purpose: string; format: DataRequestFormat; contact: string },
): Promise<string> {
  return (
    await pool.query<{ id: string }>(
      `INSERT INTO portal_data_requests (user_id, data, purpose, format, contact) VALUES ($1, $2, $3, $4, $5)
       RETURNING id`,
      [input.userId, input.data, input.purpose, input.format, input.contact],
    )
  ).rows[0]!.id;
}

export async function dataRequestsOf(pool: Pool, userId: string): Promise<DataRequest[]> {
  const rows = await pool.query<DataRow>(
    `SELECT ${DATA_COLUMNS} FROM ${DATA_FROM} WHERE r.user_id = $1 ORDER BY r.created_at DESC LIMIT 200`,
    [userId],
  );
  return withUsers(pool, rows.rows);
}

export async function dataRequest(pool: Pool, id: string): Promise<DataRequest | undefined> {
  const rows = await pool.query<DataRow>(`SELECT ${DATA_COLUMNS} FROM ${DATA_FROM} WHERE r.id = $1`, [id]);
  return (await withUsers(pool, rows.rows))[0];
}

/** Open requests oldest first, then the last 50 decided ones. */
export async function dataRequestQueue(pool: Pool): Promise<{ open: DataRequest[]; decided: DataRequest[] }> {
  const open = await pool.query<DataRow>(
    `SELECT ${DATA_COLUMNS} FROM ${DATA_FROM} WHERE r.state = 'open' ORDER BY r.created_at LIMIT 500`,
  );
  const decided = await pool.query<DataRow>(
    `SELECT ${DATA_COLUMNS} FROM ${DATA_FROM} WHERE r.state <> 'open' ORDER BY r.decided_at DESC LIMIT 50`,
  );
  return { open: await withUsers(pool, open.rows), decided: await withUsers(pool, decided.rows) };
}

/** Answers an open request with its file; false when it was not open. */
export async function answerDataRequest(
  pool: Pool,
  id: string,
  input: {
    fileName: string;
    contentType: string;
    bytes: number;
    sha256: string;
    note: string;
    operatorId: string;
  },
): Promise<boolean> {
  const result = await pool.query(
    `UPDATE portal_data_requests SET state = 'answered', file_name = $2, content_type = $3, file_bytes = $4,
            file_sha256 = $5, reason = $6, decided_at = now(), decided_by = $7
      WHERE id = $1 AND state = 'open'`,
    [id, input.fileName, input.contentType, input.bytes, input.sha256, input.note, input.operatorId],
  );
  return (result.rowCount ?? 0) > 0;
}

export async function declineDataRequest(
  pool: Pool,
  id: string,
  input: { reason: string; operatorId: string },
): Promise<boolean> {
  const result = await pool.query(
    `UPDATE portal_data_requests SET state = 'declined', reason = $2, decided_at = now(), decided_by = $3
      WHERE id = $1 AND state = 'open'`,
    [id, input.reason, input.operatorId],
  );
  return (result.rowCount ?? 0) > 0;
}
