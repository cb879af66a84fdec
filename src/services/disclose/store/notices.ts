/**
 * The notices' SQL: the regulator's notices on an offer or a scheme (a page of them, one of them), each
 * with how many documents it has and when it last changed (its recording or its latest document).
 */
import type { Pool } from 'pg';
import type { Slice } from './register.ts';

export interface NoticeRow {
  noticeRecId: string;
  noticeType: string;
  /** YYYY-MM-DD. */
  noticeDate: string;
  summary: string;
  documentCount: number;
  /** Its recording or its latest document, whichever is later. */
  lastChanged: Date;
}

const NOTICE_COLUMNS = `n.notice_rec_id AS "noticeRecId", n.notice_type AS "noticeType",
  to_char(n.notice_date, 'YYYY-MM-DD') AS "noticeDate", n.summary,
  (SELECT count(*) FROM disclose_documents d WHERE d.notice_rec_id = n.notice_rec_id)::int AS "documentCount",
  greatest(n.recorded_at, (SELECT max(d.added_at) FROM disclose_documents d
                            WHERE d.notice_rec_id = n.notice_rec_id)) AS "lastChanged"`;

/**
 * A page of the notices on a record, newest first, how many there are, and when the latest of them
 * changed (undefined when it has none).
 */
export async function noticesOf(
  pool: Pool,
  subject: 'offer' | 'scheme',
  number: string,
  slice: Slice,
): Promise<{ total: number; rows: NoticeRow[]; lastChanged: Date | undefined }> {
  const [rows, summary] = await Promise.all([
    pool.query<NoticeRow>(
      `SELECT ${NOTICE_COLUMNS} FROM disclose_notices n
        WHERE n.subject_kind = $1 AND n.subject_number = $2
        ORDER BY n.notice_date DESC, n.notice_rec_id DESC LIMIT $3 OFFSET $4`,
      [subject, number, slice.limit, slice.offset],
    ),
    pool.query<{ n: number; at: Date | null }>(
      `SELECT count(*)::int AS n,
              max(greatest(n.recorded_at, (SELECT max(d.added_at) FROM disclose_documents d
                                            WHERE d.notice_rec_id = n.notice_rec_id))) AS at
         FROM disclose_notices n WHERE n.subject_kind = $1 AND n.subject_number = $2`,
      [subject, number],
    ),
  ]);
  const counted = summary.rows[0];
  return { total: counted?.n ?? 0, rows: rows.rows, lastChanged: counted?.at ?? undefined };
}

/** A notice on a record: undefined when the record has no notice of that id. */
export async function noticeOf(
  pool: Pool,
  subject: 'offer' | 'scheme',
  number: string,
  recId: string,
): Promise<NoticeRow | undefined> {
  const result = await pool.query<NoticeRow>(
    `SELECT ${NOTICE_COLUMNS} FROM disclose_notices n
      WHERE n.notice_rec_id = $1 AND n.subject_kind = $2 AND n.subject_number = $3`,
    [recId, subject, number],
  );
  return result.rows[0];
}
