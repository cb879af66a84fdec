/**
 * The sandbox business number register's businesses, for the IP office's business clients (the same
 * names and numbers). Read from the environment database, where that register's seed (earlier in
 * `rsg seed`'s order) put them: by its generator index, so the same register gives the same list. None when
 * that register is not there or not seeded.
 */
import type pg from 'pg';

export interface Business {
  name: string;
  nzbn: string;
}

export async function sandboxBusinesses(pool: pg.Pool, limit: number): Promise<Business[]> {
  const { rows: present } = await pool.query<{ table: string | null }>(
    `SELECT to_regclass('nzbn_entities')::text AS table`,
  );
  if (!present[0]?.table) return [];
  const { rows } = await pool.query<Business>(
    `SELECT entity_name AS name, nzbn FROM nzbn_entities
     WHERE origin = 'generated' AND seed_index IS NOT NULL
     ORDER BY seed_index LIMIT $1`,
    [limit],
  );
  return rows;
}
