/**
 * The GIN indexes of `nzbn_entities` that a large seed drops before its load and builds afterwards:
 * building a GIN index over 700,000 rows at once is several times cheaper than updating it row by
 * row. The definitions repeat migrations/001_entities.sql exactly; `ensureEntityIndexes` also repairs
 * a seed that stopped between the drop and the build.
 */
import type pg from 'pg';
import { withTransaction } from '../../../platform/db/pool.ts';

export const BULK_LOAD_INDEXES: readonly { name: string; definition: string }[] = [
  {
    name: 'nzbn_entities_search',
    definition: 'ON nzbn_entities USING gin (search_words)',
  },
  { name: 'nzbn_entities_industry', definition: 'ON nzbn_entities USING gin (industry_codes)' },
];

/** Loads of at least this many chunks drop the indexes first. */
export const DROP_INDEXES_FROM_CHUNKS = 10;

export async function dropEntityIndexes(pool: pg.Pool): Promise<void> {
  for (const index of BULK_LOAD_INDEXES) await pool.query(`DROP INDEX IF EXISTS ${index.name}`);
}

/**
 * Rewrites `nzbn_entities` in name order (CLUSTER on the name index), after a bulk load and before the
 * GIN indexes are built (CLUSTER rebuilds every index there is). Search pages come in name order and a
 * word's matches often share the start of their names, so rows a search reads then sit on the same
 * pages: at national scale the search mix's p95 falls by about 40% (docs/benchmarks.md, bench/nzbn-search.ts). Takes the table's
 * exclusive lock while it rewrites the table and its B-tree indexes (about 10 s at national scale; the
 * seed drops the GIN indexes first and builds them after). Later updates go wherever there is room; only the next bulk load
 * restores the order. CLUSTER also marks the index (`pg_index.indisclustered`), which is how a seed
 * tells a large register loaded before this existed (`isClustered`).
 */
export async function clusterEntities(pool: pg.Pool): Promise<void> {
  // SET LOCAL: the pooled connection goes back with its own settings.
  await withTransaction(pool, async (client) => {
    await client.query("SET LOCAL maintenance_work_mem = '512MB'");
    await client.query('CLUSTER nzbn_entities USING nzbn_entities_sort');
  });
}

export async function isClustered(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query<{ clustered: boolean }>(
    `SELECT COALESCE(bool_or(indisclustered), false) AS clustered
       FROM pg_index WHERE indrelid = 'nzbn_entities'::regclass`,
  );
  return rows[0]!.clustered;
}

export async function ensureEntityIndexes(pool: pg.Pool): Promise<void> {
  // A GIN build sorts in memory: more memory, fewer passes (SET LOCAL: for this transaction only).
  await withTransaction(pool, async (client) => {
    await client.query("SET LOCAL maintenance_work_mem = '512MB'");
    for (const index of BULK_LOAD_INDEXES) {
      await client.query(`CREATE INDEX IF NOT EXISTS ${index.name} ${index.definition}`);
    }
  });
}
