import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BILLING_MIGRATIONS } from '../../src/billing/index.ts';
import { migrate } from '../../src/platform/db/migrations.ts';
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

  it("date fees by the ledger's trigger as 003 ruled (004 reads the closed months in the trigger itself)", async () => {
    const database = openDatabase(databases.production, 1);
    try {
      const pool = database.pool;
      const org = '00000000-0000-4000-8000-0000000000bb';
      const fee = async (at: string) =>
        (
          await pool.query<{ id: number; billing_period: string }>(
            `INSERT INTO fee_records (organisation_id, service, operation, fee_code, description, amount_cents,
                                      gst_cents, channel, charged_at)
             VALUES ($1, 'ppsr', 'op', 'SEARCH', 'fee', 100, 15, 'API', $2) RETURNING id, billing_period`,
            [org, at],
          )
        ).rows[0]!;
      // No month closed: the month of the New Zealand clock (daylight time, +13:00), to the millisecond.
      expect((await fee('2026-11-30T10:59:59.999Z')).billing_period).toBe('2026-11');
      expect((await fee('2026-11-30T11:00:00.000Z')).billing_period).toBe('2026-12');
      const close = (period: string, end: string) =>
        pool.query(
          `INSERT INTO month_end_runs (period, period_end, ran_at, invoices, fees, state)
           VALUES ($1, $2, $2, 0, 0, 'closed')`,
          [period, end],
        );
      await close('2026-11', '2026-11-30T11:00:00Z');
      await close('2026-12', '2026-12-31T11:00:00Z');
      // A fee dated in a closed month goes to the month after the last closed one, across the year's end.
      expect((await fee('2026-11-05T00:00:00Z')).billing_period).toBe('2027-01');
      const lastInstant = await fee('2026-12-31T10:59:59.999Z');
      expect(lastInstant.billing_period).toBe('2027-01');
      expect((await fee('2027-01-31T10:59:59.999Z')).billing_period).toBe('2027-01');
      expect((await fee('2027-01-31T11:00:00.000Z')).billing_period).toBe('2027-02');
      // An open month's fee re-dated is placed again; a closed month's fee neither changes nor goes.
      const moved = await pool.query<{ billing_period: string }>(
        'UPDATE fee_records SET charged_at = $2 WHERE id = $1 RETURNING billing_period',
        [lastInstant.id, '2027-02-28T11:00:00Z'],
      );
      expect(moved.rows[0]!.billing_period).toBe('2027-03');
      const closedFee = await pool.query<{ id: number }>(
        `SELECT id FROM fee_records WHERE organisation_id = $1 AND billing_period = '2026-11' LIMIT 1`,
        [org],
      );
      await expect(
        pool.query('UPDATE fee_records SET amount_cents = 1 WHERE id = $1', [closedFee.rows[0]!.id]),
      ).rejects.toThrow(/belongs to the closed month 2026-11/);
      await expect(
        pool.query('DELETE FROM fee_records WHERE id = $1', [closedFee.rows[0]!.id]),
      ).rejects.toThrow(/belongs to the closed month 2026-11/);
    } finally {
      await database.close();
    }
  });

  it('upgrade a ledger written before fees carried their billing month (003), keeping every invoice', async () => {
    const upgraded = await freshDatabases();
    const before = await mkdtemp(path.join(tmpdir(), 'rsg-billing-002-'));
    const database = openDatabase(upgraded.production, 2);
    try {
      for (const name of ['001_ledger.sql', '002_invoices.sql']) {
        await copyFile(path.join(BILLING_MIGRATIONS, name), path.join(before, name));
      }
      await migrate(database.pool, [{ module: 'billing', dir: before }]);
      const org = '00000000-0000-4000-8000-0000000000aa';
      const pool = database.pool;
      // October 2026 invoiced (two fees), then a fee dated October committed after its run (a straggler),
      // and a fee of November not yet invoiced.
      const invoice = await pool.query<{ id: number }>(
        `INSERT INTO invoices (kind, number, organisation_id, organisation_name, period, period_start, period_end,
                               issued_at, net_cents, gst_cents, total_cents)
         VALUES ('invoice', 1, $1, 'Old Ltd', '2026-10', '2026-09-30T11:00:00Z', '2026-10-31T11:00:00Z',
                 '2026-11-01T00:00:00Z', 300, 45, 345) RETURNING id`,
        [org],
      );
      await pool.query(
        `INSERT INTO month_end_runs (period, period_end, ran_at, invoices, fees)
         VALUES ('2026-10', '2026-10-31T11:00:00Z', '2026-11-01T00:00:00Z', 1, 2)`,
      );
      const fee = (cents: number, at: string, invoiceId: number | null) =>
        pool.query(
          `INSERT INTO fee_records (organisation_id, service, operation, fee_code, description, amount_cents,
                                    gst_cents, channel, charged_at, invoice_id)
           VALUES ($1, 'ppsr', 'op', 'SEARCH', 'fee', $2, 0, 'API', $3, $4)`,
          [org, cents, at, invoiceId],
        );
      await fee(100, '2026-10-05T00:00:00Z', invoice.rows[0]!.id);
      await fee(200, '2026-10-31T10:59:59.999Z', invoice.rows[0]!.id);
      await fee(7, '2026-10-31T10:00:00Z', null);
      await fee(50, '2026-11-10T00:00:00Z', null);

      await migrate(pool, [{ module: 'billing', dir: BILLING_MIGRATIONS }]);
      const rows = await pool.query<{ amount_cents: number; billing_period: string; invoiced: boolean }>(
        `SELECT f.amount_cents, f.billing_period, i.id IS NOT NULL AS invoiced FROM fee_records f
           LEFT JOIN invoices i ON i.kind = 'invoice' AND i.organisation_id = f.organisation_id
                               AND i.period = f.billing_period
          ORDER BY f.id`,
      );
      expect(rows.rows).toEqual([
        { amount_cents: 100, billing_period: '2026-10', invoiced: true },
        { amount_cents: 200, billing_period: '2026-10', invoiced: true },
        // The straggler goes on November's invoice, as it would have before.
        { amount_cents: 7, billing_period: '2026-11', invoiced: false },
        { amount_cents: 50, billing_period: '2026-11', invoiced: false },
      ]);
      const runs = await pool.query('SELECT period, state FROM month_end_runs');
      expect(runs.rows).toEqual([{ period: '2026-10', state: 'invoiced' }]);
    } finally {
      await database.close();
      await upgraded.drop();
      await rm(before, { recursive: true, force: true });
    }
  });
});
