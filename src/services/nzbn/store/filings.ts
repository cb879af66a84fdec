/**
 * Filings made through the API (migration 016, `nzbn_filings`): a company's document filing (NZBN_905),
 * one document each. The filing, its document's row and the change event the watchlists see are
 * written in one transaction (operations/documents.ts); the sandbox's generated filings are not stored.
 */
import type pg from 'pg';

type Queryable = pg.Pool | pg.PoolClient;

export interface StoredFiling {
  filingId: string;
  nzbn: string;
  filingCode: string;
  registrationDate: Date;
  submissionDate: Date;
  effectiveDate: Date;
  documentId: string;
  documentType: string | null;
}

interface Row {
  filing_id: string;
  nzbn: string;
  filing_code: string;
  registration_date: Date;
  submission_date: Date;
  effective_date: Date;
  document_id: string;
  document_type: string | null;
}

const toFiling = (row: Row): StoredFiling => ({
  filingId: row.filing_id,
  nzbn: row.nzbn,
  filingCode: row.filing_code,
  registrationDate: row.registration_date,
  submissionDate: row.submission_date,
  effectiveDate: row.effective_date,
  documentId: row.document_id,
  documentType: row.document_type,
});

/** An entity's filings, oldest first, each with its document's type. */
export async function filingsOf(db: Queryable, nzbn: string): Promise<StoredFiling[]> {
  const { rows } = await db.query<Row>(
    `SELECT f.filing_id, f.nzbn, f.filing_code, f.registration_date, f.submission_date, f.effective_date,
            f.document_id, d.document_type
       FROM nzbn_filings f JOIN nzbn_documents d USING (document_id)
      WHERE f.nzbn = $1 ORDER BY f.registration_date, f.filing_id`,
    [nzbn],
  );
  return rows.map(toFiling);
}

/** The filing that names a document, if any. */
export async function filingOfDocument(db: Queryable, documentId: string): Promise<StoredFiling | undefined> {
  const { rows } = await db.query<Row>(
    `SELECT f.filing_id, f.nzbn, f.filing_code, f.registration_date, f.submission_date, f.effective_date,
            f.document_id, d.document_type
       FROM nzbn_filings f JOIN nzbn_documents d USING (document_id) WHERE f.document_id = $1`,
    [documentId],
  );
  return rows[0] && toFiling(rows[0]);
}

/**
 * The entity a filing is made for, held (FOR SHARE) until the caller's transaction ends, so it cannot
 * go while its filing is written: its name and type for the change event, or undefined when none.
 */
export async function holdEntity(
  client: pg.PoolClient,
  nzbn: string,
): Promise<{ entityName: string; entityTypeCode: string } | undefined> {
  const { rows } = await client.query<{ entity_name: string; type_code: string }>(
    'SELECT entity_name, type_code FROM nzbn_entities WHERE nzbn = $1 FOR SHARE',
    [nzbn],
  );
  return rows[0] && { entityName: rows[0].entity_name, entityTypeCode: rows[0].type_code };
}

/** A new filing, in the caller's transaction (its document's row is there already). */
export async function insertFiling(
  client: pg.PoolClient,
  filing: Omit<StoredFiling, 'documentType'> & { filedBy: string },
): Promise<void> {
  await client.query(
    `INSERT INTO nzbn_filings (filing_id, nzbn, filing_code, registration_date, submission_date,
       effective_date, document_id, filed_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      filing.filingId,
      filing.nzbn,
      filing.filingCode,
      filing.registrationDate,
      filing.submissionDate,
      filing.effectiveDate,
      filing.documentId,
      filing.filedBy,
    ],
  );
}
