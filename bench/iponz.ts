import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { realClock } from '../src/platform/clock.ts';
import { dropDatabase, openDatabase } from '../src/platform/db/pool.ts';
import { type ClientQuery, normaliseTerm } from '../src/services/iponz/domain/client-search.ts';
import { PLANS } from '../src/services/iponz/sandbox/generator.ts';
import { seedIponz } from '../src/services/iponz/sandbox/seed.ts';
import { searchClients, searchClientsPlainIlike } from '../src/services/iponz/store/clients.ts';
import { measureLoad } from './load.ts';
import { benchDatabases, median, recordResults, startServer, stopServer } from './support.ts';

/**
 * The IP office at national scale, side by side in one run:
 *
 * 1. Client search with `%` wildcards (name, and address on every other query), in the database client:
 *    the register's query (ILIKE served by trigram GIN indexes, the total counted, one page of 20) against
 *    the straightforward one on the same data (lower(...) LIKE over every client and the address lines
 *    joined on the fly, first 20). Goal: p95 ≤ 20 ms. Interleaved by round; medians of per-round p95s.
 * 2. Case XML by number over HTTP through the whole gateway on one process (key check, rate limit,
 *    usage): answers per second with 32 connections, a few case numbers in turn. Goal: ≥ 5,000/s.
 * 3. A date-range list of about 10,000 trade marks streamed over HTTP: the server's resident memory
 *    sampled while it streams, against the same for a list of about 500. Goal: flat memory.
 *
 * BENCH_SCALE (full, default, or small), or BENCH_CLIENTS / BENCH_PATENTS / BENCH_TRADEMARKS /
 * BENCH_DESIGNS to set the counts; BENCH_ROUNDS (5), BENCH_QUERIES (200 per round for the register's
 * search; the straightforward one runs 10 per round), BENCH_SECONDS (5 per case number for the load).
 * With DATABASE_URL the loaded data are kept in a database named after the plan and reused by the next
 * run (BENCH_KEEP=0: a scratch database, dropped at the end); BENCH_LOAD_ONLY=1 loads and stops.
 */
const scale = process.env.BENCH_SCALE === 'small' ? 'small' : 'full';
const plan = {
  clients: Number(process.env.BENCH_CLIENTS ?? PLANS[scale].clients),
  patents: Number(process.env.BENCH_PATENTS ?? PLANS[scale].patents),
  trademarks: Number(process.env.BENCH_TRADEMARKS ?? PLANS[scale].trademarks),
  designs: Number(process.env.BENCH_DESIGNS ?? PLANS[scale].designs),
};
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
const PLAIN = 10;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const log = (line: string) => process.stderr.write(`${line}\n`);

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

/** A `%` query from a client's name and (every other one) its address: parts of words, a gap between. */
function queryOf(name: string, address: string | null, i: number): ClientQuery {
  const words = name.split(/\s+/).filter((w) => w.length >= 3);
  const term =
    words.length >= 2 ? `${words[0]!.slice(0, 4)}%${words[1]!.slice(0, 4)}` : `%${name.slice(1, 5)}%`;
  let addressTerm: string | null = null;
  if (address && i % 2 === 0) {
    const parts = address.split(', ');
    addressTerm = `${parts[0]!.split(' ').at(-1)!.slice(0, 4)}%${parts.at(-1)!.slice(0, 4)}`;
  }
  return { name: normaliseTerm(term), address: addressTerm === null ? null : normaliseTerm(addressTerm) };
}

// With DATABASE_URL the data persist between runs (BENCH_KEEP=0 for a scratch database): one database
// per plan, marked loaded once seeded and analysed; an unmarked one (a load cut short) is loaded afresh.
const keep =
  process.env.BENCH_KEEP === '0'
    ? undefined
    : `${plan.clients}_${plan.patents}_${plan.trademarks}_${plan.designs}`;
let databases = await benchDatabases('iponz', { keep });
const loadedMark = async (): Promise<boolean> => {
  const probe = openDatabase(databases.setup.urls.sandbox, 1);
  try {
    await probe.pool.query('CREATE TABLE IF NOT EXISTS bench_loaded (plan text PRIMARY KEY)');
    const { rowCount } = await probe.pool.query('SELECT 1 FROM bench_loaded WHERE plan = $1', [keep]);
    if (rowCount) return true;
    const { rows } = await probe.pool.query<{ n: string }>('SELECT count(*) AS n FROM iponz_clients');
    if (Number(rows[0]!.n) === 0) return false;
  } finally {
    await probe.close();
  }
  // Seeded in part (a run cut short): start again from empty databases.
  log('iponz bench: a partly loaded database, dropped and loaded again');
  for (const url of Object.values(databases.setup.urls)) await dropDatabase(url);
  databases = await benchDatabases('iponz', { keep });
  return false;
};
const reused = databases.kept ? await loadedMark() : false;
const database = openDatabase(databases.setup.urls.sandbox, 4);
const children: import('node:child_process').ChildProcess[] = [];
try {
  const loadStart = performance.now();
  const summary = await seedIponz(
    {
      database,
      scale,
      clock: realClock,
      log,
      identity: { grantOperatorsAuthority: async () => {} },
    },
    plan,
  );
  if (!reused) {
    await database.pool.query('ANALYZE');
    if (databases.kept) await database.pool.query('INSERT INTO bench_loaded (plan) VALUES ($1)', [keep]);
  }
  const loadSeconds = (performance.now() - loadStart) / 1000;
  log(`${summary} in ${loadSeconds.toFixed(1)} s${reused ? ' (reused from an earlier run)' : ''}`);
  if (process.env.BENCH_LOAD_ONLY === '1') process.exit(0);

  // 1. Client search.
  await database.pool.query('SELECT setseed(0.14)');
  const { rows: picked } = await database.pool.query<{ name: string; address: string | null }>(
    `SELECT c.name, (SELECT a.search_text FROM iponz_client_addresses a WHERE a.client_id = c.client_id
       ORDER BY a.address_type LIMIT 1) AS address
     FROM iponz_clients c ORDER BY random() LIMIT $1`,
    [QUERIES],
  );
  const queries = picked.map((row, i) => queryOf(row.name, row.address, i));
  const search = {
    register: [] as number[],
    plain: [] as number[],
    found: [] as number[],
    same: 0,
    compared: 0,
  };
  for (let round = 0; round < ROUNDS; round++) {
    const register = async () => {
      const times: number[] = [];
      for (const query of queries) {
        const started = performance.now();
        const page = await searchClients(database.pool, query, { offset: 0, limit: 20 });
        times.push(performance.now() - started);
        search.found.push(page.total);
      }
      search.register.push(percentile(times, 95));
    };
    const plain = async () => {
      const times: number[] = [];
      for (const query of queries.slice(round * PLAIN, round * PLAIN + PLAIN)) {
        const started = performance.now();
        const ids = await searchClientsPlainIlike(database.pool, query, 20);
        times.push(performance.now() - started);
        // The two answer the same first page.
        const ours = await searchClients(database.pool, query, { offset: 0, limit: 20 });
        search.compared++;
        if (JSON.stringify(ours.items.map((c) => c.clientId)) === JSON.stringify(ids)) search.same++;
      }
      search.plain.push(percentile(times, 95));
    };
    if (round % 2 === 0) {
      await register();
      await plain();
    } else {
      await plain();
      await register();
    }
    log(
      `search round ${round + 1}/${ROUNDS}: register p95 ${search.register.at(-1)!.toFixed(2)} ms, plain p95 ${search.plain.at(-1)!.toFixed(1)} ms`,
    );
  }

  // 2 and 3 over HTTP, through the gateway on one process.
  const server = await startServer<{ port: number; key: string; pid: number }>('bench/servers/service.ts', {
    RSG_BENCH_URLS: JSON.stringify(databases.setup.urls),
    RSG_BENCH_SERVICE: 'iponz',
  });
  children.push(server.child);
  const base = `http://127.0.0.1:${server.info.port}/sandbox/iponz/v5`;
  const headers = { 'Ocp-Apim-Subscription-Key': server.info.key };
  const numbers = (
    await database.pool.query<{ case_number: number }>(
      `SELECT case_number FROM iponz_cases WHERE kind = 'trademark' ORDER BY case_number DESC LIMIT 3`,
    )
  ).rows.map((r) => r.case_number);
  // Warm up (the server's JIT, the case cache), not counted.
  await measureLoad({ name: 'warm-up', url: `${base}/trademarks/${numbers[0]}`, headers }, 2);
  const xml = [];
  for (const number of numbers) {
    const result = await measureLoad(
      { name: `trade mark ${number}`, url: `${base}/trademarks/${number}`, headers },
      SECONDS,
    );
    xml.push(result);
    log(`XML by number ${number}: ${result.rps.toFixed(0)}/s, p99 ${result.p99} ms`);
  }

  const rss = async () => {
    const status = await readFile(`/proc/${server.info.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  };
  // A range of days holding about `count` trade marks (at most 366 days): it ends on the latest day that
  // holds no more than `count` alone (at full scale today alone holds over 1,500), and reaches back as far
  // as `count` allows.
  const rangeOf = async (count: number) => {
    const { rows } = await database.pool.query<{ from: string; to: string; n: string }>(
      `WITH d AS (SELECT updated_on, count(*) AS n FROM iponz_cases WHERE kind = 'trademark'
          AND updated_on > (SELECT max(updated_on) FROM iponz_cases) - 366 GROUP BY updated_on),
        e AS (SELECT max(updated_on) AS last FROM d WHERE n <= $1),
        c AS (SELECT updated_on, sum(n) OVER (ORDER BY updated_on DESC) AS total FROM d, e
          WHERE updated_on <= e.last)
       SELECT (SELECT min(updated_on) FROM c WHERE total <= $1)::text AS from,
         (SELECT last FROM e)::text AS to,
         (SELECT max(total) FROM c WHERE total <= $1)::text AS n`,
      [count],
    );
    return rows[0]!;
  };
  const stream = async (count: number) => {
    const range = await rangeOf(count);
    let peak = await rss();
    const before = peak;
    const timer = setInterval(async () => {
      peak = Math.max(peak, await rss());
    }, 10);
    const started = performance.now();
    const response = await fetch(`${base}/trademarks?start-date=${range.from}&end-date=${range.to}`, {
      headers,
    });
    let bytes = 0;
    for await (const chunk of response.body!) bytes += (chunk as Uint8Array).length;
    clearInterval(timer);
    return { cases: Number(range.n), before, peak, bytes, ms: performance.now() - started };
  };
  await stream(500); // warm
  const lists = {
    small: [] as Awaited<ReturnType<typeof stream>>[],
    large: [] as Awaited<ReturnType<typeof stream>>[],
  };
  for (let round = 0; round < 3; round++) {
    lists.small.push(await stream(500));
    lists.large.push(await stream(10_000));
    log(
      `lists round ${round + 1}: ~500 cases peak ${lists.small.at(-1)!.peak.toFixed(0)} MB, ~10,000 cases peak ${lists.large.at(-1)!.peak.toFixed(0)} MB`,
    );
  }
  await stopServer(server.child);
  children.pop();

  const register = median(search.register);
  const plainP95 = median(search.plain);
  const rate = median(xml.map((r) => r.rps));
  const large = lists.large.at(-1)!;
  const small = lists.small.at(-1)!;
  const growth = Math.max(...lists.large.map((l) => l.peak - l.before));
  const smallGrowth = Math.max(...lists.small.map((l) => l.peak - l.before));
  const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
  const counts = `${plan.clients.toLocaleString('en-NZ')} clients, ${plan.patents.toLocaleString('en-NZ')} patents, ${plan.trademarks.toLocaleString('en-NZ')} trade marks, ${plan.designs.toLocaleString('en-NZ')} designs`;
  const full = PLANS.full;
  const scaledDown =
    plan.clients < full.clients ||
    plan.patents < full.patents ||
    plan.trademarks < full.trademarks ||
    plan.designs < full.designs
      ? ' **Scaled down** from the full sandbox (300,000 clients, 250,000 patents, 600,000 trade marks, 50,000 designs): not the measurement the goals name.'
      : '';
  const markdown = `### IP office: client search, case XML, streamed lists (\`npm run bench:iponz\`)

${counts} (${databases.label}; ${reused ? 'loaded by an earlier run and reused' : `generated and loaded in ${loadSeconds.toFixed(0)} s`}).${scaledDown} Measured ${new Date().toISOString().slice(0, 10)}; machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(1)} at the end (the machine is shared; the server and wrk share its cores).

| measure | ours | straightforward | goal |
|---|---|---|---|
| client search with \`%\` wildcards, p95 in the database client (median of ${ROUNDS} rounds × ${QUERIES}; straightforward ${PLAIN} a round) | ${register.toFixed(2)} ms | ${plainP95.toFixed(1)} ms (${(plainP95 / register).toFixed(1)}× ours) | ≤ 20 ms: ${verdict(register <= 20)} |
| the same first page from both | ${search.same} of ${search.compared} | | |
| case XML by number over HTTP through the gateway, one process, 32 connections (median of ${xml.length} case numbers × ${SECONDS} s) | ${rate.toFixed(0)}/s, p99 ${median(xml.map((r) => r.p99)).toFixed(1)} ms | | ≥ 5,000/s: ${verdict(rate >= 5000)} |
| streamed list of ${large.cases.toLocaleString('en-NZ')} trade marks (${(large.bytes / 1e6).toFixed(1)} MB in ${(large.ms / 1000).toFixed(1)} s): the server's resident memory grew by at most | ${growth.toFixed(0)} MB | ${small.cases} trade marks: ${smallGrowth.toFixed(0)} MB | flat: ${verdict(growth <= smallGrowth + 32)} |

Median matches per client query: ${median(search.found)}. "Flat" is read as: the long list's growth within 32 MB of the short list's.
`;
  process.stdout.write(markdown);
  await recordResults('iponz', markdown);
} finally {
  for (const child of children) await stopServer(child);
  await database.close();
  await databases.release();
}
