import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { invoiceTransactionsCsv } from '../../src/billing/documents/invoice-csv.ts';
import { gstOf } from '../../src/billing/domain/invoice-gst.ts';
import { nextPeriod, periodEnd, periodStart } from '../../src/billing/domain/invoice-month.ts';
import { identityDirectory, type OrganisationDirectory } from '../../src/billing/store/directory.ts';
import {
  findInvoice,
  invoiceTransactions,
  issueCreditNote,
  listInvoices,
} from '../../src/billing/store/invoices.ts';
import {
  closeDueMonths,
  holdChargeBarrier,
  nextMonthToClose,
  runMonthEnd,
} from '../../src/billing/store/month-end.ts';
import { type Database, openDatabase } from '../../src/platform/db/pool.ts';
import { migratedDatabases } from '../support/runtime.ts';
import { insertFees, organisationWithOwner } from './support/invoices.ts';

let databases: Awaited<ReturnType<typeof migratedDatabases>>;
let gateway: Database;
let sandbox: Database;
let production: Database;
let directory: OrganisationDirectory;

beforeAll(async () => {
  databases = await migratedDatabases();
  gateway = openDatabase(databases.gateway, 4);
  sandbox = openDatabase(databases.sandbox, 6);
  production = openDatabase(databases.production, 6);
  directory = identityDirectory(gateway.pool);
});
afterAll(async () => {
  await Promise.all([gateway?.close(), sandbox?.close(), production?.close()]);
  await databases?.drop();
});

const at = (iso: string) => new Date(iso);

async function feesOf(pool: Database['pool'], reference: string): Promise<number> {
  const invoice = await findInvoice(pool, reference);
  return invoice!.lines.reduce((sum, line) => sum + line.quantity, 0);
}

describe('the month end', () => {
  it('puts 23:59:59.999 on the last day in that month, across the April daylight-saving change', async () => {
    const pool = sandbox.pool;
    const org = await organisationWithOwner(gateway.pool, 'April Ltd');
    await insertFees(pool, [
      { organisationId: org.id, chargedAt: at('2026-03-31T10:59:59.999Z'), amountCents: 100 }, // 31 Mar 23:59:59.999 NZDT
      { organisationId: org.id, chargedAt: at('2026-03-31T11:00:00.000Z'), amountCents: 200 }, // 1 Apr 00:00 NZDT
      { organisationId: org.id, chargedAt: at('2026-04-05T13:30:00.000Z'), amountCents: 300 }, // 6 Apr, after the change
      { organisationId: org.id, chargedAt: at('2026-04-30T11:59:59.999Z'), amountCents: 400 }, // 30 Apr 23:59:59.999 NZST
      { organisationId: org.id, chargedAt: at('2026-04-30T12:00:00.000Z'), amountCents: 500 }, // 1 May 00:00 NZST
    ]);
    // 1 May 00:00:00.500 NZST: March and April have ended, May has not.
    const results = await closeDueMonths(pool, at('2026-04-30T12:00:00.500Z'), directory);
    expect(results.map((r) => [r.period, r.invoices, r.fees])).toEqual([
      ['2026-03', 1, 1],
      ['2026-04', 1, 3],
    ]);
    const invoices = await listInvoices(pool, { organisationIds: [org.id] });
    const april = invoices.find((invoice) => invoice.period === '2026-04')!;
    expect(april.netCents).toBe(900);
    expect(april.organisationName).toBe('April Ltd');
    expect(april.periodStart.toISOString()).toBe('2026-03-31T11:00:00.000Z');
    expect(april.periodEnd.toISOString()).toBe('2026-04-30T12:00:00.000Z');
    const march = invoices.find((invoice) => invoice.period === '2026-03')!;
    expect(march.netCents).toBe(100);
    const unbilled = await pool.query(
      `SELECT amount_cents FROM fee_records f WHERE organisation_id = $1
          AND NOT EXISTS (SELECT 1 FROM month_end_runs r WHERE r.period = f.billing_period AND r.state = 'invoiced')`,
      [org.id],
    );
    expect(unbilled.rows).toEqual([{ amount_cents: 500 }]);
  });

  it('puts 23:59:59.999 on the last day in that month, across the September daylight-saving change', async () => {
    const pool = production.pool;
    const org = await organisationWithOwner(gateway.pool, 'September Ltd', 'production');
    await insertFees(pool, [
      { organisationId: org.id, chargedAt: at('2026-08-31T11:59:59.999Z'), amountCents: 1 }, // 31 Aug 23:59:59.999 NZST
      { organisationId: org.id, chargedAt: at('2026-08-31T12:00:00.000Z'), amountCents: 10 }, // 1 Sep 00:00 NZST
      { organisationId: org.id, chargedAt: at('2026-09-27T14:30:00.000Z'), amountCents: 20 }, // 28 Sep, NZDT
      { organisationId: org.id, chargedAt: at('2026-09-30T10:59:59.999Z'), amountCents: 40 }, // 30 Sep 23:59:59.999 NZDT
      { organisationId: org.id, chargedAt: at('2026-09-30T11:00:00.000Z'), amountCents: 80 }, // 1 Oct 00:00 NZDT
    ]);
    // Still 30 September 23:59:59.999 in New Zealand: September has not ended.
    expect(await nextMonthToClose(pool, at('2026-09-30T10:59:59.999Z'))).toBe('2026-08');
    await expect(
      runMonthEnd(pool, { period: '2026-09', now: at('2026-09-30T10:59:59.999Z'), directory }),
    ).rejects.toThrow(/2026-09 has not ended yet/);
    const results = await closeDueMonths(pool, at('2026-09-30T11:00:00.000Z'), directory);
    expect(results.map((r) => [r.period, r.fees])).toEqual([
      ['2026-08', 1],
      ['2026-09', 3],
    ]);
    const september = (await listInvoices(pool, { organisationIds: [org.id], period: '2026-09' }))[0]!;
    expect(september.netCents).toBe(70);
    expect(september.gstCents).toBe(gstOf(70));
    expect(await feesOf(pool, september.reference)).toBe(3);
    expect(await nextMonthToClose(pool, at('2026-10-31T11:00:00.000Z'))).toBe('2026-10');
  });

  it('two concurrent runs issue one invoice per organisation, numbered without gaps', async () => {
    const pool = sandbox.pool;
    const organisations = await Promise.all(
      Array.from({ length: 12 }, (_, index) => organisationWithOwner(gateway.pool, `Concurrent ${index}`)),
    );
    const july = periodStart('2026-07');
    await insertFees(
      pool,
      organisations.flatMap((org, index) =>
        Array.from({ length: 5 }, (_, n) => ({
          organisationId: org.id,
          chargedAt: new Date(july.getTime() + (index * 5 + n) * 60_000),
          amountCents: 100 + n,
          feeCode: n % 2 === 0 ? 'SEARCH' : 'REGISTER',
        })),
      ),
    );
    // The months before (the first test left a May fee) are closed first, in order.
    await expect(
      runMonthEnd(pool, { period: '2026-07', now: periodEnd('2026-07'), directory }),
    ).rejects.toThrow(/period: close 2026-05 first/);
    await closeDueMonths(pool, july, directory);
    // A second "process": its own pool, the same database.
    const other = openDatabase(databases.sandbox, 4);
    try {
      const before = await pool.query<{ last_number: string }>(
        "SELECT last_number FROM invoice_counters WHERE kind = 'invoice'",
      );
      const now = periodEnd('2026-07');
      const [a, b] = await Promise.all([
        runMonthEnd(pool, { period: '2026-07', now, directory }),
        runMonthEnd(other.pool, { period: '2026-07', now, directory }),
      ]);
      expect([a.ran, b.ran].sort()).toEqual([false, true]);
      const ran = a.ran ? a : b;
      expect(ran.invoices).toBe(12);
      expect(ran.fees).toBe(60);
      const invoices = await listInvoices(pool, { period: '2026-07' });
      expect(invoices).toHaveLength(12);
      expect(new Set(invoices.map((invoice) => invoice.organisationId)).size).toBe(12);
      const numbers = invoices.map((invoice) => invoice.number).sort((x, y) => x - y);
      const first = Number(before.rows[0]!.last_number) + 1;
      expect(numbers).toEqual(Array.from({ length: 12 }, (_, index) => first + index));
      // Ordered by organisation name on the run.
      const byName = [...invoices]
        .sort((x, y) => x.number - y.number)
        .map((invoice) => invoice.organisationName);
      expect(byName).toEqual([...byName].sort((x, y) => x.localeCompare(y)));
      // And two concurrent "every month due" passes (the job in two processes) add nothing.
      const again = await Promise.all([
        closeDueMonths(pool, periodEnd('2026-07'), directory),
        closeDueMonths(other.pool, periodEnd('2026-07'), directory),
      ]);
      expect(again.flat().filter((r) => r.ran && r.invoices > 0)).toEqual([]);
    } finally {
      await other.close();
    }
    // Every invoice number in this environment, 1..N with no gap.
    const all = await pool.query<{ number: string }>(
      "SELECT number FROM invoices WHERE kind = 'invoice' ORDER BY number",
    );
    expect(all.rows.map((row) => Number(row.number))).toEqual(all.rows.map((_, index) => index + 1));
  });

  it('a fee committed after its month was closed goes on the next month, never lost nor twice', async () => {
    const pool = sandbox.pool;
    const org = await organisationWithOwner(gateway.pool, 'Late Ltd');
    await insertFees(pool, [
      { organisationId: org.id, chargedAt: at('2027-01-10T00:00:00Z'), amountCents: 700 },
    ]);
    await closeDueMonths(pool, periodEnd('2027-01'), directory);
    // Its transaction began before the run and committed after it: dated in January.
    await insertFees(pool, [
      { organisationId: org.id, chargedAt: at('2027-01-31T10:59:59.999Z'), amountCents: 11 },
    ]);
    expect(await nextMonthToClose(pool, at('2027-02-10T00:00:00Z'))).toBeUndefined();
    const results = await closeDueMonths(pool, periodEnd('2027-02'), directory);
    expect(results.map((r) => r.period)).toEqual(['2027-02']);
    const invoices = await listInvoices(pool, { organisationIds: [org.id] });
    expect(invoices.map((invoice) => [invoice.period, invoice.netCents])).toEqual([
      ['2027-02', 11],
      ['2027-01', 700],
    ]);
    const open = await pool.query(
      `SELECT 1 FROM fee_records f WHERE organisation_id = $1
          AND NOT EXISTS (SELECT 1 FROM month_end_runs r WHERE r.period = f.billing_period AND r.state = 'invoiced')`,
      [org.id],
    );
    expect(open.rowCount).toBe(0);
  });

  it('issued invoices are immutable; a correction is a credit note in its own gapless sequence', async () => {
    const pool = production.pool;
    const org = await organisationWithOwner(gateway.pool, 'Immutable Ltd', 'production');
    await insertFees(pool, [
      { organisationId: org.id, chargedAt: at('2027-03-03T00:00:00Z'), amountCents: 1000 },
      { organisationId: org.id, chargedAt: at('2027-03-04T00:00:00Z'), amountCents: 1000, feeCode: 'RENEW' },
    ]);
    await closeDueMonths(pool, periodEnd('2027-03'), directory);
    const invoice = (await listInvoices(pool, { organisationIds: [org.id], period: '2027-03' }))[0]!;
    await expect(pool.query('UPDATE invoices SET net_cents = 1 WHERE id = $1', [invoice.id])).rejects.toThrow(
      /issued invoices are immutable/,
    );
    await expect(pool.query('DELETE FROM invoices WHERE id = $1', [invoice.id])).rejects.toThrow(/immutable/);
    await expect(pool.query('DELETE FROM invoice_lines WHERE invoice_id = $1', [invoice.id])).rejects.toThrow(
      /issued invoice_lines are immutable/,
    );
    await expect(pool.query('TRUNCATE invoice_lines')).rejects.toThrow(/immutable/);
    await expect(
      pool.query(
        `UPDATE fee_records SET amount_cents = 1 WHERE organisation_id = $1 AND billing_period = '2027-03'`,
        [org.id],
      ),
    ).rejects.toThrow(/belongs to the closed month 2027-03/);
    await expect(
      pool.query(`DELETE FROM fee_records WHERE organisation_id = $1 AND billing_period = '2027-03'`, [
        org.id,
      ]),
    ).rejects.toThrow(/belongs to the closed month/);
    // Nor can a fee be written into it: one dated in March goes to the next open month.
    await insertFees(pool, [
      { organisationId: org.id, chargedAt: at('2027-03-05T00:00:00Z'), amountCents: 5 },
    ]);
    const moved = await pool.query<{ billing_period: string }>(
      'SELECT billing_period FROM fee_records WHERE organisation_id = $1 AND amount_cents = 5',
      [org.id],
    );
    expect(moved.rows).toEqual([{ billing_period: '2027-04' }]);
    // A fee of an open month may still go (a rolled-back write does the same).
    await pool.query('DELETE FROM fee_records WHERE organisation_id = $1 AND amount_cents = 5', [org.id]);

    const partial = await issueCreditNote(pool, {
      invoice: invoice.reference,
      reason: 'renewal charged twice',
      netCents: 1000,
      now: at('2027-04-02T00:00:00Z'),
    });
    expect(partial.reference).toBe('CN-000001');
    expect(partial.creditsReference).toBe(invoice.reference);
    expect([partial.netCents, partial.gstCents, partial.totalCents]).toEqual([1000, 150, 1150]);
    await expect(
      issueCreditNote(pool, {
        invoice: invoice.reference,
        reason: 'again',
        netCents: 1001,
        now: at('2027-04-02T00:00:00Z'),
      }),
    ).rejects.toThrow(/1000 cents \(net\) left to credit/);
    await expect(
      issueCreditNote(pool, { invoice: invoice.reference, reason: 'all', now: at('2027-04-02T00:00:00Z') }),
    ).rejects.toThrow(/left to credit/);
    await expect(
      issueCreditNote(pool, { invoice: 'INV-999999', reason: 'x', now: at('2027-04-02T00:00:00Z') }),
    ).rejects.toThrow(/no invoice INV-999999/);
    await expect(
      issueCreditNote(pool, { invoice: 'nonsense', reason: 'x', now: new Date() }),
    ).rejects.toThrow(/invoice: "nonsense" is not an invoice number/);
    // The refusals gave their numbers back: the next credit note is CN-000002.
    const rest = await issueCreditNote(pool, {
      invoice: invoice.reference,
      reason: 'goodwill',
      netCents: 1000,
      now: at('2027-04-03T00:00:00Z'),
    });
    expect(rest.reference).toBe('CN-000002');
    const reread = await findInvoice(pool, invoice.reference);
    expect(reread!.creditNotes).toEqual(['CN-000001', 'CN-000002']);
    expect(reread!.netCents).toBe(2000);
  });

  it('invoice totals are exact over random fee sets (property, against the database)', async () => {
    const pool = production.pool;
    const orgs = await Promise.all(
      Array.from({ length: 4 }, (_, index) =>
        organisationWithOwner(gateway.pool, `Random ${index}`, 'production'),
      ),
    );
    let period = '2030-01';
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            org: fc.integer({ min: 0, max: 3 }),
            amount: fc.integer({ min: 0, max: 250_000 }),
            code: fc.constantFrom('SEARCH', 'REGISTER', 'RENEW'),
            channel: fc.constantFrom('API' as const, 'Web' as const),
            offset: fc.integer({ min: 0, max: 27 * 86_400_000 }),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        async (fees) => {
          period = nextPeriod(period);
          const start = periodStart(period);
          await insertFees(
            pool,
            fees.map((fee) => ({
              organisationId: orgs[fee.org]!.id,
              chargedAt: new Date(start.getTime() + fee.offset),
              amountCents: fee.amount,
              feeCode: fee.code,
              channel: fee.channel,
            })),
          );
          const [result] = await closeDueMonths(pool, periodEnd(period), directory);
          expect(result!.period).toBe(period);
          const invoices = await listInvoices(pool, { period });
          expect(invoices.length).toBe(new Set(fees.map((fee) => fee.org)).size);
          for (const summary of invoices) {
            const invoice = (await findInvoice(pool, summary.reference))!;
            const index = orgs.findIndex((org) => org.id === invoice.organisationId);
            const expected = fees.filter((fee) => fee.org === index);
            const net = expected.reduce((sum, fee) => sum + fee.amount, 0);
            expect(invoice.netCents).toBe(net);
            expect(invoice.gstCents).toBe(gstOf(net));
            expect(invoice.totalCents).toBe(net + gstOf(net));
            const sum = (pick: (line: (typeof invoice.lines)[number]) => number) =>
              invoice.lines.reduce((total, line) => total + pick(line), 0);
            expect(sum((line) => line.netCents)).toBe(invoice.netCents);
            expect(sum((line) => line.gstCents)).toBe(invoice.gstCents);
            expect(sum((line) => line.totalCents)).toBe(invoice.totalCents);
            expect(sum((line) => line.quantity)).toBe(expected.length);
            for (const line of invoice.lines) expect(line.netCents).toBe(line.quantity * line.unitCents);
            // Broken down by transaction: every fee once, on the line of its kind, adding up to the line.
            const transactions = await invoiceTransactions(pool, invoice);
            expect(transactions).toHaveLength(expected.length);
            for (const line of invoice.lines) {
              const mine = transactions.filter((fee) => fee.lineNumber === line.lineNumber);
              expect(mine).toHaveLength(line.quantity);
              expect(mine.reduce((total, fee) => total + fee.netCents, 0)).toBe(line.netCents);
              for (const fee of mine) {
                expect([fee.feeCode, fee.channel, fee.netCents]).toEqual([
                  line.feeCode,
                  line.channel,
                  line.unitCents,
                ]);
              }
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  });
  it('an invoice breaks down by transaction: request id, billing reference, line; inert in spreadsheets', async () => {
    const pool = production.pool;
    const org = await organisationWithOwner(gateway.pool, 'Reconciled Ltd', 'production');
    await insertFees(pool, [
      {
        organisationId: org.id,
        chargedAt: at('2036-02-03T00:00:00Z'),
        amountCents: 700,
        requestId: 'req-1',
        billingReference: 'Job 17',
      },
      {
        organisationId: org.id,
        chargedAt: at('2036-02-04T00:00:00Z'),
        amountCents: 1500,
        feeCode: 'REGISTER',
        requestId: 'req-2',
        billingReference: '=HYPERLINK("http://example.test")',
      },
      { organisationId: org.id, chargedAt: at('2036-02-05T00:00:00Z'), amountCents: 700 },
    ]);
    await closeDueMonths(pool, periodEnd('2036-02'), directory);
    const summary = (await listInvoices(pool, { organisationIds: [org.id], period: '2036-02' }))[0]!;
    const invoice = (await findInvoice(pool, summary.reference))!;
    const rows = parse(invoiceTransactionsCsv(invoice, await invoiceTransactions(pool, invoice)), {
      columns: true,
    }) as Record<string, string>[];
    const register = invoice.lines.find((line) => line.feeCode === 'REGISTER')!.lineNumber;
    const search = invoice.lines.find((line) => line.feeCode === 'SEARCH')!.lineNumber;
    expect(rows.map((row) => [row.line, row.request_id, row.billing_reference, row.net_nzd])).toEqual([
      [String(search), 'req-1', 'Job 17', '7.00'],
      [String(register), 'req-2', `'=HYPERLINK("http://example.test")`, '15.00'],
      [String(search), '', '', '7.00'],
      ['TOTAL', '', '', '29.00'],
    ]);
    expect(rows[0]!.charged).toBe('2036-02-03T13:00:00.000+1300');
    // A credit note corrects amounts, not transactions.
    const credit = await issueCreditNote(pool, {
      invoice: invoice.reference,
      reason: 'test',
      netCents: 100,
      now: at('2036-03-02T00:00:00Z'),
    });
    expect(await invoiceTransactions(pool, (await findInvoice(pool, credit.reference))!)).toEqual([]);
  });

  it('waits at the charge barrier for a charging transaction in flight, so its fee is on its own month', async () => {
    const pool = sandbox.pool;
    const org = await organisationWithOwner(gateway.pool, 'Barrier Ltd');
    await insertFees(pool, [
      { organisationId: org.id, chargedAt: at('2027-06-10T00:00:00Z'), amountCents: 100 },
    ]);
    // A charge holding the barrier, dated 30 June 23:59:59.999 NZST, not yet committed.
    const charge = await pool.connect();
    try {
      await charge.query('BEGIN');
      await holdChargeBarrier(charge);
      await charge.query(
        `INSERT INTO fee_records (organisation_id, service, operation, fee_code, description, amount_cents,
                                  gst_cents, channel, charged_at)
         VALUES ($1, 'ppsr', 'op', 'SEARCH', 'late search', 50, 8, 'API', $2)`,
        [org.id, at('2027-06-30T11:59:59.999Z')],
      );
      const closing = runMonthEnd(pool, { period: '2027-06', now: periodEnd('2027-06'), directory });
      // The month end waits for the barrier (an advisory lock not granted yet).
      await vi.waitFor(async () => {
        const waiting = await pool.query(
          `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        );
        expect(waiting.rowCount).toBe(1);
      });
      await charge.query('COMMIT');
      const result = await closing;
      expect([result.ran, result.invoices, result.fees]).toEqual([true, 1, 2]);
    } finally {
      charge.release();
    }
    const [invoice] = await listInvoices(pool, { organisationIds: [org.id], period: '2027-06' });
    expect(invoice!.netCents).toBe(150);
  });
});
