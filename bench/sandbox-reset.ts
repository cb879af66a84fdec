/**
 * `npm run bench:sandbox-reset`: `rsg sandbox reset` of the small sandbox against a baseline measured in
 * the same run, a plain `CREATE DATABASE … TEMPLATE` of the seeded state (the copy a reset makes).
 * Goal: a reset ≤ 2 s, whatever happened since.
 *
 * One runtime serves the sandbox (pools, notice listeners and caches warm: reads before each round), so
 * each reset pauses it as it pauses a server. Each round first changes the sandbox one way — nothing,
 * rows written in every register's largest table, or every table emptied — then times the baseline and
 * the reset (the order alternating), then checks that the sandbox answers as seeded. Reported: medians
 * of the reset as `SandboxStates.reset` returns (from the call to the sandbox serving again), of the
 * pause (requests held), of the whole call, until the old database is dropped (after it), and a snapshot and a
 * restore. Knobs: BENCH_ROUNDS (9), BENCH_RECORD=0 to only print.
 */
import os from 'node:os';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createSubscription } from '../src/gateway/operations/subscriptions.ts';
import { addUser } from '../src/identity/operations/users.ts';
import { copyDatabase, databasesNamed, dropDatabaseNamed } from '../src/platform/db/databases.ts';
import { withTransaction } from '../src/platform/db/pool.ts';
import { databaseName } from '../src/platform/db/urls.ts';
import { keptDatabasePrefix } from '../src/platform/sandbox/names.ts';
import { keptState } from '../src/platform/store/sandbox-states.ts';
import { openRuntime, seedSandbox } from '../src/runtime.ts';
import { benchDatabases, median, recordResults } from './support.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const GOAL_MS = 2_000;

const began = Date.now();
const databases = await benchDatabases('sandbox-reset');
const { urls } = databases.setup;
const seedStarted = Date.now();
await seedSandbox(urls, 'small');
const seedMs = Date.now() - seedStarted;
const config = loadConfig({
  ...process.env,
  DATABASE_URL: urls.gateway,
  SANDBOX_DATABASE_URL: urls.sandbox,
  PRODUCTION_DATABASE_URL: urls.production,
  LOG_LEVEL: 'silent',
  RSG_SERVER_SECRET: 'bench-server-secret-not-for-any-deployment',
  RSG_SANDBOX_ACTIVITY_PER_HOUR: '0',
  RSG_MARKET_RENT_WARM_UP: '0',
});
const runtime = await openRuntime(config, { urls, embedded: undefined });
const app = await buildApp(runtime, { logger: false });
await app.ready();
const states = runtime.sandboxStates;
const sandbox = runtime.environments.sandbox.pool;

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

try {
  await states.keepSeeded('small');
  const seed = (await keptState(runtime.gateway.pool, 'seed:small'))!;
  const user = await addUser(runtime.gateway.pool, { email: 'bench@example.test' });
  const keys = await Promise.all(
    ['nzbn', 'ppsr', 'market-rent'].map(
      async (service) =>
        (
          await createSubscription(runtime.gateway.pool, {
            userId: user.id,
            productId: `sandbox-${service}`,
            state: 'active',
          })
        ).primaryKey,
    ),
  );
  const { rows: entities } = await sandbox.query<{ nzbn: string }>(
    "SELECT nzbn FROM nzbn_entities WHERE origin = 'fixture' ORDER BY nzbn LIMIT 20",
  );
  /** Reads that warm the pools, the listeners and the caches, and one that tells seeded from not. */
  const read = async () => {
    for (const { nzbn } of entities) {
      await app.inject({
        url: `/sandbox/nzbn/v5/entities/${nzbn}`,
        headers: { 'ocp-apim-subscription-key': keys[0]! },
      });
    }
    const count = await sandbox.query<{ n: number }>('SELECT count(*)::int AS n FROM nzbn_entities');
    return count.rows[0]!.n;
  };
  const seededCount = await read();

  const changes: Record<string, () => Promise<void>> = {
    nothing: async () => {},
    'rows written': async () => {
      await sandbox.query(
        "UPDATE nzbn_entities SET entity_name = entity_name || ' (changed)' WHERE seed_index % 10 = 0",
      );
      await sandbox.query('UPDATE ppsr_financing_statements SET version = version + 1');
      await sandbox.query("DELETE FROM market_rent_bonds WHERE bond_id LIKE '%1'");
    },
    'every table emptied': async () => {
      const { rows } = await sandbox.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
      );
      await withTransaction(sandbox, async (tx) => {
        await tx.query('SET LOCAL session_replication_role = replica');
        await tx.query(`TRUNCATE ${rows.map((row) => `"${row.name}"`).join(', ')} CASCADE`);
      });
    },
  };
  const names = Object.keys(changes);
  const samples = {
    baseline: [] as number[],
    reset: [] as number[],
    paused: [] as number[],
    call: [] as number[],
    dropped: [] as number[],
  };
  const byChange: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));

  const baseline = async () => {
    const copy = `${databaseName(urls.sandbox)}_bench_copy`;
    const started = performance.now();
    await copyDatabase(urls.sandbox, seed.database, copy, { connectable: true });
    const ms = performance.now() - started;
    await dropDatabaseNamed(urls.sandbox, copy);
    return ms;
  };
  const reset = async (change: string) => {
    await read();
    await changes[change]!();
    const started = performance.now();
    const done = await states.reset('small');
    const call = performance.now() - started;
    await states.settled();
    const dropped = performance.now() - started;
    if (done.seeded) throw new Error('the seeded state was made again during the benchmark');
    if ((await read()) !== seededCount)
      throw new Error(`after "${change}" the reset sandbox is not the seeded one`);
    return { reset: done.tookMs, paused: done.pausedMs, call, dropped };
  };

  for (let round = 0; round < ROUNDS; round++) {
    const change = names[round % names.length]!;
    const order = round % 2 === 0 ? ['baseline', 'reset'] : ['reset', 'baseline'];
    for (const contender of order) {
      if (contender === 'baseline') samples.baseline.push(await baseline());
      else {
        const measured = await reset(change);
        samples.reset.push(measured.reset);
        samples.paused.push(measured.paused);
        samples.call.push(measured.call);
        samples.dropped.push(measured.dropped);
        byChange[change]!.push(measured.reset);
      }
    }
    process.stderr.write(`round ${round + 1}/${ROUNDS} (${change}) done\n`);
  }

  const snapshotStarted = performance.now();
  await states.snapshot('bench');
  const snapshotMs = performance.now() - snapshotStarted;
  await changes['rows written']!();
  const restore = await states.restore('bench');
  await states.delete('bench');

  const size = await sandbox.query<{ size: string }>(
    'SELECT pg_size_pretty(pg_database_size(current_database())) AS size',
  );
  const resetMedian = median(samples.reset);
  const baselineMedian = median(samples.baseline);
  const lines = [
    '## Sandbox reset and snapshots (`npm run bench:sandbox-reset`)',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(1)} at the end (the machine is shared); database: ${databases.label}. The small sandbox (${size.rows[0]!.size}; its seed took ${seconds(seedMs)}), one runtime serving it (pools, notice listeners and caches warm: reads before each round, so every reset pauses it as it pauses a server). ${ROUNDS} rounds; each first changes the sandbox one way (${names.join(', ')}, in turn), then times the baseline and the reset, the order alternating, and checks that the sandbox is the seeded one again.`,
    '',
    '| contender | median | ÷ baseline |',
    '|---|---|---|',
    `| reset (\`SandboxStates.reset\`: the seeded state's template copied while the sandbox serves on, the runtime paused, the database closed and swapped by name, clock and mail put back, resumed) | **${seconds(resetMedian)}** | ${(resetMedian / baselineMedian).toFixed(1)}× |`,
    `| of which sandbox requests were held (the pause) | ${seconds(median(samples.paused))} | |`,
    `| the whole call (its answer: the rate-limit counts forgotten too) | ${seconds(median(samples.call))} | |`,
    `| until the old sandbox database is dropped (after the answer, the sandbox serving) | ${seconds(median(samples.dropped))} | |`,
    `| baseline: a plain \`CREATE DATABASE … TEMPLATE\` of the seeded state | ${seconds(baselineMedian)} | |`,
    `| a snapshot (the runtime paused while the sandbox database is copied) | ${seconds(snapshotMs)} | |`,
    `| a restore of it after rows were written | ${seconds(restore.tookMs)} | |`,
    '',
    '| goal | measured | |',
    '|---|---|---|',
    `| reset of the small sandbox ≤ 2 s, whatever happened since | ${seconds(Math.max(...samples.reset))} at most | ${Math.max(...samples.reset) <= GOAL_MS ? 'met' : 'missed'} |`,
    '',
    `Reset by what happened since (ms): ${names.map((name) => `${name} ${byChange[name]!.map((ms) => Math.round(ms)).join(', ')}`).join('; ')}.`,
    `Samples (ms): reset ${samples.reset.map(Math.round).join(', ')}; pause ${samples.paused.map(Math.round).join(', ')}; baseline ${samples.baseline.map(Math.round).join(', ')}. Whole run ${Math.round((Date.now() - began) / 1000)} s.`,
  ];
  const markdown = lines.join('\n');
  process.stdout.write(`${markdown}\n`);
  await recordResults('bench:sandbox-reset', markdown);
} finally {
  await app.close();
  await runtime.close();
  // The kept states beside the sandbox's scratch database go with it.
  for (const name of await databasesNamed(urls.sandbox, keptDatabasePrefix(databaseName(urls.sandbox)))) {
    await dropDatabaseNamed(urls.sandbox, name);
  }
  await databases.release();
}
