import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { databaseName, withDatabase } from './urls.ts';

// int8 (counts, sums) come back as strings by default; every int8 we store fits in a double.
pg.types.setTypeParser(20, (value: string) => Number(value));

export interface Database<Schema = unknown> {
  url: string;
  pool: pg.Pool;
  db: Kysely<Schema>;
  close(): Promise<void>;
}

export function openDatabase<Schema = unknown>(url: string, max = 10): Database<Schema> {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000 });
  // An idle client that loses its server must not crash the process: the pool replaces it.
  pool.on('error', () => {});
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
  return {
    url,
    pool,
    db,
    // Kysely ends the pool only if it ever used it; end it ourselves otherwise.
    close: async () => {
      await db.destroy();
      if (!pool.ended) await pool.end();
    },
  };
}

/** Creates the database named in `url` when it does not exist; safe when two processes race. */
export async function ensureDatabase(url: string): Promise<void> {
  const name = databaseName(url);
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client
        .query(`CREATE DATABASE ${client.escapeIdentifier(name)}`)
        .catch((error: { code?: string }) => {
          // 42P04 duplicate_database, 23505 when the catalogue insert races another CREATE DATABASE.
          if (error.code !== '42P04' && error.code !== '23505') throw error;
        });
    }
  } finally {
    await client.end();
  }
}

export async function dropDatabase(url: string): Promise<void> {
  const name = databaseName(url);
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** Runs `work` in one transaction on one connection: committed when it resolves, rolled back when it throws. */
export async function withTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
