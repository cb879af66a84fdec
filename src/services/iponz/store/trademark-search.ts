/**
 * The trade mark search's SQL. The title query (domain/title-query.ts) is compiled to SQL: a query of
 * one word an `EXISTS` on the words table (migration 004: a B-tree on word and number, so a common word
 * is read from the index alone); any other query each phrase a case-insensitive word-bounded regular
 * expression on `title_folded` (`~`, served by the trigram GIN index of migration 003), AND/OR/NOT as
 * SQL's. The answer is the first `limit + 1` marks by number: one more than answered tells that more
 * matched. `searchTrademarksPlainIlike` is the straightforward query (ILIKE on the title, no index), the
 * benchmark's baseline.
 */
import type pg from 'pg';
import type { TitleQuery } from '../domain/title-query.ts';
import type { TradeMarkCriteria, TradeMarkHit } from '../domain/trademark-search.ts';

const ALNUM = '[[:alnum:]]';
const NOT_ALNUM = '[^[:alnum:]]';

/** One word pattern as a PostgreSQL regular expression (letters and digits literal, `*`, `?`). */
function wordRegex(pattern: string): string {
  // A word is never empty (`*` alone matches a word, not the space between two).
  const start = /^\*+$/.test(pattern) ? `(?=${ALNUM})` : '';
  return start + [...pattern].map((c) => (c === '*' ? `${ALNUM}*` : c === '?' ? ALNUM : c)).join('');
}

/**
 * A phrase: its words, consecutive, each a whole word of the folded title. When the last word ends with
 * `*`, the rest of that word is whatever follows, so the expression stops there (measured: `kau*` as
 * `(^|[^[:alnum:]])kau` is about a third cheaper per title than with the end of the word spelled out).
 */
export function phraseRegex(words: readonly string[]): string {
  const last = words.length - 1;
  const open = words[last]!.endsWith('*');
  const parts = words.map((word, i) => {
    if (i !== last || !open) return wordRegex(word);
    const rest = word.replace(/\*+$/, '');
    return rest === '' ? `(?=${ALNUM})` : wordRegex(rest);
  });
  return `(^|${NOT_ALNUM})${parts.join(`${NOT_ALNUM}+`)}${open ? '' : `(${NOT_ALNUM}|$)`}`;
}

/** Where the compiled query reads: the folded title, the mark's number, the words table (migration 004). */
export interface TitleTarget {
  title: string;
  number: string;
  words: string;
}
const CASES: TitleTarget = { title: 'c.title_folded', number: 'c.case_number', words: 'iponz_title_words' };

/**
 * One word pattern as a LIKE pattern over a whole word of the words table: `*` is `%`, `?` is `_`. A
 * pattern holds only letters, digits and the two wildcards (the parser keeps no other character), so
 * nothing needs escaping; a word is never empty, so `%` alone matches every word and no more.
 */
export function wordLike(pattern: string): string {
  return pattern.replace(/\*+/g, '%').replace(/\?/g, '_');
}

/**
 * The query as a SQL condition on the target (by default the search's `iponz_cases c`); its values
 * appended to `params`. A query that is one word (`kau*`, `kauri`, `k?uri`) is answered from the words
 * table (`EXISTS` on its B-tree: a word without wildcards an equality, else a LIKE, a trailing `*` a
 * prefix range of the index). Any other query is compiled node by node: each phrase a word-bounded regular
 * expression on the folded title (the trigram GIN index of migration 003), AND/OR/NOT SQL's — measured on
 * 600,000 marks, `kau* AND sou*` as two `EXISTS` took 172 ms against 6 ms as two regular expressions
 * (the trigram index intersects them), `kau* OR sou*` 162 ms against 21 ms.
 */
export function compileTitleQuery(query: TitleQuery, params: unknown[], target: TitleTarget = CASES): string {
  if (query.op === 'phrase' && query.words.length === 1) {
    const word = query.words[0]!;
    const wild = /[*?]/.test(word);
    params.push(wild ? wordLike(word) : word);
    return `EXISTS (SELECT 1 FROM ${target.words} w WHERE w.word ${wild ? 'LIKE' : '='} $${params.length}
           AND w.case_number = ${target.number})`;
  }
  return compileExpression(query, params, target.title);
}

/** A query node by node: phrases as regular expressions on `column`, AND/OR/NOT SQL's. */
function compileExpression(query: TitleQuery, params: unknown[], column: string): string {
  switch (query.op) {
    case 'phrase':
      params.push(phraseRegex(query.words));
      return `${column} ~ $${params.length}`;
    case 'and':
      return `(${compileExpression(query.left, params, column)} AND ${compileExpression(query.right, params, column)})`;
    case 'or':
      return `(${compileExpression(query.left, params, column)} OR ${compileExpression(query.right, params, column)})`;
    case 'not':
      return `(NOT ${compileExpression(query.operand, params, column)})`;
  }
}

const COLUMNS = `c.case_number, c.title, c.status, c.status_date::text, c.application_date::text,
    c.term_date::text, c.registration_date::text, c.last_renewal_due_date::text, c.mark_image_name,
    coalesce(c.mark_nature, 'Trade Mark') AS mark_nature, coalesce(c.mark_type, 'Word') AS mark_type`;
const DETAILS = `
    ARRAY(SELECT g.class_number FROM iponz_goods_services g
          WHERE g.kind = 'trademark' AND g.case_number = h.case_number ORDER BY g.class_number) AS classes,
    ARRAY(SELECT d.document_identifier FROM iponz_case_documents d
          WHERE d.kind = 'trademark' AND d.case_number = h.case_number
          ORDER BY d.created_on, d.document_identifier) AS documents`;
/** The marks chosen (`WHERE …`), then their classes and documents read for the chosen ones alone. */
const selectHits = (where: string, limit: string) =>
  `SELECT h.*, ${DETAILS} FROM (SELECT ${COLUMNS} FROM iponz_cases c WHERE ${where}
     ORDER BY c.case_number LIMIT ${limit}) h ORDER BY h.case_number`;

/** The WHERE conditions of the criteria. */
export function searchConditions(criteria: TradeMarkCriteria, params: unknown[]): string[] {
  const where = [`c.kind = 'trademark'`];
  const add = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (criteria.title) where.push(compileTitleQuery(criteria.title, params));
  if (criteria.filing?.from) where.push(`c.application_date >= ${add(criteria.filing.from)}::date`);
  if (criteria.filing?.to) where.push(`c.application_date <= ${add(criteria.filing.to)}::date`);
  if (criteria.registered?.from) where.push(`c.registration_date >= ${add(criteria.registered.from)}::date`);
  if (criteria.registered?.to) where.push(`c.registration_date <= ${add(criteria.registered.to)}::date`);
  if (criteria.statuses?.length) where.push(`c.status = ANY(${add(criteria.statuses)}::text[])`);
  if (criteria.nature) where.push(`coalesce(c.mark_nature, 'Trade Mark') = ${add(criteria.nature)}`);
  if (criteria.type) where.push(`coalesce(c.mark_type, 'Word') = ${add(criteria.type)}`);
  for (const [role, id] of [
    ['Owner', criteria.ownerClientId],
    ['Agent', criteria.agentClientId],
  ] as const)
    if (id !== undefined)
      where.push(
        `EXISTS (SELECT 1 FROM iponz_case_parties p WHERE p.client_id = ${add(id)} AND p.role = '${role}'
           AND p.kind = 'trademark' AND p.case_number = c.case_number)`,
      );
  return where;
}

const hitOf = (row: Record<string, unknown>): TradeMarkHit => ({
  caseNumber: row.case_number as number,
  title: row.title as string,
  status: row.status as string,
  statusDate: row.status_date as string,
  applicationDate: row.application_date as string,
  termDate: row.term_date as string,
  registrationDate: row.registration_date as string | null,
  lastRenewalDueDate: row.last_renewal_due_date as string | null,
  markImageName: row.mark_image_name as string | null,
  markNature: row.mark_nature as string,
  markType: row.mark_type as string,
  classes: row.classes as number[],
  documents: row.documents as string[],
});

/** The first `limit` marks matching, by number, and whether more matched. */
export async function searchTrademarks(
  pool: pg.Pool,
  criteria: TradeMarkCriteria,
  limit: number,
): Promise<{ hits: TradeMarkHit[]; more: boolean }> {
  const params: unknown[] = [];
  const where = searchConditions(criteria, params);
  params.push(limit + 1);
  // The marks are chosen first, their classes and documents read for those alone: with the details in
  // the same select, a plan that sorts every match would run the two subqueries for each.
  const { rows } = await pool.query(selectHits(where.join(' AND '), `$${params.length}`), params);
  const more = rows.length > limit;
  return { hits: rows.slice(0, limit).map(hitOf), more };
}

/** The baseline: a one-word term as `title ILIKE '%term%'` (no index, no word boundaries), capped alike. */
export async function searchTrademarksPlainIlike(
  pool: pg.Pool,
  term: string,
  limit: number,
): Promise<number> {
  const { rows } = await pool.query(selectHits(`c.kind = 'trademark' AND c.title ILIKE $1`, '$2'), [
    `%${term.replace(/[%_\\]/g, '\\$&')}%`,
    limit + 1,
  ]);
  return rows.length;
}
