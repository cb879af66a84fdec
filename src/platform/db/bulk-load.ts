/**
 * Bulk loads (the registers' sandbox seeds): the tables' secondary indexes and foreign keys dropped for
 * the load and made again after it, in the caller's transaction, so that a load that fails leaves them
 * as they were. Building an index once over the loaded rows costs several times less than updating it
 * row by row (a trigram GIN index most of all), and a foreign key checked once, by one join of the
 * tables, less than a check a row. The definitions are read from the catalogue, so they are the
 * migrations' own. Primary keys and unique constraints stay: they are what the load itself relies on.
 */
import type pg from 'pg';

interface Deferred {
  /** `CREATE INDEX …` statements of the indexes dropped. */
  indexes: string[];
  /** `ALTER TABLE … ADD CONSTRAINT …` statements of the foreign keys dropped. */
  foreignKeys: string[];
}

/**
 * Runs `load` with the secondary indexes (those no constraint owns) and the foreign keys of `tables`
 * dropped, then makes them again (each index built once, each foreign key validated once). `client`
 * must be in a transaction: the tables are locked until it ends.
 */
export async function withIndexesDeferred<T>(
  client: pg.ClientBase,
  tables: readonly string[],
  load: () => Promise<T>,
): Promise<T> {
  const deferred = await dropIndexes(client, tables);
  const result = await load();
  // An index build sorts in memory: more memory, fewer passes (this transaction only).
  await client.query("SET LOCAL maintenance_work_mem = '512MB'");
  for (const statement of deferred.indexes) await client.query(statement);
  for (const statement of deferred.foreignKeys) await client.query(statement);
  return result;
}

async function dropIndexes(client: pg.ClientBase, tables: readonly string[]): Promise<Deferred> {
  const keys = await client.query<{ name: string; owner: string; definition: string }>(
    `SELECT c.conname AS name, c.conrelid::regclass::text AS owner,
            pg_get_constraintdef(c.oid) AS definition
       FROM pg_constraint c
      WHERE c.contype = 'f' AND c.conrelid = ANY($1::regclass[])
      ORDER BY c.conrelid::regclass::text, c.conname`,
    [tables],
  );
  const indexes = await client.query<{ name: string; definition: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i
      WHERE i.indrelid = ANY($1::regclass[])
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
      ORDER BY i.indexrelid::regclass::text`,
    [tables],
  );
  for (const key of keys.rows) await client.query(`ALTER TABLE ${key.owner} DROP CONSTRAINT ${key.name}`);
  for (const index of indexes.rows) await client.query(`DROP INDEX ${index.name}`);
  return {
    indexes: indexes.rows.map((index) => index.definition),
    foreignKeys: keys.rows.map(
      (key) => `ALTER TABLE ${key.owner} ADD CONSTRAINT ${key.name} ${key.definition}`,
    ),
  };
}
