/** The documents' SQL: a record's documents (of a type, of a notice) and a document by its identifier. */
import type { Pool } from 'pg';
import type { Slice } from './register.ts';

export interface DocumentRow {
  documentRecId: string;
  subjectKind: 'offer' | 'scheme' | 'fund';
  subjectNumber: string;
  documentType: string;
  noticeRecId: string | null;
  title: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  storageKey: string;
  addedAt: Date;
}

const DOCUMENT_COLUMNS = `document_rec_id AS "documentRecId", subject_kind AS "subjectKind",
  subject_number AS "subjectNumber", document_type AS "documentType", notice_rec_id AS "noticeRecId",
  title, file_name AS "fileName", content_type AS "contentType", size_bytes AS "sizeBytes",
  storage_key AS "storageKey", added_at AS "addedAt"`;

/** Documents of a record, of one type and notice when given, newest first. */
export async function documents(
  pool: Pool,
  filter: { kind: 'offer' | 'scheme' | 'fund'; number: string; type?: string; notice?: string },
  slice: Slice,
): Promise<{ total: number; rows: DocumentRow[] }> {
  const where = `subject_kind = $1 AND subject_number = $2 AND ($3::text IS NULL OR document_type = $3)
    AND ($4::text IS NULL OR notice_rec_id = $4)`;
  const values = [filter.kind, filter.number, filter.type ?? null, filter.notice ?? null];
  const [rows, count] = await Promise.all([
    pool.query<DocumentRow>(
      `SELECT ${DOCUMENT_COLUMNS} FROM disclose_documents WHERE ${where}
        ORDER BY added_at DESC, document_rec_id DESC LIMIT $5 OFFSET $6`,
      [...values, slice.limit, slice.offset],
    ),
    pool.query<{ n: number }>(`SELECT count(*) AS n FROM disclose_documents WHERE ${where}`, values),
  ]);
  return { total: Number(count.rows[0]?.n ?? 0), rows: rows.rows };
}

export async function documentById(pool: Pool, recId: string): Promise<DocumentRow | undefined> {
  const result = await pool.query<DocumentRow>(
    `SELECT ${DOCUMENT_COLUMNS} FROM disclose_documents WHERE document_rec_id = $1`,
    [recId],
  );
  return result.rows[0];
}
