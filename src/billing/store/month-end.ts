/**
 * The month end in one environment database. A month's run (`runMonthEnd`) runs under a session advisory
 * lock, so two processes running it at once are ordered: the second finds the month invoiced and does
 * nothing. Which fees: every fee carries its billing month from the moment it is written
 * (`billing_period`: its clock's month, or the month after the last closed one when that month is closed
 * already — a straggler goes on the next invoice, never lost and never on two; migration 003). The run
 * closes the month first (one short transaction under the charge barrier: after it no fee can enter the
 * month), then, in a second transaction, sums the month's fees into one invoice per organisation, numbers
 * them from the counter row (no gap, no duplicate), inserts them with their lines and marks the run
 * invoiced. Nothing rewrites the ledger: a fee is invoiced when its month's run is, on its organisation's
 * invoice of that month (see the README's "Month end"). Fees carried over without an organisation
 * (`UNATTRIBUTED_ORGANISATION`) are never invoiced.
 */
import type pg from 'pg';
import { withTransaction } from '../../platform/db/pool.ts';
import { RuleError } from '../../platform/errors.ts';
import { allocateGst } from '../domain/invoice-gst.ts';
import { isPeriod, type Period, periodEnd, periodOf, periodStart } from '../domain/invoice-month.ts';
import { CHARGE_BARRIER_LOCK } from './charge-barrier.ts';
import type { OrganisationDirectory } from './directory.ts';
import { UNATTRIBUTED_ORGANISATION } from './fee-records.ts';

/** For a charging transaction (see store/charge-barrier.ts). */
export { holdChargeBarrier } from './charge-barrier.ts';

/** Held for the whole month end (session lock): one run at a time per environment database. */
const MONTH_END_LOCK = 0x62_69_6c_6c_01;

export interface MonthEndResult {
  period: Period;
  /** False when the month had been closed already (by this or another process). */
  ran: boolean;
  invoices: number;
  fees: number;
  /** Numbers issued, first and last (none when no invoice was issued). */
  firstNumber?: number;
  lastNumber?: number;
}

interface GroupRow {
  organisation_id: string;
  service: string;
  fee_code: string;
  description: string;
  channel: string;
  unit_cents: string;
  quantity: string;
  net_cents: string;
}

/**
 * Closes one month: one invoice per organisation with every fee of the month (its `billing_period`).
 * `now` is the environment's clock; a month that has not ended is refused, and so is one while an earlier
 * month holds fees not yet invoiced. Two steps, each its own transaction: the month is closed (no fee can
 * enter it after), then invoiced; a run stopped between them is finished by the next.
 */
export async function runMonthEnd(
  pool: pg.Pool,
  options: { period: Period; now: Date; directory: OrganisationDirectory },
): Promise<MonthEndResult> {
  const { period, now, directory } = options;
  if (!isPeriod(period)) throw new RuleError('period', 'must be a month such as 2026-11');
  const end = periodEnd(period);
  if (now.getTime() < end.getTime()) {
    throw new RuleError('period', `${period} has not ended yet (it ends at ${end.toISOString()})`);
  }
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MONTH_END_LOCK]);
    try {
      const state = await withTransaction(client, () => closeMonth(client, period, end, now));
      if (state === 'invoiced') return { period, ran: false, invoices: 0, fees: 0 };
      return await withTransaction(client, () => invoiceMonth(client, { period, now, directory }));
    } catch (error) {
      // A connection that failed mid-way is dropped (which also releases its session lock).
      if (!(error instanceof RuleError)) broken = error as Error;
      throw error;
    } finally {
      if (!broken) {
        await client.query('SELECT pg_advisory_unlock($1)', [MONTH_END_LOCK]).catch((error: Error) => {
          broken = error;
        });
      }
    }
  } finally {
    client.release(broken);
  }
}

/**
 * Step one: the month closed for charging, unless it is already. Under the charge barrier taken
 * exclusively (this transaction's lock), so every charging transaction in flight has committed first and
 * every later one finds the month closed (its fee goes to the next month: migration 003's trigger).
 * Resolves to the run's state.
 */
async function closeMonth(
  client: pg.PoolClient,
  period: Period,
  end: Date,
  now: Date,
): Promise<'closed' | 'invoiced'> {
  await client.query('SELECT pg_advisory_xact_lock($1)', [CHARGE_BARRIER_LOCK]);
  const done = await client.query<{ state: 'closed' | 'invoiced' }>(
    'SELECT state FROM month_end_runs WHERE period = $1',
    [period],
  );
  if (done.rows[0]) return done.rows[0].state;
  // Months close in order: an earlier month holding fees not yet invoiced is closed first.
  const earlier = await nextMonthToClose(client, end);
  if (earlier !== undefined && earlier < period) {
    throw new RuleError('period', `close ${earlier} first: it holds fees not yet invoiced`);
  }
  await client.query(
    `INSERT INTO month_end_runs (period, period_end, ran_at, invoices, fees, state)
     VALUES ($1, $2, $3, 0, 0, 'closed')`,
    [period, end, now],
  );
  return 'closed';
}

/** Step two: the closed month's invoices, numbered, with their lines; the run marked invoiced. */
async function invoiceMonth(
  client: pg.PoolClient,
  run: { period: Period; now: Date; directory: OrganisationDirectory },
): Promise<MonthEndResult> {
  const start = periodStart(run.period);
  const end = periodEnd(run.period);
  const groups = await client.query<GroupRow>(
    `SELECT organisation_id, service, fee_code, description, channel, amount_cents AS unit_cents,
            count(*) AS quantity, sum(amount_cents) AS net_cents
       FROM fee_records
      WHERE billing_period = $1 AND organisation_id <> $2
      GROUP BY organisation_id, service, fee_code, description, channel, amount_cents
      ORDER BY organisation_id, service, fee_code, channel, amount_cents, description`,
    [run.period, UNATTRIBUTED_ORGANISATION],
  );
  const byOrganisation = new Map<string, GroupRow[]>();
  for (const row of groups.rows) {
    const list = byOrganisation.get(row.organisation_id);
    if (list) list.push(row);
    else byOrganisation.set(row.organisation_id, [row]);
  }
  const facts = byOrganisation.size > 0 ? await run.directory.lookup([...byOrganisation.keys()]) : new Map();
  const organisations = [...byOrganisation.keys()]
    .map((id) => ({ id, name: facts.get(id)?.name ?? id }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  let fees = 0;
  let firstNumber: number | undefined;
  let lastNumber: number | undefined;
  if (organisations.length > 0) {
    const counter = await client.query<{ last_number: string }>(
      `UPDATE invoice_counters SET last_number = last_number + $1 WHERE kind = 'invoice' RETURNING last_number`,
      [organisations.length],
    );
    lastNumber = Number(counter.rows[0]!.last_number);
    firstNumber = lastNumber - organisations.length + 1;
    const invoiceColumns = { number: [] as number[], organisation: [] as string[], name: [] as string[] };
    const totals = { net: [] as number[], gst: [] as number[], total: [] as number[] };
    const lines = {
      organisation: [] as string[],
      lineNumber: [] as number[],
      service: [] as string[],
      feeCode: [] as string[],
      description: [] as string[],
      channel: [] as string[],
      quantity: [] as number[],
      unit: [] as number[],
      net: [] as number[],
      gst: [] as number[],
      total: [] as number[],
    };
    organisations.forEach((organisation, index) => {
      const rows = byOrganisation.get(organisation.id)!;
      const allocated = allocateGst(rows.map((row) => ({ row, netCents: Number(row.net_cents) })));
      invoiceColumns.number.push(firstNumber! + index);
      invoiceColumns.organisation.push(organisation.id);
      invoiceColumns.name.push(organisation.name);
      totals.net.push(allocated.netCents);
      totals.gst.push(allocated.gstCents);
      totals.total.push(allocated.totalCents);
      allocated.lines.forEach((line, lineIndex) => {
        fees += Number(line.row.quantity);
        lines.organisation.push(organisation.id);
        lines.lineNumber.push(lineIndex + 1);
        lines.service.push(line.row.service);
        lines.feeCode.push(line.row.fee_code);
        lines.description.push(line.row.description);
        lines.channel.push(line.row.channel);
        lines.quantity.push(Number(line.row.quantity));
        lines.unit.push(Number(line.row.unit_cents));
        lines.net.push(line.netCents);
        lines.gst.push(line.gstCents);
        lines.total.push(line.totalCents);
      });
    });
    await client.query(
      `INSERT INTO invoices (kind, number, organisation_id, organisation_name, period, period_start, period_end,
                             issued_at, net_cents, gst_cents, total_cents)
       SELECT 'invoice', t.number, t.organisation_id, t.name, $7, $8, $9, $10, t.net, t.gst, t.total
         FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[])
              AS t(number, organisation_id, name, net, gst, total)`,
      [
        invoiceColumns.number,
        invoiceColumns.organisation,
        invoiceColumns.name,
        totals.net,
        totals.gst,
        totals.total,
        run.period,
        start,
        end,
        run.now,
      ],
    );
    await client.query(
      `INSERT INTO invoice_lines (invoice_id, line_number, service, fee_code, description, channel, quantity,
                                  unit_cents, net_cents, gst_cents, total_cents)
       SELECT i.id, t.line_number, t.service, t.fee_code, t.description, t.channel, t.quantity, t.unit, t.net,
              t.gst, t.total
         FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[],
                     $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[])
              AS t(organisation_id, line_number, service, fee_code, description, channel, quantity, unit, net,
                   gst, total)
         JOIN invoices i ON i.kind = 'invoice' AND i.period = $12 AND i.organisation_id = t.organisation_id`,
      [
        lines.organisation,
        lines.lineNumber,
        lines.service,
        lines.feeCode,
        lines.description,
        lines.channel,
        lines.quantity,
        lines.unit,
        lines.net,
        lines.gst,
        lines.total,
        run.period,
      ],
    );
  }
  await client.query(
    `UPDATE month_end_runs SET state = 'invoiced', ran_at = $2, invoices = $3, fees = $4
      WHERE period = $1 AND state = 'closed'`,
    [run.period, run.now, organisations.length, fees],
  );
  return {
    period: run.period,
    ran: true,
    invoices: organisations.length,
    fees,
    ...(firstNumber !== undefined ? { firstNumber, lastNumber: lastNumber! } : {}),
  };
}

/**
 * The next month to close at `now`, or undefined: a month closed but not yet invoiced (a run stopped
 * between its steps), else the earliest month after every closed one that holds a fee and has ended.
 */
export async function nextMonthToClose(
  pool: pg.Pool | pg.PoolClient,
  now: Date,
): Promise<Period | undefined> {
  const current = periodOf(now);
  const found = await pool.query<{ period: string | null }>(
    `SELECT coalesce(
       (SELECT min(period) FROM month_end_runs WHERE state = 'closed'),
       (SELECT min(billing_period) FROM fee_records
         WHERE billing_period > coalesce((SELECT max(period) FROM month_end_runs), '')
           AND billing_period < $1 AND organisation_id <> $2)) AS period`,
    [current, UNATTRIBUTED_ORGANISATION],
  );
  const period = found.rows[0]?.period ?? undefined;
  return period !== undefined && period < current ? period : undefined;
}

/** Closes every month due at `now`, oldest first. */
export async function closeDueMonths(
  pool: pg.Pool,
  now: Date,
  directory: OrganisationDirectory,
): Promise<MonthEndResult[]> {
  const results: MonthEndResult[] = [];
  for (let guard = 0; guard < 1200; guard++) {
    const period = await nextMonthToClose(pool, now);
    if (!period) break;
    results.push(await runMonthEnd(pool, { period, now, directory }));
  }
  return results;
}
