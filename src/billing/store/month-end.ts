/**
 * The month end in one environment database. A month's run (`runMonthEnd`) runs under a session advisory
 * lock, so two processes running it at once are ordered: the second finds the month in `month_end_runs`
 * and does nothing. Its writes are one REPEATABLE READ transaction: the fees it sums into lines are exactly
 * the fees it marks invoiced (one snapshot), the numbers come from the counter row in the same
 * transaction (no gap, no duplicate), and the run is recorded with them. Which fees: every fee not yet
 * invoiced charged before the month's end, so a fee whose transaction committed after its own month's run
 * (a straggler) goes on the next month's invoice, never lost and never on two (see the README's "Month
 * end"). Fees carried over without an organisation (`UNATTRIBUTED_ORGANISATION`) are never invoiced.
 */
import type pg from 'pg';
import { RuleError } from '../../platform/errors.ts';
import { allocateGst } from '../domain/invoice-gst.ts';
import {
  isPeriod,
  nextPeriod,
  type Period,
  periodEnd,
  periodOf,
  periodStart,
} from '../domain/invoice-month.ts';
import type { OrganisationDirectory } from './directory.ts';
import { UNATTRIBUTED_ORGANISATION } from './fee-records.ts';

/** Held for the whole month end (session lock): one run at a time per environment database. */
const MONTH_END_LOCK = 0x62_69_6c_6c_01;
/**
 * The charge barrier: a charging transaction may hold it shared (`holdChargeBarrier`, before it reads
 * the clock); the month end takes it exclusively once, after the month has ended and before its
 * snapshot, so every fee dated in the month whose transaction was in flight has committed by then.
 */
const CHARGE_BARRIER_LOCK = 0x62_69_6c_6c_02;

/** For a charging transaction: hold the barrier shared until it ends (see CHARGE_BARRIER_LOCK). */
export async function holdChargeBarrier(client: pg.ClientBase): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock_shared($1)', [CHARGE_BARRIER_LOCK]);
}

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
 * Closes one month: one invoice per organisation with every fee not yet invoiced that was charged
 * before the month's end. `now` is the environment's clock; a month that has not ended is refused.
 */
export async function runMonthEnd(
  pool: pg.Pool,
  options: { period: Period; now: Date; directory: OrganisationDirectory },
): Promise<MonthEndResult> {
  const { period, now, directory } = options;
  if (!isPeriod(period)) throw new RuleError('period', 'must be a month such as 2026-11');
  const start = periodStart(period);
  const end = periodEnd(period);
  if (now.getTime() < end.getTime()) {
    throw new RuleError('period', `${period} has not ended yet (it ends at ${end.toISOString()})`);
  }
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MONTH_END_LOCK]);
    try {
      // The barrier: wait for charging transactions in flight, then let them go on (they now read a
      // clock past the month's end).
      await client.query('SELECT pg_advisory_lock($1)', [CHARGE_BARRIER_LOCK]);
      await client.query('SELECT pg_advisory_unlock($1)', [CHARGE_BARRIER_LOCK]);
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      try {
        const result = await closeMonth(client, { period, start, end, now, directory });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => {
          broken = rollbackError;
        });
        throw error;
      }
    } finally {
      if (!broken) {
        await client.query('SELECT pg_advisory_unlock($1)', [MONTH_END_LOCK]).catch((error: Error) => {
          broken = error;
        });
      }
    }
  } finally {
    // A connection that failed mid-way is dropped (which also releases its session locks).
    client.release(broken);
  }
}

async function closeMonth(
  client: pg.PoolClient,
  run: { period: Period; start: Date; end: Date; now: Date; directory: OrganisationDirectory },
): Promise<MonthEndResult> {
  const done = await client.query('SELECT 1 FROM month_end_runs WHERE period = $1', [run.period]);
  if ((done.rowCount ?? 0) > 0) return { period: run.period, ran: false, invoices: 0, fees: 0 };
  // Months close in order: an earlier month with fees not yet invoiced is closed first.
  const earlier = await nextMonthToClose(client, run.end);
  if (earlier !== undefined && earlier < run.period) {
    throw new RuleError('period', `close ${earlier} first: it holds fees not yet invoiced`);
  }
  const groups = await client.query<GroupRow>(
    `SELECT organisation_id, service, fee_code, description, channel, amount_cents AS unit_cents,
            count(*) AS quantity, sum(amount_cents) AS net_cents
       FROM fee_records
      WHERE invoice_id IS NULL AND charged_at < $1 AND organisation_id <> $2
      GROUP BY organisation_id, service, fee_code, description, channel, amount_cents
      ORDER BY organisation_id, service, fee_code, channel, amount_cents, description`,
    [run.end, UNATTRIBUTED_ORGANISATION],
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
        run.start,
        run.end,
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
    // The same rows as the sums above: one snapshot (REPEATABLE READ).
    const marked = await client.query(
      `UPDATE fee_records f SET invoice_id = i.id
         FROM invoices i
        WHERE i.kind = 'invoice' AND i.period = $1 AND f.organisation_id = i.organisation_id
          AND f.invoice_id IS NULL AND f.charged_at < $2`,
      [run.period, run.end],
    );
    if (marked.rowCount !== fees) {
      throw new Error(`month end ${run.period}: ${fees} fees summed but ${marked.rowCount} marked invoiced`);
    }
  }
  await client.query(
    'INSERT INTO month_end_runs (period, period_end, ran_at, invoices, fees) VALUES ($1, $2, $3, $4, $5)',
    [run.period, run.end, run.now, organisations.length, fees],
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
 * The next month to close at `now`, or undefined: the earliest month holding a fee not yet invoiced,
 * or, when that month was closed already (the fee committed after its run), the month after it; only
 * months that have ended.
 */
export async function nextMonthToClose(
  pool: pg.Pool | pg.PoolClient,
  now: Date,
): Promise<Period | undefined> {
  const current = periodOf(now);
  const currentStart = periodStart(current);
  const earliest = await pool.query<{ charged_at: Date | null }>(
    `SELECT min(charged_at) AS charged_at FROM fee_records
      WHERE invoice_id IS NULL AND charged_at < $1 AND organisation_id <> $2`,
    [currentStart, UNATTRIBUTED_ORGANISATION],
  );
  const first = earliest.rows[0]?.charged_at;
  if (!first) return undefined;
  let period = periodOf(first);
  const closed = await pool.query<{ period: string }>(
    'SELECT period FROM month_end_runs WHERE period >= $1 AND period < $2 ORDER BY period',
    [period, current],
  );
  const done = new Set(closed.rows.map((row) => row.period));
  while (done.has(period)) period = nextPeriod(period);
  return period < current ? period : undefined;
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
