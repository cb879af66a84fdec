/**
 * Uploaded documents (migration 016, `nzbn_documents`): one row per document, naming its bytes in the
 * register's document store by `storage_id`. The operation writes the bytes first and the row in its
 * transaction (a file without a row is an orphan the routes' start removes); a new version of a document
 * is a new file and the row changed to name it, under the row's lock.
 */
import type pg from 'pg';

type Queryable = pg.Pool | pg.PoolClient;

export interface DocumentRow {
  documentId: string;
  storageId: string;
  ownerUserId: string;
  documentType: string | null;
  fileName: string | null;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  filedAt: Date | null;
}

/** What a new version of a document is made of (its bytes are in the store under `storageId`). */
export interface DocumentVersion {
  storageId: string;
  documentType: string | null;
  fileName: string | null;
  contentType: string;
  sizeBytes: number;
  sha256: string;
}

const COLUMNS = `document_id, storage_id, owner_user_id, document_type, file_name, content_type,
  size_bytes, sha256, version, created_at, updated_at, filed_at`;

interface Row {
  document_id: string;
  storage_id: string;
  owner_user_id: string;
  document_type: string | null;
  file_name: string | null;
  content_type: string;
  size_bytes: string;
  sha256: string;
  version: number;
  created_at: Date;
  updated_at: Date;
  filed_at: Date | null;
}

const toDocument = (row: Row): DocumentRow => ({
  documentId: row.document_id,
  storageId: row.storage_id,
  ownerUserId: row.owner_user_id,
  documentType: row.document_type,
  fileName: row.file_name,
  contentType: row.content_type,
  sizeBytes: Number(row.size_bytes),
  sha256: row.sha256,
  version: row.version,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  filedAt: row.filed_at,
});

export async function documentById(db: Queryable, documentId: string): Promise<DocumentRow | undefined> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM nzbn_documents WHERE document_id = $1`, [
    documentId,
  ]);
  return rows[0] && toDocument(rows[0]);
}

/** Several documents by identifier (missing ones are left out). */
export async function documentsByIds(db: Queryable, ids: readonly string[]): Promise<DocumentRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM nzbn_documents WHERE document_id = ANY($1)`, [
    ids,
  ]);
  return rows.map(toDocument);
}

/** A document's row, locked for the caller's transaction (a change, or filing it). */
export async function lockDocument(
  client: pg.PoolClient,
  documentId: string,
): Promise<DocumentRow | undefined> {
  const { rows } = await client.query<Row>(
    `SELECT ${COLUMNS} FROM nzbn_documents WHERE document_id = $1 FOR UPDATE`,
    [documentId],
  );
  return rows[0] && toDocument(rows[0]);
}

/** A new document, in the caller's transaction. */
export async function insertDocument(
  client: pg.PoolClient,
  document: { documentId: string; ownerUserId: string; at: Date } & DocumentVersion,
): Promise<DocumentRow> {
  const { rows } = await client.query<Row>(
    `INSERT INTO nzbn_documents (document_id, storage_id, owner_user_id, document_type, file_name,
       content_type, size_bytes, sha256, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING ${COLUMNS}`,
    [
      document.documentId,
      document.storageId,
      document.ownerUserId,
      document.documentType,
      document.fileName,
      document.contentType,
      document.sizeBytes,
      document.sha256,
      document.at,
    ],
  );
  return toDocument(rows[0]!);
}

/** A document's new version (locked first by the caller), in the caller's transaction. */
export async function replaceDocument(
  client: pg.PoolClient,
  documentId: string,
  version: DocumentVersion,
  at: Date,
): Promise<DocumentRow> {
  const { rows } = await client.query<Row>(
    `UPDATE nzbn_documents SET storage_id = $2, document_type = $3, file_name = $4, content_type = $5,
       size_bytes = $6, sha256 = $7, version = version + 1, updated_at = $8
     WHERE document_id = $1 RETURNING ${COLUMNS}`,
    [
      documentId,
      version.storageId,
      version.documentType,
      version.fileName,
      version.contentType,
      version.sizeBytes,
      version.sha256,
      at,
    ],
  );
  return toDocument(rows[0]!);
}

/** Marks a document filed as `documentType` (it no longer changes), in the caller's transaction. */
export async function markFiled(
  client: pg.PoolClient,
  documentId: string,
  documentType: string,
  at: Date,
): Promise<void> {
  await client.query('UPDATE nzbn_documents SET filed_at = $2, document_type = $3 WHERE document_id = $1', [
    documentId,
    at,
    documentType,
  ]);
}

/** Which of these store names a document's row names (the rest are orphans). */
export async function recordedStorage(db: Queryable, storageIds: readonly string[]): Promise<Set<string>> {
  if (storageIds.length === 0) return new Set();
  const { rows } = await db.query<{ storage_id: string }>(
    'SELECT storage_id FROM nzbn_documents WHERE storage_id = ANY($1)',
    [storageIds],
  );
  return new Set(rows.map((row) => row.storage_id));
}
