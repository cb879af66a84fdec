import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.ts';
import { createSubscription } from '../src/gateway/operations/subscriptions.ts';
import { updateProduct } from '../src/gateway/store/products.ts';
import { addUser } from '../src/identity/operations/users.ts';
import { realClock } from '../src/platform/clock.ts';
import { ensureDatabase, openDatabase } from '../src/platform/db/pool.ts';
import { migrateAll, prepareDatabases } from '../src/runtime.ts';
import { nzbnForIndex } from '../src/services/nzbn/sandbox/numbers.ts';
import { seedNzbn } from '../src/services/nzbn/sandbox/seed.ts';
import { searchMix } from './nzbn-search-mix.ts';
import { median, recordResults, root, startServer, stopServer } from './support.ts';

/**
 * A quick, focused look at GET /sandbox/nzbn/v5/entities/{nzbn}: the part of `npm run bench:nzbn` that
 * measures one entity read, on a smaller register, without the seed timing, search or the mocks.
 *
 * Inside the server (inject, one request at a time) it times random entities and one entity repeatedly;
 * over HTTP (autocannon, 32 connections) it loads the same entity. With BENCH_BASELINE=<folder> holding
 * another copy of the project (its src/ and bench/, e.g. `cp -r src bench package.json tsconfig.json
 * reference-data <folder>` before a change, with node_modules linked), that copy's gateway runs beside
 * this one on the same database, interleaved round by round: a before/after of a change.
 *
 *   BENCH_ENTITIES=700000 BENCH_ROUNDS=5 BENCH_SAMPLES=3000 BENCH_SECONDS=5 \
 *   BENCH_BASELINE=/tmp/old BENCH_DATA=/tmp/rsg-bench-read node --import tsx bench/nzbn-read.ts
 *
 * BENCH_DATA keeps the embedded database between runs (the seed is idempotent, so the second run
 * loads nothing; the first at national scale takes a minute or two); BENCH_HTTP=0 skips the HTTP part;
 * BENCH_INJECT=0 skips the inject part; BENCH_YIELD=0 calls inject back to back (see `timed`);
 * BENCH_SEARCH=0 skips the search mix of `bench:nzbn` (nzbn-search-mix.ts), which otherwise runs inside
 * the server beside the reads, its p95 per round compared the same way;
 * BENCH_RECORD=1 writes the tables into docs/benchmarks.md (section bench:nzbn-read).
 * BENCH_PROFILE=<prefix> writes CPU profiles of the first round of this tree's inject calls, to read
 * with bench/cpuprofile-top.ts.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 100_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 3_000);
const BASELINE = process.env.BENCH_BASELINE;
const YIELD = process.env.BENCH_YIELD !== '0';
const BASE = '/sandbox/nzbn/v5';
const PROBE = `${BASE}/entities/9429000001007`;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

const config = loadConfig();
const keep = process.env.BENCH_DATA;
const dataDir = keep ?? (await mkdtemp(path.join(tmpdir(), 'rsg-bench-read-')));
if (keep) await mkdir(keep, { recursive: true });
const setup = await prepareDatabases({
  ...config,
  databaseUrl: undefined,
  dataDir,
  embeddedPgPort: 20_000 + (process.pid % 20_000),
});
for (const url of Object.values(setup.urls)) await ensureDatabase(url);
await migrateAll(setup.urls);

const lines: string[] = [];
const out = (line: string) => {
  lines.push(line);
  process.stdout.write(`${line}\n`);
};
const LABEL: Record<string, string> = {
  baseline: 'before (BENCH_BASELINE)',
  current: 'after (this tree)',
};

const trees = [{ name: 'current', folder: root }];
if (BASELINE) trees.unshift({ name: 'baseline', folder: path.resolve(BASELINE) });
const servers: Awaited<ReturnType<typeof startServer<{ port: number; key: string }>>>[] = [];
try {
  const sandbox = openDatabase(setup.urls.sandbox, 4);
  const SEARCH = process.env.BENCH_SEARCH !== '0';
  const seedStarted = performance.now();
  const summary = await seedNzbn(
    {
      database: sandbox,
      scale: 'full',
      clock: realClock,
      log: () => {},
      identity: { grantOperatorsAuthority: async () => {} },
    },
    { entities: ENTITIES },
  );
  const mix = SEARCH ? await searchMix(sandbox.pool, ENTITIES) : undefined;
  await sandbox.close();
  process.stderr.write(`seed: ${summary} (${((performance.now() - seedStarted) / 1000).toFixed(1)} s)\n`);

  const gateway = openDatabase(setup.urls.gateway, 2);
  await updateProduct(gateway.pool, 'sandbox-nzbn', {
    rateLimitPerMinute: 100_000_000,
    quota: { calls: 1_000_000_000, periodSeconds: 86_400 },
  });
  const user = await addUser(gateway.pool, { email: `bench-read-${Date.now()}@example.test` });
  const { primaryKey } = await createSubscription(gateway.pool, {
    userId: user.id,
    productId: 'sandbox-nzbn',
    state: 'active',
  });
  await gateway.close();
  const headers = { 'Ocp-Apim-Subscription-Key': primaryKey };

  if (process.env.BENCH_INJECT !== '0') {
    // Each tree's own buildApp and openRuntime, so each has its own module-level caches.
    const apps = [];
    for (const tree of trees) {
      const { buildApp } = await import(pathToFileURL(path.join(tree.folder, 'src/app.ts')).href);
      const runtimeModule = await import(pathToFileURL(path.join(tree.folder, 'src/runtime.ts')).href);
      const runtime = await runtimeModule.openRuntime(
        loadConfig({ LOG_LEVEL: 'warn' }),
        { urls: setup.urls, embedded: undefined },
        { migrate: false },
      );
      const app = await buildApp(runtime, { logger: false });
      apps.push({ name: tree.name, app, runtime });
    }
    type App = (typeof apps)[number];
    const timed = async (app: App, url: string) => {
      // Let the event loop turn first, as it does between a server's requests: light-my-request finishes
      // each response in a setImmediate, so a run of answers that need no I/O (kept entities) would
      // otherwise hold every response until the run ends and measure the collector, not the route.
      if (YIELD) await new Promise((resolve) => setImmediate(resolve));
      const started = performance.now();
      const response = await app.app.inject({ url, headers });
      const elapsed = performance.now() - started;
      if (response.statusCode !== 200)
        throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 200)}`);
      return elapsed;
    };
    const randomEntity = () => nzbnForIndex(Math.floor(Math.random() * ENTITIES));
    for (const app of apps)
      for (let i = 0; i < 500; i++) await timed(app, `${BASE}/entities/${randomEntity()}`);
    type Percentiles = { p50: number; p99: number }[];
    const random: Record<string, Percentiles> = Object.fromEntries(apps.map((a) => [a.name, []]));
    const repeated: Record<string, Percentiles> = Object.fromEntries(apps.map((a) => [a.name, []]));
    const searches: Record<string, number[]> = Object.fromEntries(apps.map((a) => [a.name, []]));
    let searchIndex = 0;
    if (mix) for (const app of apps) for (let i = 0; i < 200; i++) await timed(app, mix.path(BASE, i));
    // BENCH_PROFILE=<prefix>: CPU profiles of the current tree's first round only (<prefix>-random and
    // <prefix>-one .cpuprofile), without start-up and seed, for bench/cpuprofile-top.ts.
    const profiler = process.env.BENCH_PROFILE ? new Session() : undefined;
    profiler?.connect();
    const profiled = async <T>(on: boolean, name: string, work: () => Promise<T>): Promise<T> => {
      if (!profiler || !on) return work();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
      const result = await work();
      const { profile } = await profiler.post('Profiler.stop');
      await writeFile(`${process.env.BENCH_PROFILE}-${name}.cpuprofile`, JSON.stringify(profile));
      return result;
    };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [...apps].reverse() : apps;
      for (const app of order) {
        const profile = round === 0 && app.name === 'current';
        const byNumber: number[] = [];
        await profiled(profile, 'random', async () => {
          for (let i = 0; i < SAMPLES; i++)
            byNumber.push(await timed(app, `${BASE}/entities/${randomEntity()}`));
        });
        const one: number[] = [];
        await profiled(profile, 'one', async () => {
          for (let i = 0; i < SAMPLES; i++) one.push(await timed(app, PROBE));
        });
        if (mix) {
          // Both trees get the same terms in a round: the index restarts for each of them.
          const first = searchIndex;
          const times: number[] = [];
          for (let i = 0; i < SAMPLES / 3; i++) times.push(await timed(app, mix.path(BASE, first + i)));
          searches[app.name]!.push(percentile(times, 95));
        }
        random[app.name]!.push({ p50: percentile(byNumber, 50), p99: percentile(byNumber, 99) });
        repeated[app.name]!.push({ p50: percentile(one, 50), p99: percentile(one, 99) });
      }
      searchIndex += Math.floor(SAMPLES / 3);
      process.stderr.write(
        `inject round ${round + 1}: ${apps.map((a) => `${a.name} random p99 ${random[a.name]!.at(-1)!.p99.toFixed(2)} ms`).join(', ')}\n`,
      );
    }
    const fmt = (values: number[]) => values.map((x) => x.toFixed(2)).join(', ');
    out('');
    out(
      `Inside the server (inject, one call at a time), ${ENTITIES.toLocaleString('en-NZ')} entities, ${ROUNDS} interleaved rounds of ${SAMPLES} calls per contender and kind; medians of the per-round percentiles:`,
    );
    out('');
    out('| contender | random entities p50 ms | p99 ms | p99 per round | one entity p50 ms | p99 ms |');
    out('|---|---|---|---|---|---|');
    for (const app of apps) {
      const r = random[app.name]!;
      const o = repeated[app.name]!;
      out(
        `| ${LABEL[app.name]} | ${median(r.map((x) => x.p50)).toFixed(2)} | ${median(r.map((x) => x.p99)).toFixed(2)} | ${fmt(r.map((x) => x.p99))} | ${median(o.map((x) => x.p50)).toFixed(2)} | ${median(o.map((x) => x.p99)).toFixed(2)} |`,
      );
    }
    if (apps.length === 2) {
      const ratios = random.current!.map((c, i) => random.baseline![i]!.p99 / c.p99);
      const oneRatios = repeated.current!.map((c, i) => repeated.baseline![i]!.p50 / c.p50);
      out('');
      out(
        `- Random entities, p99 before ÷ after per round: ${fmt(ratios)} (median ${median(ratios).toFixed(2)}×); one entity, p50 before ÷ after: median ${median(oneRatios).toFixed(2)}×.`,
      );
    }
    if (mix) {
      out('');
      out(
        `The search mix of \`bench:nzbn\` (${Math.floor(SAMPLES / 3)} searches per contender and round, the same terms for each), inside the server; p95 per round and its median:`,
      );
      out('');
      out('| contender | search p95 ms | p95 per round |');
      out('|---|---|---|');
      for (const app of apps)
        out(
          `| ${LABEL[app.name]} | ${median(searches[app.name]!).toFixed(2)} | ${fmt(searches[app.name]!)} |`,
        );
      if (apps.length === 2) {
        const ratios = searches.current!.map((c, i) => searches.baseline![i]! / c);
        out('');
        out(`- Search p95 before ÷ after per round: ${fmt(ratios)} (median ${median(ratios).toFixed(2)}×).`);
      }
    }
    for (const app of apps) {
      await app.app.close();
      await app.runtime.close();
    }
  }

  if (process.env.BENCH_HTTP !== '0') {
    const contenders = [];
    for (const tree of trees) {
      const started = await startServer<{ port: number; key: string }>(
        path.relative(root, path.join(tree.folder, 'bench/servers/nzbn.ts')),
        { RSG_BENCH_URLS: JSON.stringify(setup.urls), RSG_BENCH_WORKERS: '1' },
      );
      servers.push(started);
      contenders.push({
        name: tree.name,
        url: `http://127.0.0.1:${started.info.port}${PROBE}`,
        headers: { 'Ocp-Apim-Subscription-Key': started.info.key },
      });
    }
    type Contender = (typeof contenders)[number];
    const measure = async (c: Contender, duration = SECONDS) => {
      const result = await autocannon({ url: c.url, headers: c.headers, connections: 32, duration });
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`${c.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
    };
    for (const c of contenders) await measure(c, 3);
    const rounds: Record<string, { rps: number; p50: number; p99: number }[]> = Object.fromEntries(
      contenders.map((c) => [c.name, []]),
    );
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [...contenders].reverse() : contenders;
      for (const c of order) rounds[c.name]!.push(await measure(c));
      process.stderr.write(
        `http round ${round + 1}: ${contenders.map((c) => `${c.name} ${rounds[c.name]!.at(-1)!.rps.toFixed(0)} req/s`).join(', ')}\n`,
      );
    }
    out('');
    out(
      `Over HTTP, GET ${PROBE} (autocannon, 32 connections, one process each, ${ROUNDS} interleaved rounds of ${SECONDS} s; medians):`,
    );
    out('');
    out('| contender | req/s | req/s per round | p50 ms | p99 ms |');
    out('|---|---|---|---|---|');
    for (const c of contenders) {
      const s = rounds[c.name]!;
      out(
        `| ${LABEL[c.name]} | ${median(s.map((x) => x.rps)).toFixed(0)} | ${s.map((x) => x.rps.toFixed(0)).join(', ')} | ${median(s.map((x) => x.p50))} | ${median(s.map((x) => x.p99))} |`,
      );
    }
    if (contenders.length === 2) {
      const ratios = rounds.current!.map((c, i) => c.rps / rounds.baseline![i]!.rps);
      out('');
      out(
        `- req/s after ÷ before per round: ${ratios.map((x) => x.toFixed(2)).join(', ')} (median ${median(ratios).toFixed(2)}×).`,
      );
    }
  }
  out('');
  out(
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(1)} at the end (the machine is shared); embedded PostgreSQL 17.`,
  );
  if (process.env.BENCH_RECORD === '1') {
    await recordResults(
      'bench:nzbn-read',
      [
        '## One entity read, before and after (`bench/nzbn-read.ts`)',
        '',
        `The read path of \`bench:nzbn\` alone, with another copy of the project (\`BENCH_BASELINE\`) run beside this one on the same database, interleaved round by round.`,
        ...lines,
      ].join('\n'),
    );
  }
} finally {
  for (const server of servers) await stopServer(server.child);
  await setup.embedded?.stop();
  if (!keep) await rm(dataDir, { recursive: true, force: true });
}
