/**
 * Entity search in SQL. Each word of the term must begin a word of `search_text` (a prefix query on
 * its word index, `search_words`), filters narrow by status, type and industry code, and entities
 * come in name order. Counting stops at SEARCH_COUNT_LIMIT matches, as a search index does, so a very
 * common word costs no more than a rarer one; pages reach that far.
 */
import type pg from 'pg';

export const SEARCH_COUNT_LIMIT = 10_000;

export interface EntitySearch {
  /** Folded words (letters and digits only), see domain/search-text.ts. */
  words: readonly string[];
  statusCodes?: readonly string[] | undefined;
  typeCodes?: readonly string[] | undefined;
  industryCodes?: readonly string[] | undefined;
  limit: number;
  offset: number;
}

export interface SearchPage {
  /** Matches, counted up to SEARCH_COUNT_LIMIT. */
  total: number;
  /** Business numbers of the page, in order. */
  nzbns: string[];
}

function whereClause(search: EntitySearch): { sql: string; params: unknown[] } {
  // Words are letters and digits only (domain/search-text.ts), so they are safe in a tsquery.
  const params: unknown[] = [];
  const conditions: string[] = [];
  if (search.words.length > 0) {
    // A single letter or digit is a word of its own (A & B LIMITED), not the start of every word.
    params.push(search.words.map((word) => (word.length > 1 ? `${word}:*` : word)).join(' & '));
    conditions.push(`search_words @@ to_tsquery('simple', $1)`);
  }
  if (search.statusCodes) {
    params.push(search.statusCodes);
    conditions.push(`status_code = ANY($${params.length})`);
  }
  if (search.typeCodes) {
    params.push(search.typeCodes);
    conditions.push(`type_code = ANY($${params.length})`);
  }
  if (search.industryCodes) {
    params.push(search.industryCodes);
    conditions.push(`industry_codes && $${params.length}::text[]`);
  }
  return { sql: conditions.join(' AND ') || 'true', params };
}

/**
 * One query collects up to SEARCH_COUNT_LIMIT + 1 matches through the word index (no order asked, so
 * the planner cannot choose to walk the name index: entities named after the searched word all sit at
 * one place in name order, and walking to them can pass most of the register) and sorts the page from
 * them. Only when there are more matches than that does a second query walk the name index, where
 * matches are then dense enough to be met early.
 */
export async function searchEntities(db: pg.Pool, search: EntitySearch): Promise<SearchPage> {
  const { sql, params } = whereClause(search);
  const reachable = search.offset < SEARCH_COUNT_LIMIT;
  const limit = Math.max(0, Math.min(search.limit, SEARCH_COUNT_LIMIT - search.offset));
  const page = `ORDER BY sort_name, nzbn LIMIT ${reachable ? limit : 0} OFFSET ${search.offset}`;
  const collected = await db.query<{ total: number; nzbns: string[] }>(
    `WITH matches AS MATERIALIZED (
       SELECT nzbn, sort_name FROM nzbn_entities WHERE ${sql} LIMIT ${SEARCH_COUNT_LIMIT + 1})
     SELECT (SELECT count(*)::int FROM matches) AS total,
            ARRAY(SELECT nzbn FROM matches ${page}) AS nzbns`,
    params,
  );
  const { total, nzbns } = collected.rows[0]!;
  if (total <= SEARCH_COUNT_LIMIT) return { total, nzbns };
  const walked = reachable
    ? (await db.query<{ nzbn: string }>(`SELECT nzbn FROM nzbn_entities WHERE ${sql} ${page}`, params)).rows
    : [];
  return { total: SEARCH_COUNT_LIMIT, nzbns: walked.map((row) => row.nzbn) };
}
