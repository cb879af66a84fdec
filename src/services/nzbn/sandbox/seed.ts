/**
 * The sandbox seed hook of the business number register (`rsg seed --scale small|full`): the fixed
 * test cases with their organisation parts and the operator's authority, then the generated register
 * in chunks of 10,000 entities loaded with COPY (in parallel worker threads when there is more than
 * one chunk to load).
 *
 * Idempotent: a chunk commits with its row in `nzbn_seed_chunks`, fixtures are inserted only when
 * missing, so a second run at the same scale loads nothing, an interrupted run resumes, and API changes
 * to seeded entities survive. A larger register already in place satisfies a smaller scale (the small
 * register is the first chunk of the full one), so `rsg start` after `rsg seed --scale full` keeps it.
 */
import { availableParallelism } from 'node:os';
import type { SeedContext, SeedScale } from '../../contract.ts';
import {
  clusterEntities,
  DROP_INDEXES_FROM_CHUNKS,
  dropEntityIndexes,
  ensureEntityIndexes,
  isClustered,
} from '../store/indexes.ts';
import {
  insertFixtures,
  loadChunksHere,
  seededChunks,
  seededEntities,
  vacuumEntities,
} from '../store/seed-load.ts';
import { seedOrganisations } from './organisations.ts';
import { loadChunksInParallel } from './seed-parallel.ts';
import { CHUNK_SIZE, chunkText, fixtureAccessRequests, fixtureRows, SANDBOX_SEED } from './seed-rows.ts';

/** Generated entities per scale (fixtures come on top). */
export const SCALE_ENTITIES: Readonly<Record<SeedScale, number>> = { small: 10_000, full: 700_000 };

export interface SeedOptions {
  /** Overrides the scale's entity count (tests). Rounded up to whole chunks of `chunkSize`. */
  entities?: number;
  chunkSize?: number;
  /** Worker threads for a multi-chunk load; 0 loads in this thread. Default: one per core. */
  threads?: number;
}

export async function seedNzbn(context: SeedContext, options: SeedOptions = {}): Promise<string> {
  const started = Date.now();
  const pool = context.database.pool;
  const fixtures = await ensureFixtures(context);

  const seed = SANDBOX_SEED;
  const size = options.chunkSize ?? CHUNK_SIZE;
  const wanted = Math.ceil((options.entities ?? SCALE_ENTITIES[context.scale]) / size);
  const present = await seededChunks(pool, seed);
  const missing = Array.from({ length: wanted }, (_, chunk) => chunk).filter((chunk) => !present.has(chunk));
  let loaded = 0;
  const bulk = missing.length >= DROP_INDEXES_FROM_CHUNKS;
  if (bulk) await dropEntityIndexes(pool);
  if (missing.length > 0) {
    context.log(`nzbn: generating ${(missing.length * size).toLocaleString('en-NZ')} sandbox entities …`);
    const threads = options.threads ?? Math.min(availableParallelism(), 8);
    const progress = (chunk: number, count: number) =>
      context.log(`nzbn: chunk ${chunk} loaded (${count.toLocaleString('en-NZ')} entities)`);
    if (threads > 0 && missing.length > 1) {
      loaded = await loadChunksInParallel({
        url: context.database.url,
        seed,
        size,
        chunks: missing,
        threads,
        onChunk: progress,
      });
    } else {
      loaded = await loadChunksHere(
        pool,
        chunkText,
        seed,
        missing,
        size,
        missing.length > 1 ? progress : () => {},
      );
    }
  }
  // After a bulk load, or once for a large register loaded before the seed did this (its GIN indexes
  // dropped first too, so the table's exclusive lock covers the rewrite alone).
  const large = present.size + missing.length >= DROP_INDEXES_FROM_CHUNKS;
  const cluster = bulk || (large && !(await isClustered(pool)));
  if (cluster) {
    context.log('nzbn: putting the register in name order …');
    if (!bulk) await dropEntityIndexes(pool);
    await clusterEntities(pool);
  }
  await ensureEntityIndexes(pool);
  // Fresh statistics for the planner, the GIN indexes' pending lists merged, the visibility map set.
  if (missing.length > 0 || cluster) await vacuumEntities(pool);
  const total = await seededEntities(pool, seed);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  return loaded > 0
    ? `${loaded.toLocaleString('en-NZ')} entities generated in ${seconds} s (${total.toLocaleString('en-NZ')} generated in all, ${fixtures} fixtures)`
    : `${total.toLocaleString('en-NZ')} generated entities and ${fixtures} fixtures in place`;
}

/**
 * Inserts the fixed test cases that are missing, their organisation parts and the requests for access to
 * those, and the operator's authority;
 * then the scale's organisations with their users and authorities (sandbox/organisations.ts).
 */
async function ensureFixtures(context: SeedContext): Promise<number> {
  const rows = fixtureRows();
  await insertFixtures(context.database.pool, rows, fixtureAccessRequests());
  for (const { fixture } of rows) {
    if (fixture.sandboxOperatorHasAuthority) {
      await context.identity.grantOperatorsAuthority('nzbn', 'entity', fixture.nzbn);
    }
  }
  if (context.identity.seedOrganisation) {
    for (const organisation of seedOrganisations(context.scale)) {
      await context.identity.seedOrganisation(organisation);
    }
  }
  return rows.length;
}
