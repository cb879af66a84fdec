/**
 * Searches (PPSR_02): the certificate and the snapshot of what a search found, so later pages of its
 * `searchId` show the same statements and cost nothing (published).
 */
import type pg from 'pg';

type Client = Pick<pg.PoolClient, 'query'>;

export interface SearchRow {
  searchId: string;
  organisationId: string;
  certificateNumber: string;
  searchBy: string;
  searchedAt: Date;
  results: string[];
}

/** A search as its certificate shows it: what was asked, by whom, and what was found as it stood. */
export interface CertificateRow extends SearchRow {
  criterion: Record<string, unknown>;
  searcherName: string | null;
  /** The statements found, as the search showed them; null for searches made before they were kept. */
  resultStatements: unknown[] | null;
}

const COLUMNS = `search_id AS "searchId", organisation_id AS "organisationId",
  certificate_number AS "certificateNumber", search_by AS "searchBy", searched_at AS "searchedAt", results`;

/** A search certificate of this organisation (another organisation's is not found). */
export async function getCertificate(
  client: Client,
  organisationId: string,
  certificateNumber: string,
): Promise<CertificateRow | undefined> {
  const result = await client.query<CertificateRow>(
    `SELECT ${COLUMNS}, criterion, searcher_name AS "searcherName", result_statements AS "resultStatements"
       FROM ppsr_searches WHERE certificate_number = $1 AND organisation_id = $2`,
    [certificateNumber, organisationId],
  );
  return result.rows[0];
}

/** Records a search; its certificate number is `SC` and 10 digits from the register's sequence. */
export async function insertSearch(
  client: Client,
  search: {
    searchId: string;
    organisationId: string;
    searchBy: string;
    criterion: unknown;
    searchedAt: Date;
    results: readonly string[];
    transactionId: number;
    /** For the certificate: who searched, and the statements found as the search shows them. */
    searcherName: string;
    resultStatements: readonly unknown[];
  },
): Promise<SearchRow> {
  const result = await client.query<SearchRow>(
    `INSERT INTO ppsr_searches (search_id, organisation_id, certificate_number, search_by, criterion,
       searched_at, results, transaction_id, searcher_name, result_statements)
     VALUES ($1, $2, 'SC' || lpad(nextval('ppsr_search_certificate_numbers')::text, 10, '0'), $3, $4, $5, $6, $7,
       $8, $9)
     RETURNING ${COLUMNS}`,
    [
      search.searchId,
      search.organisationId,
      search.searchBy,
      JSON.stringify(search.criterion),
      search.searchedAt,
      search.results,
      search.transactionId,
      search.searcherName,
      JSON.stringify(search.resultStatements),
    ],
  );
  return result.rows[0]!;
}

/** An earlier search of this organisation (another organisation's searchId is not found). */
export async function getSearch(
  client: Client,
  organisationId: string,
  searchId: string,
): Promise<SearchRow | undefined> {
  const result = await client.query<SearchRow>(
    `SELECT ${COLUMNS} FROM ppsr_searches WHERE search_id = $1 AND organisation_id = $2`,
    [searchId, organisationId],
  );
  return result.rows[0];
}
