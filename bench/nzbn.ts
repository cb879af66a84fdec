import os from 'node:os';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createSubscription } from '../src/gateway/operations/subscriptions.ts';
import { updateProduct } from '../src/gateway/store/products.ts';
import { addUser } from '../src/identity/operations/users.ts';
import { realClock } from '../src/platform/clock.ts';
import { openDatabase } from '../src/platform/db/pool.ts';
import { openRuntime } from '../src/runtime.ts';
import { nzbnForIndex } from '../src/services/nzbn/sandbox/numbers.ts';
import { SCALE_ENTITIES, seedNzbn } from '../src/services/nzbn/sandbox/seed.ts';
import {
  CAN_PIN,
  LOAD_CPUS,
  LOAD_GENERATOR,
  type LoadResult,
  measureLoad,
  SERVER_CPUS,
  warmUp,
} from './load.ts';
import {
  installTools,
  type Mock,
  PRISM_VERSION,
  startPrism,
  startWireMock,
  stopMock,
  WIREMOCK_VERSION,
} from './nzbn-mocks.ts';
import { percentile, searchMix } from './nzbn-search-mix.ts';
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

const ms = (value: number) => value.toFixed(2);
const LABELS: Record<string, string> = {
  gateway: 'our gateway, one process (key, limits, usage; entity from memory while unchanged)',
  'gateway-workers': `our gateway, ${os.cpus().length} worker processes`,
  prism: `Prism ${PRISM_VERSION} mock of our OpenAPI document`,
  wiremock: `WireMock ${WIREMOCK_VERSION} stub (same bytes)`,
};

interface Phase {
  name: string;
  /** Cores the contenders may use. */
  cores: number;
  contenders: string[];
  rounds: Record<string, LoadResult[]>;
  warmUps: Record<string, number[]>;
}

const goal = (ok: boolean) => (ok ? 'met' : '**not met**');

/** One setup's table, goals and per-round figures. */
function sideBySideTable(phase: Phase): string[] {
  const { rounds } = phase;
  const ratio = (name: string, ours: string) =>
    median(rounds[ours]!.map((g, i) => g.rps / rounds[name]![i]!.rps));
  const ours = phase.contenders.filter((name) => name.startsWith('gateway'));
  const mocks = phase.contenders.filter((name) => !name.startsWith('gateway'));
  const label = (name: string) =>
    name === 'gateway-workers' ? `our gateway, ${phase.cores} worker processes` : (LABELS[name] ?? name);
  const goals: [string, number][] = [
    ['prism', 10],
    ['wiremock', 2],
  ];
  return [
    phase.name === 'shared'
      ? `**Sharing the cores.** Contenders and load generator on all ${os.cpus().length} cores, as on a developer's machine:`
      : `**Cores of their own.** The load generator on core ${LOAD_CPUS}, each contender on core ${SERVER_CPUS} (\`taskset\`; a JVM sizes its threads to the cores it sees):`,
    '',
    `| contender | req/s | p50 ms | p99 ms | bytes/answer | ${ours.map((name) => `${name === 'gateway' ? 'ours (1 process)' : 'ours (workers)'} ÷ it`).join(' | ')} |`,
    `|---|---|---|---|---|${ours.map(() => '---|').join('')}`,
    ...phase.contenders.map((name) => {
      const s = rounds[name]!;
      const ratios = ours.map((mine) => (mocks.includes(name) ? `${ratio(name, mine).toFixed(2)}×` : ''));
      return `| ${label(name)} | ${median(s.map((x) => x.rps)).toFixed(0)} | ${median(s.map((x) => x.p50)).toFixed(2)} | ${median(s.map((x) => x.p99)).toFixed(2)} | ${median(s.map((x) => x.bytes)).toFixed(0)} | ${ratios.join(' | ')} |`;
    }),
    '',
    ...goals
      .filter(([name]) => rounds[name])
      .map(
        ([name, times]) =>
          `- Goal ≥ ${times}× ${name === 'prism' ? 'Prism' : 'WireMock'}: ${ours.map((mine) => `${mine === 'gateway' ? 'one process' : `${phase.cores} workers`} ${goal(ratio(name, mine) >= times)} (${ratio(name, mine).toFixed(2)}×)`).join('; ')}.`,
      ),
    `- req/s per round: ${phase.contenders.map((name) => `${name} ${rounds[name]!.map((x) => x.rps.toFixed(0)).join(', ')}`).join('; ')}.`,
    `- Warm-up runs (req/s): ${phase.contenders.map((name) => `${name} ${phase.warmUps[name]!.map((rate) => rate.toFixed(0)).join(', ')}`).join('; ')}.`,
    '',
  ];
}

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
  const mix = await searchMix(sandbox.pool, ENTITIES);
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

  const searchUrl = (i: number) => mix.path(BASE, i);
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

  // 3. Side by side over HTTP, in two setups: every contender sharing all cores with the load generator,
  // as on a developer's machine, and (where taskset and 2+ cores allow) the load generator on a core of
  // its own and each contender on the others, so neither side's rate is the other's leftovers.
  const probe = `${BASE}/entities/9429000001007`;
  const toolProblem = await installTools();
  const mockHeaders = { 'Ocp-Apim-Subscription-Key': 'bench' };
  const serverCores = (cpus: string | undefined) =>
    cpus ? os.availableParallelism() - LOAD_CPUS.split(',').length : os.availableParallelism();
  const phases = [
    { name: 'shared', serverCpus: undefined, loadCpus: undefined },
    ...(CAN_PIN ? [{ name: 'pinned', serverCpus: SERVER_CPUS, loadCpus: LOAD_CPUS }] : []),
  ];
  const skipped: string[] = [];
  const results: Phase[] = [];
  for (const phase of phases) {
    const contenders: { name: string; url: string; headers: Record<string, string> }[] = [];
    // Our gateway as `rsg start` runs it (one process), and with one process per core it may use
    // (`--workers N`), as WireMock's Java server uses every core it is given.
    const cores = serverCores(phase.serverCpus);
    for (const [name, workers] of [
      ['gateway', 1],
      ...(cores > 1 ? [['gateway-workers', cores] as const] : []),
    ] as const) {
      const started = await startServer<{ port: number; key: string }>(
        'bench/servers/nzbn.ts',
        { RSG_BENCH_URLS: JSON.stringify(setup.urls), RSG_BENCH_WORKERS: String(workers) },
        phase.serverCpus,
      );
      servers.push(started);
      const headers = { 'Ocp-Apim-Subscription-Key': started.info.key };
      contenders.push({ name, url: `http://127.0.0.1:${started.info.port}${probe}`, headers });
    }
    for (const [name, start] of [
      ['prism', () => startPrism(openapi, '/entities/9429000001007', mockHeaders, phase.serverCpus)],
      ['wiremock', () => startWireMock(probe, sample.body, mockHeaders, phase.serverCpus)],
    ] as const) {
      if (toolProblem) {
        if (phase.name === 'shared') skipped.push(`${name}: ${toolProblem}`);
        continue;
      }
      try {
        const mock = await start();
        mocks.push(mock);
        contenders.push({ name, url: mock.url, headers: mockHeaders });
      } catch (error) {
        skipped.push(`${name} (${phase.name}): could not start (${(error as Error).message})`);
      }
    }
    const warmUps: Record<string, number[]> = {};
    for (const c of contenders) {
      warmUps[c.name] = await warmUp(c, { cpus: phase.loadCpus });
      process.stderr.write(
        `${phase.name}: ${c.name} warmed up: ${warmUps[c.name]!.map((r) => r.toFixed(0)).join(', ')} req/s\n`,
      );
    }
    const rounds: Record<string, LoadResult[]> = Object.fromEntries(contenders.map((c) => [c.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [...contenders].reverse() : contenders;
      for (const c of order) rounds[c.name]!.push(await measureLoad(c, SECONDS, phase.loadCpus));
      process.stderr.write(
        `${phase.name} round ${round + 1}: ${contenders.map((c) => `${c.name} ${rounds[c.name]!.at(-1)!.rps.toFixed(0)} req/s`).join(', ')}\n`,
      );
    }
    results.push({ name: phase.name, cores, contenders: contenders.map((c) => c.name), rounds, warmUps });
    for (const mock of mocks.splice(0)) await stopMock(mock);
    for (const server of servers.splice(0)) await stopServer(server.child);
  }

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
    `Side by side, the same GET ${probe} over HTTP: load from ${LOAD_GENERATOR === 'wrk' ? 'wrk (1 thread)' : 'autocannon'}, 32 connections; each contender first warmed up in runs of 5 s, at least 6 and until the median of the last three is within 5% of the three before (a JVM keeps compiling for tens of seconds, on one core for minutes); then ${ROUNDS} interleaved rounds of ${SECONDS} s, the order reversed every other round; medians, and ratios as medians of the per-round ratios.`,
    '',
    ...results.flatMap((phase) => sideBySideTable(phase)),
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
