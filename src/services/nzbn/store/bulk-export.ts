/**
 * The register read for the monthly bulk data export (jobs/bulk-export.ts): every entity, in business
 * number order, in keyset batches from one repeatable-read snapshot (so the export is the register at one
 * moment), under a transaction-scoped advisory lock so that only one process exports at a time.
 */
import type pg from 'pg';
import { withTransaction } from '../../../platform/db/pool.ts';
import type { DocumentSource } from './document-source.ts';
import { ENTITY_RECORD_COLUMNS, type EntityRecord, type StoredEntity, toStored } from './entities.ts';

/** Runs `work` with the register's entities as batches (documents not stored made by `documents`), or
 * resolves to undefined when another process is exporting. */
export function withEntitySnapshot<T>(
  pool: pg.Pool,
  documents: DocumentSource,
  batchSize: number,
  work: (batches: AsyncIterable<StoredEntity[]>) => Promise<T>,
): Promise<T | undefined> {
  return withTransaction(pool, async (client) => {
    await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const locked = await client.query<{ locked: boolean }>(
      "SELECT pg_try_advisory_xact_lock(hashtext('nzbn-bulk-export')) AS locked",
    );
    if (!locked.rows[0]?.locked) return undefined;
    return work(entityBatches(client, documents, batchSize));
  });
}

async function* entityBatches(
  client: pg.PoolClient,
  documents: DocumentSource,
  batchSize: number,
): AsyncGenerator<StoredEntity[]> {
  let after = '';
  for (;;) {
    const result = await client.query<EntityRecord>({
      name: 'nzbn-bulk-export-batch',
      text: `SELECT ${ENTITY_RECORD_COLUMNS} FROM nzbn_entities WHERE nzbn > $1 ORDER BY nzbn LIMIT $2`,
      values: [after, batchSize],
    });
    if (result.rows.length === 0) return;
    after = result.rows.at(-1)!.nzbn;
    yield result.rows.map((row) => toStored(row, documents));
    if (result.rows.length < batchSize) return;
  }
}
