import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { openDatabase } from '../src/platform/db/pool.ts';
import { migrateAll } from '../src/runtime.ts';
import { latestPeriodEnding } from '../src/services/market-rent/domain/period.ts';
import { generateBonds } from '../src/services/market-rent/sandbox/seed.ts';
import { copyTo } from '../src/services/market-rent/store/copy.ts';
import { dateIn } from '../src/services/market-rent/store/statistics.ts';
import { marketRentDatabases, marketRentDataDir } from './market-rent-databases.ts';
import {
  median,
  recordResults,
  root,
  SERVER_NODE_ARGS,
  startServer,
  stopServer,
  timedGet,
} from './support.ts';

/**
 * The rental statistics service at national scale (the full sandbox, over 5 million bonds): national
 * SAU2019, 24 months, include-aggregates. Side by side in the same run, over the same bonds:
 *
 * - ours: GET /statistics through the whole gateway (key check, rate limit) over HTTP: the first query
 *   after a fresh start of the server (no block in memory; its code warmed up at start, engine/warm-up.ts),
 *   and the same for a server started without the warm-up, with both servers' start times; the same query computed again with the month
 *   blocks in memory, by a server whose answer cache is off (RSG_MARKET_RENT_ANSWER_CACHE_MB=0), which is
 *   the figure compared with the contenders; and, on its own row, the same query from the answer cache;
 * - the straightforward SQL in the same PostgreSQL: percentile_cont, avg, stddev_samp with GROUPING SETS
 *   for the ALL rows;
 * - DuckDB (@duckdb/node-api) over a copy of the same bonds: quantile_cont with CUBE.
 *
 * Our servers run with the node flags `npm start` gives the gateway (SERVER_NODE_ARGS, support.ts).
 * The machine's speed drifts, so the contenders run interleaved, round by round, and medians are
 * compared. The full register is generated once into a data folder that later runs reuse
 * (BENCH_DATA_DIR, default <tmp>/rsg-bench-market-rent; DATABASE_URL for your own server).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
/** Milliseconds the servers are left alone before each timed request (`settle`). */
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 50);
const dataDir = marketRentDataDir;
/** Another copy of the project (`git worktree add`, node_modules linked): its computed answer as a contender. */
const BASELINE = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE) : undefined;

const setup = await marketRentDatabases();
const log = (line: string) => process.stderr.write(`${line}\n`);
const children: { child: import('node:child_process').ChildProcess }[] = [];

try {
  await migrateAll(setup.urls);
  const sandbox = openDatabase(setup.urls.sandbox, 4);
  const state = await sandbox.pool.query('SELECT seed_scale, seed_bonds FROM market_rent_state');
  if (state.rows[0]?.seed_scale !== 'full') {
    log('generating the full sandbox register (once; later runs reuse it)…');
    await generateBonds(sandbox, { scale: 'full', now: new Date(), log });
  }
  const bonds = Number((await sandbox.pool.query('SELECT count(*) AS n FROM market_rent_bonds')).rows[0].n);
  const now = new Date();
  const periodEnding = latestPeriodEnding(now, 'Pacific/Auckland');
  const asOf = dateIn(now, 'Pacific/Auckland');
  const [year, month] = periodEnding.split('-').map(Number) as [number, number];
  const first = new Date(Date.UTC(year, month - 24, 1)).toISOString().slice(0, 10);
  const last = new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
  const query = `period-ending=${periodEnding}&num-months=24&area-definition=SAU2019&include-aggregates=true`;
  log(`${bonds.toLocaleString('en-NZ')} bonds; period ${first} to ${last}, as of ${asOf}`);

  const bedroomLabel =
    "CASE WHEN bedrooms IS NULL THEN 'NA' WHEN bedrooms >= 5 THEN '5+' ELSE bedrooms::text END";
  const figures = (quantile: (p: number) => string) => `count(*) AS n, avg(weekly_rent) AS mean,
    ${quantile(0.25)} AS lq, ${quantile(0.5)} AS med, ${quantile(0.75)} AS uq, stddev_samp(weekly_rent) AS sd,
    avg(bond_amount::double precision / weekly_rent) AS brr, avg(ln(weekly_rent)) AS lmean,
    stddev_samp(ln(weekly_rent)) AS lsd`;
  const where = `tenancy_start BETWEEN '${first}' AND '${last}' AND lodged <= '${asOf}'`;
  const sql = `SELECT sa2_code, dwelling_type, ${bedroomLabel} AS bedrooms,
      ${figures((p) => `percentile_cont(${p}) WITHIN GROUP (ORDER BY weekly_rent)`)}
    FROM market_rent_bonds WHERE ${where}
    GROUP BY GROUPING SETS ((1, 2, 3), (1, 2), (1, 3), (1), (2, 3), (2), (3), ())`;
  const duckSql = `SELECT sa2_code, dwelling_type, ${bedroomLabel} AS bedrooms,
      ${figures((p) => `quantile_cont(weekly_rent, ${p})`)}
    FROM bonds WHERE ${where} GROUP BY CUBE (sa2_code, dwelling_type, ${bedroomLabel})`;

  // DuckDB gets the same bonds through a CSV copy of the table.
  const csv = path.join(dataDir, 'bonds.csv');
  await mkdir(dataDir, { recursive: true });
  const client = await sandbox.pool.connect();
  await new Promise<void>((resolve, reject) => {
    const out = createWriteStream(csv);
    copyTo(client, 'COPY market_rent_bonds TO STDOUT WITH (FORMAT csv)', (chunk) => out.write(chunk)).then(
      () => out.end(resolve),
      reject,
    );
  });
  client.release();
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  await duck.run(`CREATE TABLE bonds AS SELECT * FROM read_csv('${csv}', header = false, columns = {
    'bond_id': 'VARCHAR', 'tenancy_start': 'DATE', 'lodged': 'DATE', 'closed': 'DATE', 'sa2_code': 'INTEGER',
    'dwelling_type': 'VARCHAR', 'bedrooms': 'SMALLINT', 'weekly_rent': 'INTEGER', 'bond_amount': 'INTEGER'})`);
  await rm(csv);

  const env = { RSG_BENCH_URLS: JSON.stringify(setup.urls), RSG_BENCH_SERVICE: 'market-rent' };
  const peakRss = async (pid: number) => {
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  };
  /**
   * Before every timed request or query (every contender alike): the bench process collects its own
   * garbage (run with \`--expose-gc\`) and the servers have a moment. Each of our answers leaves some
   * 50 MB of strings behind in this process (the body as text, the fetch copy, the comparison); a
   * collection of them landed inside the next timing (the answer cache, a copy of bytes already made,
   * took 13–129 ms, median 46), timing this process rather than the server.
   */
  const settle = async () => {
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  };
  const timed = async (work: () => Promise<unknown>) => {
    await settle();
    const started = performance.now();
    const result = await work();
    return { ms: performance.now() - started, result };
  };
  /**
   * One request, timed until the last byte of the body has arrived (support.ts, timedGet); reading it
   * into a string or parsing it is the client's affair. `viaFetch`: read by fetch and `text()` instead,
   * as most JavaScript clients would, which times that client's own work too (its own row).
   */
  const ask = async (port: number, key: string, q = query, viaFetch = false) => {
    const url = `http://127.0.0.1:${port}/sandbox/tenancy-services/market-rent/v2/statistics?${q}`;
    const headers = { 'Ocp-Apim-Subscription-Key': key };
    let status: number;
    let headersMs: number;
    let ms: number;
    let text: string;
    await settle();
    if (viaFetch) {
      const started = performance.now();
      const response = await fetch(url, { headers });
      headersMs = performance.now() - started;
      text = await response.text();
      ms = performance.now() - started;
      status = response.status;
    } else {
      const answer = await timedGet(url, headers);
      ({ status, headersMs, ms } = answer);
      text = answer.body.toString('utf8');
    }
    if (process.env.BENCH_TRACE)
      log(`  answer: headers after ${headersMs.toFixed(0)} ms, last byte after ${ms.toFixed(0)} ms`);
    if (status !== 200) throw new Error(`statistics answered ${status}: ${text.slice(0, 300)}`);
    return { ms, text, body: () => JSON.parse(text) as { items: Record<string, unknown>[] } };
  };
  const samples = {
    first: [] as number[],
    firstCold: [] as number[],
    start: [] as number[],
    startCold: [] as number[],
    repeated: [] as number[],
    computed: [] as number[],
    /** The same computed answers read by fetch and text(). */
    computedFetch: [] as number[],
    repeatedFetch: [] as number[],
    baseline: [] as number[],
    /** The first query of the computing servers (ours, then BENCH_BASELINE's): a first query too. */
    computingFirst: [] as number[],
    baselineFirst: [] as number[],
    sql: [] as number[],
    duck: [] as number[],
  };
  const memory: number[] = [];
  const rows = { ours: 0, sql: 0, duck: 0 };
  const check = { ours: '', sql: '', duck: '' };
  let sameBytes = true;
  const national = (r: Record<string, unknown> | undefined) => `${r?.lq}, ${r?.med}, ${r?.uq}`;
  /** A fresh server (`extra` in its environment) and how long it took until it listened, ms. */
  const fresh = async (extra: Record<string, string> = {}, script = 'bench/servers/service.ts') => {
    const started = performance.now();
    const server = await startServer<{ port: number; key: string; pid: number }>(
      script,
      { ...env, ...extra },
      undefined,
      SERVER_NODE_ARGS,
    );
    children.push(server);
    return { server, ms: performance.now() - started };
  };
  for (let round = 1; round <= ROUNDS; round++) {
    // The first query of a server that did not warm its code up at start (RSG_MARKET_RENT_WARM_UP=0),
    // before or after the one that did, alternately: what the warm-up buys, and what it costs the start.
    const withoutWarmUp = async () => {
      const { server, ms } = await fresh({ RSG_MARKET_RENT_WARM_UP: '0' });
      samples.startCold.push(ms);
      samples.firstCold.push((await ask(server.info.port, server.info.key)).ms);
      await stopServer(server.child);
      children.pop();
    };
    if (round % 2 === 1) await withoutWarmUp();
    const { server, ms: startMs } = await fresh();
    samples.start.push(startMs);
    const cold = await ask(server.info.port, server.info.key);
    samples.first.push(cold.ms);
    for (let i = 0; i < REPEATS; i++) {
      const warm = await ask(server.info.port, server.info.key);
      samples.repeated.push(warm.ms);
      const items = warm.body().items;
      rows.ours = items.length;
      check.ours = national(items.find((r) => r.area === 'ALL' && r.dwell === 'ALL' && r.nBedrms === 'ALL'));
      samples.repeatedFetch.push((await ask(server.info.port, server.info.key, query, true)).ms);
    }
    const cachedText = (await ask(server.info.port, server.info.key)).text;
    memory.push(await peakRss(server.info.pid));
    await stopServer(server.child);
    children.pop();
    if (round % 2 === 0) await withoutWarmUp();

    // The same query computed every time: a server without the answer cache, its blocks read once first;
    // with BENCH_BASELINE, the other copy's server alike, before or after ours alternately.
    const computedBy = async (script: string | undefined, into: number[], firstInto: number[]) => {
      const { server: computing } = await fresh({ RSG_MARKET_RENT_ANSWER_CACHE_MB: '0' }, script);
      firstInto.push((await ask(computing.info.port, computing.info.key)).ms);
      for (let i = 0; i < REPEATS; i++) {
        const computed = await ask(computing.info.port, computing.info.key);
        into.push(computed.ms);
        if (computed.text !== cachedText) sameBytes = false;
        if (script === undefined) {
          const read = await ask(computing.info.port, computing.info.key, query, true);
          samples.computedFetch.push(read.ms);
          if (read.text !== cachedText) sameBytes = false;
        }
      }
      memory.push(await peakRss(computing.info.pid));
      await stopServer(computing.child);
      children.pop();
    };
    const baselineScript = BASELINE && path.join(BASELINE, 'bench/servers/service.ts');
    if (baselineScript && round % 2 === 0)
      await computedBy(baselineScript, samples.baseline, samples.baselineFirst);
    await computedBy(undefined, samples.computed, samples.computingFirst);
    if (baselineScript && round % 2 === 1)
      await computedBy(baselineScript, samples.baseline, samples.baselineFirst);

    const naive = await timed(() => sandbox.pool.query(sql));
    samples.sql.push(naive.ms);
    const naiveRows = (naive.result as { rows: Record<string, unknown>[] }).rows;
    rows.sql = naiveRows.length;
    check.sql = national(
      naiveRows.find((r) => r.sa2_code === null && r.dwelling_type === null && r.bedrooms === null),
    );

    const duckdb = await timed(() => duck.runAndReadAll(duckSql));
    samples.duck.push(duckdb.ms);
    const duckRows = (duckdb.result as { getRowObjects(): Record<string, unknown>[] }).getRowObjects();
    rows.duck = duckRows.length;
    check.duck = national(
      duckRows.find((r) => r.sa2_code === null && r.dwelling_type === null && r.bedrooms === null),
    );
    const last = (values: number[]) =>
      values
        .slice(-REPEATS)
        .map((x) => x.toFixed(0))
        .join('/');
    log(
      `round ${round}: ours first ${cold.ms.toFixed(0)} ms (without the warm-up ${samples.firstCold.at(-1)!.toFixed(0)} ms; start ${startMs.toFixed(0)} / ${samples.startCold.at(-1)!.toFixed(0)} ms), computed ${last(samples.computed)} ms${BASELINE ? ` (before: ${last(samples.baseline)} ms)` : ''}, answer cache ${last(samples.repeated)} ms; SQL ${naive.ms.toFixed(0)} ms; DuckDB ${duckdb.ms.toFixed(0)} ms; server peak RSS ${memory.at(-1)?.toFixed(0)} MB`,
    );
  }

  const m = {
    first: median(samples.first),
    firstCold: median(samples.firstCold),
    start: median(samples.start),
    startCold: median(samples.startCold),
    repeated: median(samples.repeated),
    computed: median(samples.computed),
    baseline: samples.baseline.length ? median(samples.baseline) : undefined,
    sql: median(samples.sql),
    duck: median(samples.duck),
    memory: Math.max(...memory),
  };
  const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
  const list = (values: number[]) => values.map((x) => x.toFixed(0)).join(', ');
  const markdown = `## Rental statistics: national SAU2019, 24 months, include-aggregates (\`npm run bench:market-rent\`)

${bonds.toLocaleString('en-NZ')} bonds (the full sandbox), period ${first} to ${last} as of ${asOf}; ${ROUNDS} rounds, the contenders interleaved round by round; medians. Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, our servers with \`${SERVER_NODE_ARGS.join(' ') || 'no node flags'}\`. Ours is timed over HTTP through the whole gateway (key check, rate limit, usage) until the last byte of the JSON (${rows.ours.toLocaleString('en-NZ')} rows) has arrived, read by node:http (\`timedGet\`, bench/support.ts: the body's chunks joined after the clock stops); the SQL contenders until their rows are in the client. The same answers read by \`fetch\` and \`text()\` have rows of their own: that client's work (a web stream per chunk, the bytes decoded into a string) is not the server's. Before every timed request or query (every contender alike) the bench process collects its own garbage and leaves the servers alone for ${SETTLE_MS} ms (\`settle\`): a collection of the previous answer's strings had landed inside the next timing.

| contender | median | rows | national ALL row: lq, med, uq |
|---|---|---|---|
| ours, computed (blocks in memory, answer cache off) | ${m.computed.toFixed(0)} ms | ${rows.ours} | ${check.ours} |
${m.baseline === undefined ? '' : `| the same, computed by \`BENCH_BASELINE\` (another copy: the code before) | ${m.baseline.toFixed(0)} ms | ${rows.ours} | |\n`}| ours, first query after the server starts (no block in memory; code warmed up at start) | ${m.first.toFixed(0)} ms | ${rows.ours} | |
| ours, first query after a start without the warm-up (\`RSG_MARKET_RENT_WARM_UP=0\`) | ${m.firstCold.toFixed(0)} ms | ${rows.ours} | |
| straightforward SQL in the same PostgreSQL (percentile_cont, GROUPING SETS) | ${m.sql.toFixed(0)} ms | ${rows.sql} | ${check.sql} |
| DuckDB (@duckdb/node-api, quantile_cont, CUBE, table in memory) | ${m.duck.toFixed(0)} ms | ${rows.duck} | ${check.duck} |
| ours, the same query again from the answer cache (not a computation) | ${m.repeated.toFixed(0)} ms | ${rows.ours} | |
| ours, computed, read by \`fetch\` and \`text()\` in the bench's process (the client's own work included) | ${median(samples.computedFetch).toFixed(0)} ms | ${rows.ours} | |
| ours, from the answer cache, read by \`fetch\` and \`text()\` | ${median(samples.repeatedFetch).toFixed(0)} ms | ${rows.ours} | |

Starting the server (process start until it listens, the warm-up included): ${m.start.toFixed(0)} ms with the warm-up, ${m.startCold.toFixed(0)} ms without.

${m.baseline === undefined ? '' : `Before ÷ after (computed): ${(m.baseline / m.computed).toFixed(2)} by medians; per round (medians of its ${REPEATS} answers) ${Array.from({ length: ROUNDS }, (_, r) => (median(samples.baseline.slice(r * REPEATS, (r + 1) * REPEATS)) / median(samples.computed.slice(r * REPEATS, (r + 1) * REPEATS))).toFixed(2)).join(', ')}. The first query of the same servers (answer cache off): ${median(samples.computingFirst).toFixed(0)} ms, before ${median(samples.baselineFirst).toFixed(0)} ms; before ÷ after per round ${samples.computingFirst.map((x, r) => (samples.baselineFirst[r]! / x).toFixed(2)).join(', ')}.\n\n`}Computed and cached answers were ${sameBytes ? 'byte for byte the same' : '**not the same bytes**'} in every round.

| goal | measured | |
|---|---|---|
| computed ≤ 120 ms | ${m.computed.toFixed(0)} ms | ${verdict(m.computed <= 120)} |
| computed ≥ 5× faster than DuckDB | ${(m.duck / m.computed).toFixed(1)}× | ${verdict(m.duck / m.computed >= 5)} |
| computed ≥ 18× faster than the straightforward SQL | ${(m.sql / m.computed).toFixed(1)}× | ${verdict(m.sql / m.computed >= 18)} |
| first query after start ≤ 300 ms | ${m.first.toFixed(0)} ms | ${verdict(m.first <= 300)} |
| server memory ≤ 1 GB (peak RSS of the gateway process) | ${m.memory.toFixed(0)} MB | ${verdict(m.memory <= 1024)} |
| answer cache: repeated ≤ 150 ms (its own goal, not compared with the contenders) | ${m.repeated.toFixed(0)} ms | ${verdict(m.repeated <= 150)} |

Ours also answers nClosed and nCurr, rounds every count and suppresses small cells; the SQL contenders compute the lodged statistics only. Ours omits rows with no bond lodged, closed or current; theirs have a row per group that has lodged bonds.
Samples (ms): computed ${list(samples.computed)}${m.baseline === undefined ? '' : `; before ${list(samples.baseline)}`}; first ${list(samples.first)}; first without the warm-up ${list(samples.firstCold)}; start ${list(samples.start)}, without the warm-up ${list(samples.startCold)}; answer cache ${list(samples.repeated)}; computed via fetch ${list(samples.computedFetch)}; answer cache via fetch ${list(samples.repeatedFetch)}; SQL ${list(samples.sql)}; DuckDB ${list(samples.duck)}.`;
  process.stdout.write(`${markdown}\n`);
  await mkdir(path.join(root, 'docs'), { recursive: true });
  await recordResults('bench:market-rent', markdown);
  duck.closeSync();
  await sandbox.close();
} finally {
  for (const c of children) await stopServer(c.child);
  await setup.embedded?.stop();
}
