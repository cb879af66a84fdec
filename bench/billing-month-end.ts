/**
 * `npm run bench:billing-month-end`: the month end for 10,000 organisations × 100 fee records
 * (1,000,000 records) against a baseline in the same run: a plain aggregate SELECT over the same records
 * (the sums an invoice needs, grouped as the invoice lines are, without numbering or writing).
 * Goal: the month end ≤ 10 s.
 *
 * Every round loads its own month of records (generate_series; not timed) into an emptied ledger, then
 * runs the baseline and the month end on them, the order alternating round by round; medians, and the
 * ratio as the median of the per-round ratios. Each round checks the result: one invoice per
 * organisation, every record invoiced, the invoices' totals equal to the records' sum. Knobs:
 * BENCH_ORGS (10,000), BENCH_FEES_PER_ORG (100), BENCH_ROUNDS (3), BENCH_RECORD=0 to only print.
 */
import os from 'node:os';
import { nextPeriod, periodEnd, periodStart } from '../src/billing/domain/invoice-month.ts';
import { identityDirectory } from '../src/billing/store/directory.ts';
import { runMonthEnd } from '../src/billing/store/month-end.ts';
import { openDatabase } from '../src/platform/db/pool.ts';
import { benchDatabases, median, recordResults } from './support.ts';

const ORGS = Number(process.env.BENCH_ORGS ?? 10_000);
const PER_ORG = Number(process.env.BENCH_FEES_PER_ORG ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RECORDS = ORGS * PER_ORG;
const GOAL_MS = 10_000;

const began = Date.now();
const databases = await benchDatabases('billing');
const gateway = openDatabase(databases.setup.urls.gateway, 4);
const production = openDatabase(databases.setup.urls.production, 4);
const directory = identityDirectory(gateway.pool);

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const fmt = (n: number) => Math.round(n).toLocaleString('en-NZ');

try {
  // The organisations, in identity (the month end prints their names on the invoices).
  const created = await gateway.pool.query<{ id: string }>(
    `INSERT INTO organisations (environment, identifier, name)
     SELECT 'production', 'bench-' || n, 'Bench Organisation ' || lpad(n::text, 5, '0')
       FROM generate_series(1, $1) AS n RETURNING id`,
    [ORGS],
  );
  await production.pool.query('CREATE TABLE bench_organisations (n integer PRIMARY KEY, id uuid NOT NULL)');
  await production.pool.query(
    'INSERT INTO bench_organisations (n, id) SELECT row_number() OVER (), id FROM unnest($1::uuid[]) AS id',
    [created.rows.map((row) => row.id)],
  );

  /** One month of records: per organisation 100 fees over 5 fee codes and both channels (10 lines). */
  async function load(period: string): Promise<number> {
    const started = Date.now();
    // A scratch database: the ledger is emptied between rounds so each starts alike (TRUNCATE fires
    // no row trigger; nothing in the product ever does this).
    await production.pool.query('TRUNCATE fee_records');
    const start = periodStart(period);
    const span = periodEnd(period).getTime() - start.getTime();
    await production.pool.query(
      `INSERT INTO fee_records (organisation_id, service, operation, fee_code, description, amount_cents,
                                gst_cents, channel, request_id, charged_at)
       SELECT o.id, 'ppsr', 'PPSR_0' || (k % 5), 'CODE_' || (k % 5), 'Fee ' || (k % 5),
              150 + (k % 5) * 100 + (k % 2) * 50, ((150 + (k % 5) * 100 + (k % 2) * 50) * 15 + 50) / 100,
              CASE WHEN k % 2 = 0 THEN 'API' ELSE 'Web' END, 'req-' || o.n || '-' || k,
              $1::timestamptz + ((o.n * $3 + k) % ($2::bigint / 1000)) * interval '1 second'
         FROM bench_organisations o CROSS JOIN generate_series(1, $3) AS k`,
      [start, span, PER_ORG],
    );
    await production.pool.query('VACUUM ANALYZE fee_records');
    await production.pool.query('CHECKPOINT');
    return Date.now() - started;
  }

  async function baseline(period: string): Promise<{ ms: number; rows: number; net: number }> {
    const started = Date.now();
    const result = await production.pool.query<{ net: string }>(
      `SELECT organisation_id, service, fee_code, description, channel, amount_cents, count(*) AS quantity,
              sum(amount_cents) AS net
         FROM fee_records WHERE charged_at >= $1 AND charged_at < $2
        GROUP BY organisation_id, service, fee_code, description, channel, amount_cents
        ORDER BY organisation_id, service, fee_code, channel, amount_cents, description`,
      [periodStart(period), periodEnd(period)],
    );
    const ms = Date.now() - started;
    return { ms, rows: result.rows.length, net: result.rows.reduce((sum, row) => sum + Number(row.net), 0) };
  }

  async function monthEnd(period: string): Promise<{ ms: number; invoices: number; fees: number }> {
    const started = Date.now();
    const result = await runMonthEnd(production.pool, { period, now: periodEnd(period), directory });
    return { ms: Date.now() - started, invoices: result.invoices, fees: result.fees };
  }

  const samples = {
    load: [] as number[],
    baseline: [] as number[],
    monthEnd: [] as number[],
    ratio: [] as number[],
  };
  let lines = 0;
  let period = '2030-01';
  for (let round = 0; round < ROUNDS; round++) {
    period = nextPeriod(period);
    samples.load.push(await load(period));
    let base: Awaited<ReturnType<typeof baseline>>;
    let closed: Awaited<ReturnType<typeof monthEnd>>;
    if (round % 2 === 0) {
      base = await baseline(period);
      closed = await monthEnd(period);
    } else {
      closed = await monthEnd(period);
      base = await baseline(period);
    }
    // The checks: one invoice per organisation, every record invoiced, totals equal.
    const totals = await production.pool.query<{ invoices: string; net: string; lines: string }>(
      `SELECT count(*) AS invoices, sum(net_cents) AS net,
              (SELECT count(*) FROM invoice_lines l JOIN invoices i ON i.id = l.invoice_id WHERE i.period = $1) AS lines
         FROM invoices WHERE kind = 'invoice' AND period = $1`,
      [period],
    );
    const unbilled = await production.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM fee_records f
        WHERE NOT EXISTS (SELECT 1 FROM month_end_runs r WHERE r.period = f.billing_period AND r.state = 'invoiced')`,
    );
    const check = totals.rows[0]!;
    if (
      closed.invoices !== ORGS ||
      closed.fees !== RECORDS ||
      Number(check.invoices) !== ORGS ||
      Number(check.net) !== base.net ||
      Number(check.lines) !== base.rows ||
      Number(unbilled.rows[0]!.n) !== 0
    ) {
      throw new Error(
        `round ${round + 1}: check failed (${JSON.stringify({ closed, check, base, unbilled: unbilled.rows[0] })})`,
      );
    }
    lines = base.rows;
    samples.baseline.push(base.ms);
    samples.monthEnd.push(closed.ms);
    samples.ratio.push(closed.ms / base.ms);
    console.log(
      `round ${round + 1}: load ${seconds(samples.load.at(-1)!)}, baseline ${seconds(base.ms)}, month end ${seconds(closed.ms)} (${(closed.ms / base.ms).toFixed(1)}×)`,
    );
  }

  const monthEndMedian = median(samples.monthEnd);
  const baselineMedian = median(samples.baseline);
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const markdown = [
    '## Billing: the month end (`npm run bench:billing-month-end`)',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} cores (${cpu}), Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(1)} at the end (the machine is shared); database: ${databases.label}. ${ROUNDS} rounds; each loads its own month of ${fmt(RECORDS)} fee records (${fmt(ORGS)} organisations × ${fmt(PER_ORG)}: 5 fee codes × 2 channels, so ${fmt(lines / ORGS)} lines per invoice; generate_series, not timed) into an emptied ledger, then runs both contenders on them, the order alternating. Every round checks one invoice per organisation, every record invoiced and the invoices' net equal to the records' sum.`,
    '',
    '| contender | median time | records/s | ÷ baseline |',
    '|---|---|---|---|',
    `| month end (\`runMonthEnd\`): lock; the month closed under the charge barrier (one short transaction); then one transaction: the month's grouped sums, GST per invoice and line, ${fmt(ORGS)} numbered invoices and ${fmt(lines)} lines inserted, the run marked invoiced (the ${fmt(RECORDS)} fee records are not rewritten: each carries its billing month) | **${seconds(monthEndMedian)}** | ${fmt(RECORDS / (monthEndMedian / 1000))} | ${median(samples.ratio).toFixed(1)}× |`,
    `| baseline: the plain aggregate SELECT of the same records, grouped as the lines are | ${seconds(baselineMedian)} | ${fmt(RECORDS / (baselineMedian / 1000))} | |`,
    '',
    '| goal | measured | |',
    '|---|---|---|',
    `| month end for ${fmt(RECORDS)} records ≤ 10 s | ${seconds(monthEndMedian)} | ${monthEndMedian <= GOAL_MS ? 'met' : '**not met**'} |`,
    '',
    'Before (2026-11-24, same machine at load 12): 106.92 s, 28× the baseline, 90% of it one UPDATE marking every fee record with its invoice. Now a fee carries its billing month from the moment it is written (billing migration 003: the month of its clock, moved on by the ledger when that month is already closed), so the month end reads the month\'s records and writes only invoices and lines (see docs/design.md, "Invoices").',
    '',
    `Samples (ms): month end ${samples.monthEnd.join(', ')}; baseline ${samples.baseline.join(', ')}; loading ${samples.load.join(', ')}. Whole run ${Math.round((Date.now() - began) / 1000)} s.`,
  ].join('\n');
  console.log(`\n${markdown}`);
  if (process.env.BENCH_RECORD !== '0') await recordResults('bench:billing-month-end', markdown);
} finally {
  await Promise.all([gateway.close(), production.close()]);
  await databases.release();
}
