import type pg from 'pg';
import { nzbnForIndex } from '../src/services/nzbn/sandbox/numbers.ts';

/**
 * The search mix of `bench:nzbn` and `bench/nzbn-search.ts`, drawn from the register: for 2,000
 * generated entities spread evenly over it by generator index (whatever the rows' physical order; a
 * page sample of a table in name order would take runs of similar names), a name's first word, its
 * first two words, a trading name and a company number; one query in three filtered by status or type.
 */
export async function searchMix(
  pool: pg.Pool,
  entities: number,
): Promise<{ terms: string[]; path: (base: string, i: number) => string }> {
  const { rows } = await pool.query<{ name: string; trading: string | null; number: string | null }>(
    `SELECT entity_name AS name, trading_names[1] AS trading, source_register_unique_id AS number
       FROM nzbn_entities WHERE nzbn = ANY($1) ORDER BY nzbn`,
    [Array.from({ length: 2000 }, (_, i) => nzbnForIndex(Math.floor((i * entities) / 2000)))],
  );
  const terms = rows.flatMap(({ name, trading, number }) => {
    const parts = name.split(/\s+/);
    return [
      parts[0]!,
      parts.slice(0, 2).join(' '),
      ...(trading ? [trading] : []),
      ...(number ? [number] : []),
    ];
  });
  const filters = ['', '', '', '', '&entity-status=Registered', '&entity-type=NZCompany'];
  return {
    terms,
    path: (base, i) =>
      `${base}/entities?search-term=${encodeURIComponent(terms[i % terms.length]!)}${filters[i % filters.length]}`,
  };
}

export const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
