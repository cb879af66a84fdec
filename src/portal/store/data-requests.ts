import type { Pool } from 'pg';
import type { DataRequestFormat, DataRequestState } from '../domain/data-requests.ts';

/**
 * `portal_data_requests`: the offers register's data requests and their answers (the file itself is
 * kept in the data folder under the request's id). Who asked is a user id: their email and name are
 * identity's to say.
 */

export interface DataRequestRow {
  id: string;
  userId: string;
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

const DATA_COLUMNS = `r.id, r.user_id AS "userId", r.data, r.purpose,
  r.format, r.contact, r.state, r.reason, r.file_name AS "fileName", r.content_type AS "contentType",
  r.file_bytes::float8 AS "fileBytes", r.file_sha256 AS "fileSha256", r.created_at AS "createdAt",
  r.decided_at AS "decidedAt"`;
const DATA_FROM = 'portal_data_requests r';

export async function insertDataRequest(
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

export async function dataRequestsOf(pool: Pool, userId: string): Promise<DataRequestRow[]> {
  const rows = await pool.query<DataRequestRow>(
    `SELECT ${DATA_COLUMNS} FROM ${DATA_FROM} WHERE r.user_id = $1 ORDER BY r.created_at DESC LIMIT 200`,
    [userId],
  );
  return rows.rows;
}

export async function findDataRequest(pool: Pool, id: string): Promise<DataRequestRow | undefined> {
  const rows = await pool.query<DataRequestRow>(`SELECT ${DATA_COLUMNS} FROM ${DATA_FROM} WHERE r.id = $1`, [
    id,
  ]);
  return rows.rows[0];
}

/** Open requests oldest first, then the last 50 decided ones. */
export async function dataRequestQueue(
  pool: Pool,
): Promise<{ open: DataRequestRow[]; decided: DataRequestRow[] }> {
  const open = await pool.query<DataRequestRow>(
    `SELECT ${DATA_COLUMNS} FROM ${DATA_FROM} WHERE r.state = 'open' ORDER BY r.created_at LIMIT 500`,
  );
  const decided = await pool.query<DataRequestRow>(
    `SELECT ${DATA_COLUMNS} FROM ${DATA_FROM} WHERE r.state <> 'open' ORDER BY r.decided_at DESC LIMIT 50`,
  );
  return { open: open.rows, decided: decided.rows };
}

/** Answers an open request with its file; false when it was not open. */
export async function markDataRequestAnswered(
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

export async function markDataRequestDeclined(
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
