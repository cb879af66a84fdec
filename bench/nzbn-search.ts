import os from 'node:os';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createSubscription } from '../src/gateway/operations/subscriptions.ts';
import { updateProduct } from '../src/gateway/store/products.ts';
import { addUser } from '../src/identity/operations/users.ts';
import { realClock } from '../src/platform/clock.ts';
import { openDatabase } from '../src/platform/db/pool.ts';
import { openRuntime } from '../src/runtime.ts';
import { SCALE_ENTITIES, seedNzbn } from '../src/services/nzbn/sandbox/seed.ts';
import { percentile, searchMix } from './nzbn-search-mix.ts';
import { benchDatabases, median, recordResults } from './support.ts';

/**
 * Search and the register's physical order: the `bench:nzbn` search mix against two copies of the
 * same national-scale register in one PostgreSQL server, one as the seed now leaves it (in name order,
 * store/indexes.ts `clusterEntities`), the other in generation order, as the seed left it before. The
 * sandbox environment holds the first, the production environment the second; one process, one app,
 * the same requests, interleaved round by round (the order reversed every other round).
 *
 *   node --import tsx bench/nzbn-search.ts    (BENCH_ENTITIES, BENCH_ROUNDS, BENCH_SAMPLES; BENCH_RECORD=0)
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 1_000);
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? SCALE_ENTITIES.full);

const databases = await benchDatabases('nzbn_search');
const { setup } = databases;
try {
  for (const environment of ['sandbox', 'production'] as const) {
    const database = openDatabase(setup.urls[environment], 4);
    const summary = await seedNzbn(
      {
        database,
        scale: 'full',
        clock: realClock,
        log: () => {},
        identity: { grantOperatorsAuthority: async () => {} },
      },
      { entities: ENTITIES },
    );
    if (environment === 'production') {
      // Generation order: the order the chunks' COPY wrote the rows in before the seed clustered them
      // (business numbers follow the generator index).
      await database.pool.query('CLUSTER nzbn_entities USING nzbn_entities_pkey');
      await database.pool.query('VACUUM (ANALYZE) nzbn_entities');
    }
    process.stderr.write(`${environment}: ${summary}\n`);
    await database.close();
  }

  const runtime = await openRuntime(
    loadConfig({ LOG_LEVEL: 'warn' }),
    { urls: setup.urls, embedded: undefined },
    { migrate: false },
  );
  const app = await buildApp(runtime, { logger: false });
  const user = await addUser(runtime.gateway.pool, { email: `bench-search-${Date.now()}@example.test` });
  const contenders = [];
  for (const [name, environment, base] of [
    ['name order (this seed)', 'sandbox', '/sandbox/nzbn/v5'],
    ['generation order (the seed before)', 'production', '/gateway/nzbn/v5'],
  ] as const) {
    const productId = `${environment}-nzbn`;
    await updateProduct(runtime.gateway.pool, productId, {
      rateLimitPerMinute: 100_000_000,
      quota: { calls: 1_000_000_000, periodSeconds: 86_400 },
    });
    const { primaryKey } = await createSubscription(runtime.gateway.pool, {
      userId: user.id,
      productId,
      state: 'active',
    });
    const mix = await searchMix(runtime.environments[environment].pool, ENTITIES);
    contenders.push({ name, base, mix, headers: { 'Ocp-Apim-Subscription-Key': primaryKey } });
  }
  // The same terms on both sides: the registers are the same rows.
  if (contenders[0]!.mix.terms.join('\n') !== contenders[1]!.mix.terms.join('\n'))
    throw new Error('the two registers gave different search terms');

  type Contender = (typeof contenders)[number];
  const timed = async (c: Contender, i: number) => {
    // Let the event loop turn first, as between a server's requests (see bench/nzbn.ts).
    await new Promise((resolve) => setImmediate(resolve));
    const url = c.mix.path(c.base, i);
    const started = performance.now();
    const response = await app.inject({ url, headers: c.headers });
    const elapsed = performance.now() - started;
    if (response.statusCode !== 200)
      throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 200)}`);
    return elapsed;
  };
  for (const c of contenders) for (let i = 0; i < 300; i++) await timed(c, i * 7);
  const rounds: Record<string, { p50: number; p95: number; p99: number }[]> = Object.fromEntries(
    contenders.map((c) => [c.name, []]),
  );
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...contenders].reverse() : contenders;
    for (const c of order) {
      const times: number[] = [];
      // Each round its own stretch of the mix, the same for both.
      for (let i = 0; i < SAMPLES; i++) times.push(await timed(c, round * SAMPLES + i));
      rounds[c.name]!.push({
        p50: percentile(times, 50),
        p95: percentile(times, 95),
        p99: percentile(times, 99),
      });
    }
    process.stderr.write(
      `round ${round + 1}: ${contenders.map((c) => `${c.name} p95 ${rounds[c.name]!.at(-1)!.p95.toFixed(2)} ms`).join(', ')}\n`,
    );
  }
  await app.close();
  await runtime.close();

  const [ordered, before] = contenders.map((c) => rounds[c.name]!);
  const ratio = (key: 'p50' | 'p95' | 'p99') => median(before!.map((b, i) => b[key] / ordered![i]![key]));
  const lines = [
    '## Search and the register’s physical order (`bench/nzbn-search.ts`)',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(1)} at the end; database: ${databases.label}.`,
    '',
    `The \`bench:nzbn\` search mix inside the server (inject, one call at a time) against two copies of the same ${ENTITIES.toLocaleString('en-NZ')}-entity register in one PostgreSQL server: in name order, as the seed now leaves it, and in generation order, as it left it before. ${ROUNDS} interleaved rounds of ${SAMPLES} searches each (the same searches for both); medians of the per-round percentiles.`,
    '',
    '| register | p50 ms | p95 ms | p99 ms | p95 per round |',
    '|---|---|---|---|---|',
    ...contenders.map((c) => {
      const r = rounds[c.name]!;
      const m = (key: 'p50' | 'p95' | 'p99') => median(r.map((x) => x[key])).toFixed(2);
      return `| ${c.name} | ${m('p50')} | ${m('p95')} | ${m('p99')} | ${r.map((x) => x.p95.toFixed(2)).join(', ')} |`;
    }),
    '',
    `Generation order ÷ name order (medians of per-round ratios): p50 ${ratio('p50').toFixed(2)}×, p95 ${ratio('p95').toFixed(2)}×, p99 ${ratio('p99').toFixed(2)}×.`,
  ];
  process.stdout.write(`\n${lines.join('\n')}\n`);
  if (process.env.BENCH_RECORD !== '0') await recordResults('bench:nzbn-search', lines.join('\n'));
} finally {
  await databases.release();
}
