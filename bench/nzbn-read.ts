import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.ts';
import { updateProduct } from '../src/gateway/products.ts';
import { createSubscription } from '../src/gateway/subscriptions.ts';
import { addUser } from '../src/identity/users.ts';
import { realClock } from '../src/platform/clock.ts';
import { ensureDatabase, openDatabase } from '../src/platform/db/pool.ts';
import { migrateAll, openRuntime, prepareDatabases } from '../src/runtime.ts';
import { nzbnForIndex } from '../src/services/nzbn/sandbox/numbers.ts';
import { seedNzbn } from '../src/services/nzbn/store/seed.ts';
import { median, root, startServer, stopServer } from './support.ts';

/**
 * A quick, focused look at GET /sandbox/nzbn/v5/entities/{nzbn}: the part of `npm run bench:nzbn` that
 * measures one entity read, on a smaller register, without the seed timing, search or the mocks.
 *
 * Inside the server (inject, one request at a time) it times random entities and one entity repeatedly;
 * over HTTP (autocannon, 32 connections) it loads the same entity. With BENCH_BASELINE=<folder> holding
 * another copy of the project (its src/ and bench/), that copy's gateway runs beside this one on the same
 * database, interleaved round by round, and the table gives both with per-round ratios — a before/after
 * of a change without a second database. Nothing is recorded in docs/benchmarks.md.
 *
 *   BENCH_ENTITIES=100000 BENCH_ROUNDS=5 BENCH_SAMPLES=3000 BENCH_SECONDS=5 \
 *   BENCH_BASELINE=/tmp/old BENCH_DATA=/tmp/rsg-bench-read node --import tsx bench/nzbn-read.ts
 *
 * BENCH_DATA keeps the embedded database between runs (the seed is idempotent, so the second run
 * loads nothing); BENCH_HTTP=0 skips the HTTP part; BENCH_INJECT=0 skips the inject part. Profile the
 * inject part with `node --cpu-prof --import tsx bench/nzbn-read.ts` and bench/cpuprofile-top.ts.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 100_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 3_000);
const BASELINE = process.env.BENCH_BASELINE;
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

const trees = [{ name: 'current', folder: root }];
if (BASELINE) trees.unshift({ name: 'baseline', folder: path.resolve(BASELINE) });
const servers: Awaited<ReturnType<typeof startServer<{ port: number; key: string }>>>[] = [];
try {
  const sandbox = openDatabase(setup.urls.sandbox, 4);
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
      const started = performance.now();
      const response = await app.app.inject({ url, headers });
      const elapsed = performance.now() - started;
      if (response.statusCode !== 200)
        throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 200)}`);
      return elapsed;
    };
    const randomEntity = () => nzbnForIndex(Math.floor(Math.random() * ENTITIES));
    for (const app of apps) for (let i = 0; i < 500; i++) await timed(app, `${BASE}/entities/${randomEntity()}`);
    const random: Record<string, { p50: number; p99: number }[]> = {};
    const repeated: Record<string, { p50: number; p99: number }[]> = {};
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [...apps].reverse() : apps;
      for (const app of order) {
        const byNumber: number[] = [];
        for (let i = 0; i < SAMPLES; i++) byNumber.push(await timed(app, `${BASE}/entities/${randomEntity()}`));
        const one: number[] = [];
        for (let i = 0; i < SAMPLES; i++) one.push(await timed(app, PROBE));
        (random[app.name] ??= []).push({ p50: percentile(byNumber, 50), p99: percentile(byNumber, 99) });
        (repeated[app.name] ??= []).push({ p50: percentile(one, 50), p99: percentile(one, 99) });
      }
      process.stderr.write(
        `inject round ${round + 1}: ${apps.map((a) => `${a.name} random p99 ${random[a.name]!.at(-1)!.p99.toFixed(2)} ms`).join(', ')}\n`,
      );
    }
    console.log(
      `\nInside the server (inject), ${ENTITIES.toLocaleString('en-NZ')} entities, ${ROUNDS} interleaved rounds of ${SAMPLES} calls each; medians of per-round percentiles:\n`,
    );
    console.log('| contender | random p50 ms | random p99 ms | one entity p50 ms | one entity p99 ms |');
    console.log('|---|---|---|---|---|');
    for (const app of apps) {
      const r = random[app.name]!;
      const o = repeated[app.name]!;
      console.log(
        `| ${app.name} | ${median(r.map((x) => x.p50)).toFixed(2)} | ${median(r.map((x) => x.p99)).toFixed(2)} | ${median(o.map((x) => x.p50)).toFixed(2)} | ${median(o.map((x) => x.p99)).toFixed(2)} |`,
      );
    }
    if (apps.length === 2) {
      const ratios = random.current!.map((c, i) => random.baseline![i]!.p99 / c.p99);
      console.log(
        `\nrandom p99 baseline ÷ current, per round: ${ratios.map((x) => x.toFixed(2)).join(', ')} (median ${median(ratios).toFixed(2)})`,
      );
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
    const rounds: Record<string, { rps: number; p50: number; p99: number }[]> = {};
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [...contenders].reverse() : contenders;
      for (const c of order) (rounds[c.name] ??= []).push(await measure(c));
      process.stderr.write(
        `http round ${round + 1}: ${contenders.map((c) => `${c.name} ${rounds[c.name]!.at(-1)!.rps.toFixed(0)} req/s`).join(', ')}\n`,
      );
    }
    console.log(
      `\nOver HTTP, GET ${PROBE} (autocannon, 32 connections, ${ROUNDS} interleaved rounds of ${SECONDS} s; ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}); medians:\n`,
    );
    console.log('| contender | req/s | p50 ms | p99 ms |');
    console.log('|---|---|---|---|');
    for (const c of contenders) {
      const s = rounds[c.name]!;
      console.log(
        `| ${c.name} | ${median(s.map((x) => x.rps)).toFixed(0)} | ${median(s.map((x) => x.p50))} | ${median(s.map((x) => x.p99))} |`,
      );
    }
    if (contenders.length === 2) {
      const ratios = rounds.current!.map((c, i) => c.rps / rounds.baseline![i]!.rps);
      console.log(
        `\nreq/s current ÷ baseline, per round: ${ratios.map((x) => x.toFixed(2)).join(', ')} (median ${median(ratios).toFixed(2)})`,
      );
    }
  }
} finally {
  for (const server of servers) await stopServer(server.child);
  await setup.embedded?.stop();
  if (!keep) await rm(dataDir, { recursive: true, force: true });
}
