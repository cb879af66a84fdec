/**
 * Loads one chunk of generated entities with COPY: the entities, the earlier names of those entities,
 * and the chunk's row in `nzbn_seed_chunks`, in one transaction. A chunk is all there or not at all,
 * so an interrupted seed resumes where it stopped and two seeders never load a chunk twice (each
 * chunk is claimed with a transaction-scoped advisory lock and checked before loading).
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { ENTITY_COLUMNS } from './rows.ts';
import { CHUNK_SIZE, chunkText, HISTORY_COPY_COLUMNS } from './seed-rows.ts';

type Client = pg.Client | pg.PoolClient;

const SEED_LOCK_SPACE = 420_005;

export const ENTITY_COPY = `COPY nzbn_entities (${ENTITY_COLUMNS.join(', ')}) FROM STDIN`;
const HISTORY_COPY = `COPY nzbn_entity_history (${HISTORY_COPY_COLUMNS}) FROM STDIN`;

/** Streams text into `COPY … FROM STDIN`. */
export async function copyText(client: Client, sql: string, text: Iterable<string> | AsyncIterable<string>) {
  await pipeline(Readable.from(text), client.query(copyFrom(sql)));
}

/** Loads chunk `chunk` of the register seeded by `seed`; returns the entities loaded (0 if already there). */
export async function loadChunk(
  client: Client,
  seed: string,
  chunk: number,
  size = CHUNK_SIZE,
): Promise<number> {
  await client.query('BEGIN');
  try {
    // Bulk load: the commit need not wait for the disk (a crash loses at most this chunk, which reloads).
    await client.query('SET LOCAL synchronous_commit = off');
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [SEED_LOCK_SPACE, chunk]);
    const done = await client.query('SELECT 1 FROM nzbn_seed_chunks WHERE seed = $1 AND chunk = $2', [
      seed,
      chunk,
    ]);
    if (done.rowCount) {
      await client.query('ROLLBACK');
      return 0;
    }
    const history: string[] = [];
    let count = 0;
    const entities = (function* () {
      for (const batch of chunkText(seed, chunk * size, (chunk + 1) * size)) {
        history.push(...batch.history);
        count += batch.count;
        yield batch.entities.join('');
      }
    })();
    await copyText(client, ENTITY_COPY, entities);
    if (history.length > 0) await copyText(client, HISTORY_COPY, [history.join('')]);
    await client.query('INSERT INTO nzbn_seed_chunks (seed, chunk, entities) VALUES ($1, $2, $3)', [
      seed,
      chunk,
      count,
    ]);
    await client.query('COMMIT');
    return count;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
