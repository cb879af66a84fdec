/**
 * Document records (`iponz_case_documents`): one by identifier for the download; a stored document's
 * size recorded; orphan files (bytes in the store whose row never came: the transaction that was to
 * record them failed after the file was written) found for removal.
 */
import type pg from 'pg';

export interface DocumentRecord {
  documentIdentifier: string;
  kind: string;
  caseNumber: number;
  documentName: string;
  objectFormat: 'pdf' | 'jpeg' | 'gif';
  storedSize: number | null;
  /** The mark's title when the document is its case's mark image (`MarkImageName` names it). */
  markTitle?: string | null;
}

export async function findDocument(
  pool: pg.Pool | pg.PoolClient,
  id: string,
): Promise<DocumentRecord | undefined> {
  const { rows } = await pool.query(
    `SELECT d.document_identifier, d.kind, d.case_number, d.document_name, d.object_format, d.stored_size,
            c.title AS mark_title
       FROM iponz_case_documents d
       LEFT JOIN iponz_cases c ON c.kind = d.kind AND c.case_number = d.case_number
                              AND c.mark_image_name = d.document_name
      WHERE d.document_identifier = $1`,
    [id],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    documentIdentifier: row.document_identifier,
    kind: row.kind,
    caseNumber: row.case_number,
    documentName: row.document_name,
    objectFormat: row.object_format,
    storedSize: row.stored_size === null ? null : Number(row.stored_size),
    markTitle: row.mark_title ?? null,
  };
}

/** Which of these identifiers have a row (the others' files are orphans). */
export async function recordedDocuments(pool: pg.Pool, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const { rows } = await pool.query(
    'SELECT document_identifier FROM iponz_case_documents WHERE document_identifier = ANY($1::text[])',
    [ids],
  );
  return new Set(rows.map((row) => row.document_identifier as string));
}

/**
 * Records a stored document on a case, in the caller's transaction (after the bytes are in the store).
 */
export async function insertDocument(
  client: pg.PoolClient,
  document: Omit<DocumentRecord, 'storedSize'> & { storedSize: number; createdOn: string },
): Promise<void> {
  await client.query(
    `INSERT INTO iponz_case_documents (document_identifier, kind, case_number, document_name, object_format,
       created_on, stored_size) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      document.documentIdentifier,
      document.kind,
      document.caseNumber,
      document.documentName,
      document.objectFormat,
      document.createdOn,
      document.storedSize,
    ],
  );
}
