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

const COLUMNS = `search_id AS "searchId", organisation_id AS "organisationId",
  certificate_number AS "certificateNumber", search_by AS "searchBy", searched_at AS "searchedAt", results`;

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
  },
): Promise<SearchRow> {
  const result = await client.query<SearchRow>(
    `INSERT INTO ppsr_searches (search_id, organisation_id, certificate_number, search_by, criterion,
       searched_at, results, transaction_id)
     VALUES ($1, $2, 'SC' || lpad(nextval('ppsr_search_certificate_numbers')::text, 10, '0'), $3, $4, $5, $6, $7)
     RETURNING ${COLUMNS}`,
    [
      search.searchId,
      search.organisationId,
      search.searchBy,
      JSON.stringify(search.criterion),
      search.searchedAt,
      search.results,
      search.transactionId,
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
