/**
 * Loads one chunk of generated entities with COPY: the entities, the earlier names of those entities,
 * their organisation parts and the requests for access to those, and the chunk's row in
 * `nzbn_seed_chunks`, in one transaction. A chunk is all there or not at all,
 * so an interrupted seed resumes where it stopped and two seeders never load a chunk twice (each
 * chunk is claimed with a transaction-scoped advisory lock and checked before loading). What a chunk
 * holds comes from the caller (the sandbox's generator, sandbox/seed-rows.ts): the store only loads it.
 */
import type pg from 'pg';
import { copyText } from '../../../platform/db/copy-text.ts';
import { withTransaction } from '../../../platform/db/pool.ts';
import type { OrganisationPart } from '../domain/organisation-part.ts';
import {
  ACCESS_REQUEST_COPY_COLUMNS,
  insertSeededAccessRequest,
  type SeededAccessRequest,
} from './org-part-access.ts';
import { insertPart, PART_COPY_COLUMNS } from './org-parts.ts';
import { ENTITY_COLUMNS, type EntityRow, entityRowValues, HISTORY_COPY_COLUMNS } from './rows.ts';

type Client = pg.Client | pg.PoolClient;

const SEED_LOCK_SPACE = 420_005;

export const ENTITY_COPY = `COPY nzbn_entities (${ENTITY_COLUMNS.join(', ')}) FROM STDIN`;
const HISTORY_COPY = `COPY nzbn_entity_history (${HISTORY_COPY_COLUMNS}) FROM STDIN`;

const PART_COPY = `COPY nzbn_organisation_parts (${PART_COPY_COLUMNS}) FROM STDIN`;
const ACCESS_COPY = `COPY nzbn_part_access_requests (${ACCESS_REQUEST_COPY_COLUMNS}) FROM STDIN`;

/**
 * One batch of a chunk's COPY text: entity lines, ended-name history lines, organisation part lines
 * (`partCopyLine`) and lines of requests for access to them (`accessRequestCopyLine`), and how many
 * entities.
 */
export interface ChunkText {
  entities: string[];
  history: string[];
  parts: string[];
  access: string[];
  count: number;
}

/** The COPY text of the entities with indexes [start, end) of a seed, in batches (made lazily). */
export type ChunkRows = (seed: string, start: number, end: number) => Iterable<ChunkText>;

/** A fixed test case as the seed inserts it: its row and its organisation parts. */
export interface FixtureRow {
  row: EntityRow;
  parts: readonly OrganisationPart[];
}

/**
 * Loads chunk `chunk` (entities `chunk × size` to `(chunk + 1) × size`) of the register seeded by `seed`,
 * its text made by `rows` only when the chunk is not there yet; returns the entities loaded (0 if
 * already there).
 */
export async function loadChunk(
  client: Client,
  rows: ChunkRows,
  seed: string,
  chunk: number,
  size: number,
): Promise<number> {
  return withTransaction(client, async () => {
    // Bulk load: the commit need not wait for the disk (a crash loses at most this chunk, which reloads).
    await client.query('SET LOCAL synchronous_commit = off');
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [SEED_LOCK_SPACE, chunk]);
    const done = await client.query('SELECT 1 FROM nzbn_seed_chunks WHERE seed = $1 AND chunk = $2', [
      seed,
      chunk,
    ]);
    if (done.rowCount) return 0;
    const history: string[] = [];
    const parts: string[] = [];
    const access: string[] = [];
    let count = 0;
    const entities = (function* () {
      for (const batch of rows(seed, chunk * size, (chunk + 1) * size)) {
        history.push(...batch.history);
        parts.push(...batch.parts);
        access.push(...batch.access);
        count += batch.count;
        yield batch.entities.join('');
      }
    })();
    await copyText(client, ENTITY_COPY, entities);
    if (history.length > 0) await copyText(client, HISTORY_COPY, [history.join('')]);
    // After the entities (their parents) and the parts (what the requests ask for).
    if (parts.length > 0) await copyText(client, PART_COPY, [parts.join('')]);
    if (access.length > 0) await copyText(client, ACCESS_COPY, [access.join('')]);
    await client.query('INSERT INTO nzbn_seed_chunks (seed, chunk, entities) VALUES ($1, $2, $3)', [
      seed,
      chunk,
      count,
    ]);
    return count;
  });
}

/** The chunks of the register seeded by `seed` that are loaded. */
export async function seededChunks(pool: pg.Pool, seed: string): Promise<Set<number>> {
  const { rows } = await pool.query<{ chunk: number }>('SELECT chunk FROM nzbn_seed_chunks WHERE seed = $1', [
    seed,
  ]);
  return new Set(rows.map((row) => row.chunk));
}

/** The entities of the register seeded by `seed` that are loaded. */
export async function seededEntities(pool: pg.Pool, seed: string): Promise<number> {
  const { rows } = await pool.query<{ entities: number }>(
    'SELECT COALESCE(sum(entities), 0)::int AS entities FROM nzbn_seed_chunks WHERE seed = $1',
    [seed],
  );
  return rows[0]!.entities;
}

/** Loads `chunks` one after the other on one connection of this thread; returns the entities loaded. */
export async function loadChunksHere(
  pool: pg.Pool,
  rows: ChunkRows,
  seed: string,
  chunks: readonly number[],
  size: number,
  onChunk: (chunk: number, count: number) => void,
): Promise<number> {
  const client = await pool.connect();
  let loaded = 0;
  try {
    for (const chunk of chunks) {
      const count = await loadChunk(client, rows, seed, chunk, size);
      loaded += count;
      onChunk(chunk, count);
    }
  } finally {
    client.release();
  }
  return loaded;
}

/** Fresh statistics for the planner, the GIN indexes' pending lists merged, the visibility map set. */
export async function vacuumEntities(pool: pg.Pool): Promise<void> {
  await pool.query('VACUUM (ANALYZE) nzbn_entities');
}

/**
 * Inserts the fixed test cases that are missing, with their organisation parts and the requests for
 * access to those, in one transaction.
 */
export async function insertFixtures(
  pool: pg.Pool,
  rows: readonly FixtureRow[],
  accessRequests: readonly SeededAccessRequest[] = [],
): Promise<void> {
  await withTransaction(pool, async (client) => {
    const placeholders = ENTITY_COLUMNS.map((_, i) => `$${i + 1}`).join(', ');
    for (const { row } of rows) {
      await client.query(
        `INSERT INTO nzbn_entities (${ENTITY_COLUMNS.join(', ')}) VALUES (${placeholders}) ON CONFLICT (nzbn) DO NOTHING`,
        entityRowValues(row),
      );
    }
    // A part is created once (with its fee record, the third of an entity) and never changed by a later seed.
    for (const { row, parts } of rows) {
      for (const part of parts) {
        const exists = await client.query('SELECT 1 FROM nzbn_organisation_parts WHERE opn = $1', [part.opn]);
        if (!exists.rowCount) await insertPart(client, part, new Date(row.registrationDate));
      }
    }
    for (const request of accessRequests) await insertSeededAccessRequest(client, request);
  });
}
