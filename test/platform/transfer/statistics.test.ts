import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../../src/platform/db/pool.ts';
import { analyzeGrown } from '../../../src/platform/store/transfer-checkpoints.ts';
import { freshDatabases } from '../../support/runtime.ts';

let databases: Awaited<ReturnType<typeof freshDatabases>>;
let database: Database;
beforeAll(async () => {
  databases = await freshDatabases();
  database = openDatabase(databases.production, 1);
  await database.pool.query(`
    CREATE TABLE grown_parents (id text PRIMARY KEY, code text UNIQUE, document jsonb NOT NULL);
    CREATE TABLE grown_children (parent_id text NOT NULL REFERENCES grown_parents (id),
                                 parent_code text REFERENCES grown_parents (code), note text);`);
});
afterAll(async () => {
  await database?.close();
  await databases?.drop();
});

const statistics = async (client: { query: Database['pool']['query'] }) =>
  (
    await client.query<{ column: string }>(
      `SELECT tablename || '.' || attname AS column FROM pg_stats
        WHERE tablename IN ('grown_parents', 'grown_children') ORDER BY 1`,
    )
  ).rows.map((row) => row.column);

describe("an import's statistics", () => {
  it('analyse the key columns of a referenced table the transaction doubled, and nothing else', async () => {
    const client = await database.pool.connect();
    const analyses: string[] = [];
    const query = client.query.bind(client);
    // Sees every statement the connection is given.
    client.query = ((text: unknown, ...rest: unknown[]) => {
      if (typeof text === 'string' && text.startsWith('ANALYZE')) analyses.push(text);
      return (query as (...args: unknown[]) => unknown)(text, ...rest);
    }) as typeof client.query;
    try {
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO grown_parents SELECT 'P' || g, 'C' || g, jsonb_build_object('text', repeat('x', 200))
           FROM generate_series(1, 2000) g`,
      );
      await client.query(
        `INSERT INTO grown_children SELECT 'P' || g, 'C' || g, 'n' FROM generate_series(1, 2000) g`,
      );
      await analyzeGrown(client);
      // The referenced table's key columns: its size counted and their statistics made; not its
      // document, and not the table that only refers.
      expect(analyses).toEqual(['ANALYZE public.grown_parents (code, id)']);
      expect(await statistics(client)).toEqual(['grown_parents.code', 'grown_parents.id']);
      const { rows } = await client.query<{ reltuples: number }>(
        `SELECT reltuples FROM pg_class WHERE relname = 'grown_parents'`,
      );
      expect(rows[0]!.reltuples).toBe(2000);
      // Not grown to twice its analysed size: no analysis.
      await client.query(`INSERT INTO grown_parents VALUES ('P-extra', 'C-extra', '{}')`);
      await analyzeGrown(client);
      expect(analyses).toHaveLength(1);
      // Twice again: analysed again.
      await client.query(
        `INSERT INTO grown_parents SELECT 'Q' || g, 'D' || g, jsonb_build_object('text', repeat('x', 200))
           FROM generate_series(1, 2000) g`,
      );
      await analyzeGrown(client);
      expect(analyses).toHaveLength(2);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });
});
