import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/db/pool.ts';
import { migrateAll } from '../../src/runtime.ts';
import { freshDatabases } from '../support/runtime.ts';

let databases: Awaited<ReturnType<typeof freshDatabases>>;
beforeAll(async () => {
  databases = await freshDatabases();
  await migrateAll(databases);
});
afterAll(() => databases?.drop());

describe('billing migrations', () => {
  it('create the ledger in each environment database, and not in the gateway database', async () => {
    const tables = async (url: string) => {
      const database = openDatabase(url, 1);
      try {
        const result = await database.pool.query<{ name: string }>(
          `SELECT table_name AS name FROM information_schema.tables
            WHERE table_name IN ('fee_records', 'billing_accounts', 'direct_debit_authorities') ORDER BY 1`,
        );
        return result.rows.map((row) => row.name);
      } finally {
        await database.close();
      }
    };
    const all = ['billing_accounts', 'direct_debit_authorities', 'fee_records'];
    expect(await tables(databases.sandbox)).toEqual(all);
    expect(await tables(databases.production)).toEqual(all);
    expect(await tables(databases.gateway)).toEqual([]);
  });

  it('allow one requested-or-approved authority per organisation', async () => {
    const database = openDatabase(databases.sandbox, 1);
    try {
      const organisation = '00000000-0000-4000-8000-000000000001';
      const insert = (state: string) =>
        database.pool.query(
          `INSERT INTO direct_debit_authorities (organisation_id, state, requested_at, decided_at)
           VALUES ($1, $2, now(), CASE WHEN $2 = 'requested' THEN NULL ELSE now() END)`,
          [organisation, state],
        );
      await insert('requested');
      await insert('declined');
      await expect(insert('approved')).rejects.toThrow(/direct_debit_authorities_current/);
    } finally {
      await database.close();
    }
  });
});
