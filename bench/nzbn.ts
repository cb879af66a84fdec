import os from 'node:os';
import autocannon from 'autocannon';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { updateProduct } from '../src/gateway/products.ts';
import { createSubscription } from '../src/gateway/subscriptions.ts';
import { addUser } from '../src/identity/users.ts';
import { realClock } from '../src/platform/clock.ts';
import { openDatabase } from '../src/platform/db/pool.ts';
import { openRuntime } from '../src/runtime.ts';
import { nzbnForIndex } from '../src/services/nzbn/sandbox/numbers.ts';
import { SCALE_ENTITIES, seedNzbn } from '../src/services/nzbn/store/seed.ts';
import {
  installTools,
  type Mock,
  PRISM_VERSION,
  startPrism,
  startWireMock,
  stopMock,
  WIREMOCK_VERSION,
} from './nzbn-mocks.ts';
import { benchDatabases, median, recordResults, startServer, stopServer } from './support.ts';

/**
 * The business number service at national scale: (1) the nzbn part of `rsg seed --scale full` on an
 * empty database, timed; (2) inside the server (Fastify inject, no network): GET /entities/{nzbn} for
 * random entities, p50/p99, and a search mix, p50/p95; (3) side by side, over HTTP with autocannon, the
 * same GET /entities/{nzbn} through our gateway, a Prism mock of our OpenAPI document and a WireMock
 * stub, interleaved round by round, medians and ratios. BENCH_ENTITIES overrides the scale (trials).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? SCALE_ENTITIES.full);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5_000);
const BASE = '/sandbox/nzbn/v5';

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const ms = (value: number) => value.toFixed(2);
const LABELS: Record<string, string> = {
  gateway: 'our gateway, one process (key, limits, usage; entity from memory while unchanged)',
  'gateway-workers': `our gateway, ${os.cpus().length} worker processes`,
  prism: `Prism ${PRISM_VERSION} mock of our OpenAPI document`,
  wiremock: `WireMock ${WIREMOCK_VERSION} stub (same bytes)`,
};

const databases = await benchDatabases('nzbn');
const { setup } = databases;

const lines: string[] = [];
const servers: Awaited<ReturnType<typeof startServer<{ port: number; key: string }>>>[] = [];
const mocks: Mock[] = [];
try {
  // 1. The seed, as `rsg seed --scale full` runs it for this service.
  const sandbox = openDatabase(setup.urls.sandbox, 4);
  const seedStarted = performance.now();
  const summary = await seedNzbn(
    {
      database: sandbox,
      scale: 'full',
      clock: realClock,
      log: (line) => process.stderr.write(`${line}\n`),
      identity: { grantOperatorsAuthority: async () => {} },
    },
    { entities: ENTITIES },
  );
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const size = (
    await sandbox.pool.query<{ size: string }>(
      'SELECT pg_size_pretty(pg_database_size(current_database())) AS size',
    )
  ).rows[0]!.size;
  const words = (
    await sandbox.pool.query<{ name: string; trading: string | null; number: string | null }>(
      `SELECT entity_name AS name, trading_names[1] AS trading, source_register_unique_id AS number
         FROM nzbn_entities TABLESAMPLE SYSTEM (1) REPEATABLE (42) LIMIT 2000`,
    )
  ).rows;
  await sandbox.close();
  process.stderr.write(`seed: ${summary} (${seedSeconds.toFixed(1)} s)\n`);

  // 2. Inside the server: inject, one request at a time.
  const runtime = await openRuntime(
    loadConfig({ LOG_LEVEL: 'warn' }),
    { urls: setup.urls, embedded: undefined },
    { migrate: false },
  );
  const app = await buildApp(runtime, { logger: false });
  const user = await addUser(runtime.gateway.pool, { email: `bench-inject-${Date.now()}@example.test` });
  const { primaryKey } = await createSubscription(runtime.gateway.pool, {
    userId: user.id,
    productId: 'sandbox-nzbn',
    state: 'active',
  });
  await updateProduct(runtime.gateway.pool, 'sandbox-nzbn', {
    rateLimitPerMinute: 100_000_000,
    quota: { calls: 1_000_000_000, periodSeconds: 86_400 },
  });
  const headers = { 'Ocp-Apim-Subscription-Key': primaryKey };
  const timed = async (url: string) => {
    // Let the event loop turn between calls, as it does between a server's requests: light-my-request
    // finishes each response in a setImmediate, so a run of calls that need no I/O (entities answered
    // from memory) would otherwise hold every response until the run ends, and the figures would measure
    // the garbage collector working through them rather than the route. Outside the timed span.
    await new Promise((resolve) => setImmediate(resolve));
    const started = performance.now();
    const response = await app.inject({ url, headers });
    const elapsed = performance.now() - started;
    if (response.statusCode !== 200)
      throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 200)}`);
    return elapsed;
  };
  const randomEntity = () => nzbnForIndex(Math.floor(Math.random() * ENTITIES));
  for (let i = 0; i < 500; i++) await timed(`${BASE}/entities/${randomEntity()}`);
  const byNumber: number[] = [];
  for (let i = 0; i < SAMPLES; i++) byNumber.push(await timed(`${BASE}/entities/${randomEntity()}`));
  const repeated: number[] = [];
  for (let i = 0; i < SAMPLES; i++) repeated.push(await timed(`${BASE}/entities/9429000001007`));

  // A search mix drawn from the register: a name's first word, its first two words, a trading name, a
  // company number; one in five with a status or type filter.
  const terms = words.flatMap(({ name, trading, number }) => {
    const parts = name.split(/\s+/);
    return [
      parts[0]!,
      parts.slice(0, 2).join(' '),
      ...(trading ? [trading] : []),
      ...(number ? [number] : []),
    ];
  });
  const filters = ['', '', '', '', '&entity-status=Registered', '&entity-type=NZCompany'];
  const searchUrl = (i: number) =>
    `${BASE}/entities?search-term=${encodeURIComponent(terms[i % terms.length]!)}${filters[i % filters.length]}`;
  for (let i = 0; i < 200; i++) await timed(searchUrl(i * 7));
  const searches: number[] = [];
  for (let i = 0; i < Math.min(SAMPLES, 3_000); i++) searches.push(await timed(searchUrl(i)));
  const common: number[] = [];
  for (const word of ['limited', 'holdings', 'trust', 'nz', 'new zealand']) {
    for (let i = 0; i < 20; i++)
      common.push(await timed(`${BASE}/entities?search-term=${encodeURIComponent(word)}`));
  }
  const sample = await app.inject({ url: `${BASE}/entities/9429000001007`, headers });
  const openapi = (await app.inject({ url: `${BASE}/openapi.json` })).json();
  await app.close();
  await runtime.close();

  // 3. Side by side over HTTP.
  const probe = `${BASE}/entities/9429000001007`;
  const contenders: { name: string; url: string; headers: Record<string, string> }[] = [];
  // Our gateway as `rsg start` runs it (one process), and with one process per core (`--workers N`),
  // as WireMock's Java server uses every core.
  for (const [name, workers] of [
    ['gateway', 1],
    ['gateway-workers', os.cpus().length],
  ] as const) {
    const started = await startServer<{ port: number; key: string }>('bench/servers/nzbn.ts', {
      RSG_BENCH_URLS: JSON.stringify(setup.urls),
      RSG_BENCH_WORKERS: String(workers),
    });
    servers.push(started);
    const headers = { 'Ocp-Apim-Subscription-Key': started.info.key };
    contenders.push({ name, url: `http://127.0.0.1:${started.info.port}${probe}`, headers });
  }
  const skipped: string[] = [];
  const toolProblem = await installTools();
  const mockHeaders = { 'Ocp-Apim-Subscription-Key': 'bench' };
  for (const [name, start] of [
    ['prism', () => startPrism(openapi, '/entities/9429000001007', mockHeaders)],
    ['wiremock', () => startWireMock(probe, sample.body, mockHeaders)],
  ] as const) {
    if (toolProblem) {
      skipped.push(`${name}: ${toolProblem}`);
      continue;
    }
    try {
      const mock = await start();
      mocks.push(mock);
      contenders.push({ name, url: mock.url, headers: mockHeaders });
    } catch (error) {
      skipped.push(`${name}: could not start (${(error as Error).message})`);
    }
  }
  const measure = async (c: (typeof contenders)[number], duration = SECONDS) => {
    const result = await autocannon({ url: c.url, headers: c.headers, connections: 32, duration });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${c.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return {
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      bytes: result.throughput.average / Math.max(1, result.requests.average),
    };
  };
  for (const c of contenders) await measure(c, 3);
  const rounds: Record<string, { rps: number; p50: number; p99: number; bytes: number }[]> =
    Object.fromEntries(contenders.map((c) => [c.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...contenders].reverse() : contenders;
    for (const c of order) rounds[c.name]!.push(await measure(c));
    process.stderr.write(
      `round ${round + 1}: ${contenders.map((c) => `${c.name} ${rounds[c.name]!.at(-1)!.rps.toFixed(0)} req/s`).join(', ')}\n`,
    );
  }
  const ratio = (name: string, ours = 'gateway') =>
    median(rounds[ours]!.map((g, i) => g.rps / rounds[name]![i]!.rps));

  const goal = (ok: boolean) => (ok ? 'met' : '**not met**');
  const p99 = percentile(byNumber, 99);
  const p95 = percentile(searches, 95);
  lines.push(
    '## Business number register at national scale (`npm run bench:nzbn`)',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ` +
      `load average ${os.loadavg()[0]!.toFixed(1)} at the end (the machine is shared); database: ${databases.label}.`,
    '',
    '| measure | result | goal | |',
    '|---|---|---|---|',
    `| nzbn part of \`rsg seed --scale full\` on an empty database (${ENTITIES.toLocaleString('en-NZ')} entities + fixtures) | ${seedSeconds.toFixed(1)} s (database ${size}) | ≤ 180 s | ${goal(seedSeconds <= 180)} |`,
    `| GET /entities/{nzbn} inside the server, random entities (${SAMPLES} calls) | p50 ${ms(percentile(byNumber, 50))} ms, p99 ${ms(p99)} ms | p99 ≤ 5 ms | ${goal(p99 <= 5)} |`,
    `| GET /entities/{nzbn} inside the server, one entity repeatedly | p50 ${ms(percentile(repeated, 50))} ms, p99 ${ms(percentile(repeated, 99))} ms | | |`,
    `| search mix inside the server (${searches.length} calls: names, two words, trading names, company numbers; ⅓ filtered) | p50 ${ms(percentile(searches, 50))} ms, p95 ${ms(p95)} ms, p99 ${ms(percentile(searches, 99))} ms | p95 ≤ 25 ms | ${goal(p95 <= 25)} |`,
    `| search for very common words (limited, holdings, trust, nz, new zealand; 100 calls, not in the mix) | p50 ${ms(percentile(common, 50))} ms, p95 ${ms(percentile(common, 95))} ms | | |`,
    '',
    'Inside the server, calls go one at a time, the event loop let turn between them (outside the timed span), as between the requests of a server.',
    '',
    `Side by side, the same GET ${probe} over HTTP (autocannon, 32 connections, ${ROUNDS} interleaved rounds of ${SECONDS} s; medians):`,
    '',
    '| contender | req/s | p50 ms | p99 ms | bytes/answer | ours (1 process) ÷ it | ours (workers) ÷ it |',
    '|---|---|---|---|---|---|---|',
    ...contenders.map((c) => {
      const s = rounds[c.name]!;
      const ratios = c.name.startsWith('gateway')
        ? '| |'
        : `| ${ratio(c.name).toFixed(2)}× | ${ratio(c.name, 'gateway-workers').toFixed(2)}× |`;
      return `| ${LABELS[c.name] ?? c.name} | ${median(s.map((x) => x.rps)).toFixed(0)} | ${median(s.map((x) => x.p50))} | ${median(s.map((x) => x.p99))} | ${median(s.map((x) => x.bytes)).toFixed(0)} ${ratios}`;
    }),
    '',
    ...(rounds.prism
      ? [
          `- Goal ≥ 10× Prism: one process ${goal(ratio('prism') >= 10)}; ${os.cpus().length} workers ${goal(ratio('prism', 'gateway-workers') >= 10)}. Prism answers an example it makes from the schema, not the entity.`,
        ]
      : []),
    ...(rounds.wiremock
      ? [
          `- Goal ≥ 2× WireMock: one process ${goal(ratio('wiremock') >= 2)}; ${os.cpus().length} workers ${goal(ratio('wiremock', 'gateway-workers') >= 2)}. WireMock sends fixed bytes; ours checks the key, rate limit and quota and records usage on every call, and answers the entity from memory while it is unchanged (the cache listens for changes: store/entity-cache.ts). The load generator shares the ${os.cpus().length} cores with every contender.`,
        ]
      : []),
    `- req/s per round (interleaved, the order reversed every other round): ${contenders.map((c) => `${c.name} ${rounds[c.name]!.map((x) => x.rps.toFixed(0)).join(', ')}`).join('; ')}.`,
    ...(rounds.wiremock
      ? [
          `- Ours (one process) ÷ WireMock per round: ${rounds.gateway!.map((g, i) => `${(g.rps / rounds.wiremock![i]!.rps).toFixed(2)}×`).join(', ')}. A JVM keeps compiling for a while, so WireMock's rate may still climb over the rounds.`,
        ]
      : []),
    ...skipped.map((line) => `- Skipped ${line}.`),
    `- Seed: ${summary}.`,
  );
  process.stdout.write(`\n${lines.join('\n')}\n`);
  if (process.env.BENCH_RECORD !== '0') await recordResults('bench:nzbn', lines.join('\n'));
} finally {
  for (const mock of mocks) await stopMock(mock);
  for (const server of servers) await stopServer(server.child);
  await databases.release();
}
