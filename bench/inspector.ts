import pino from 'pino';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { Inspector } from '../src/gateway/jobs/inspector.ts';
import { openRuntime, type Runtime } from '../src/runtime.ts';
import { benchSubscription, FIXED_PATH, FIXED_SERVICES } from './gateway-app.ts';
import { benchDatabases, median, recordResults } from './support.ts';

/**
 * What the request inspector adds to a call, inside one process so that both sides meet the same
 * machine: `bench:gateway`'s call (the fixed JSON of the sandbox business number product, through the
 * guard, usage, metrics) on two apps over one runtime and databases, the inspector on in one and off in
 * the other (`RSG_INSPECTOR=off`), in blocks of `BENCH_CALLS` calls (32 in flight, `inject`), the blocks
 * alternating and the order reversed every other round, a full collection before each block; the
 * process's CPU time (user + system) per call of each block, the medians of the per-round differences and ratios. On a busy shared machine the
 * load-generator benchmark (`bench:gateway`, which also runs the two side by side) cannot tell a few
 * per cent apart; this can.
 *
 * The inspector's write (every 5 s in a server) is timed apart: its CPU per call written, and what it
 * adds per answer at a given rate for one busy subscription (it writes at most 500 calls of a
 * subscription per write, whatever the rate).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const CALLS = Number(process.env.BENCH_CALLS ?? 4_000);
const IN_FLIGHT = 32;

const databases = await benchDatabases('inspector');
try {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'warn', RSG_JOBS: 'off' });
  const runtime: Runtime = await openRuntime(config, { urls: databases.setup.urls, embedded: undefined });
  // The writer is driven by hand: its write is timed apart from the calls.
  await runtime.inspector.close();
  runtime.inspector = new Inspector(runtime.gateway.pool, { flushEveryMs: 0 });
  const primaryKey = await benchSubscription(runtime);
  // With the logger on, as `servers/gateway.ts` runs it (its lines go nowhere).
  const logStream = pino.destination('/dev/null');
  const on = await buildApp(runtime, { services: FIXED_SERVICES, logStream });
  const offRuntime = {
    ...runtime,
    config: { ...runtime.config, inspector: { enabled: false, productionBodies: false } },
  };
  const off = await buildApp(offRuntime, { services: FIXED_SERVICES, logStream });
  await Promise.all([on.ready(), off.ready()]);
  const apps = { on, off };

  /** A full collection before each block (node --expose-gc), so no block pays for another's garbage. */
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('run with node --expose-gc (npm run bench:inspector)');

  /** CPU µs per call of `count` calls, `IN_FLIGHT` at a time. */
  async function block(name: 'on' | 'off', count: number): Promise<number> {
    const app = apps[name];
    collect!();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const before = process.cpuUsage();
    let sent = 0;
    const lane = async () => {
      while (sent < count) {
        sent++;
        const answer = await app.inject({
          url: FIXED_PATH,
          headers: { 'Ocp-Apim-Subscription-Key': primaryKey },
        });
        if (answer.statusCode !== 200) throw new Error(`${name}: ${answer.statusCode} ${answer.body}`);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    const used = process.cpuUsage(before);
    return (used.user + used.system) / count;
  }

  /** CPU µs per call written of the inspector's write of what waits. */
  async function write(): Promise<{ perCall: number; calls: number }> {
    const calls = runtime.inspector.stats().waiting;
    collect!();
    // The collection's concurrent sweeping is let finish first, so that it is not counted as the write's.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const before = process.cpuUsage();
    await runtime.inspector.flush();
    const used = process.cpuUsage(before);
    return { perCall: calls ? (used.user + used.system) / calls : 0, calls };
  }

  for (const name of ['on', 'off', 'on', 'off'] as const) await block(name, CALLS);
  await runtime.inspector.flush();
  const samples = { on: [] as number[], off: [] as number[], write: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of round % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      samples[name].push(await block(name, CALLS));
    }
    const written = await write();
    if (written.calls !== Math.min(CALLS, 500)) throw new Error(`the inspector wrote ${written.calls} calls`);
    samples.write.push(written.perCall);
    process.stdout.write(
      `round ${round + 1}: on ${samples.on.at(-1)!.toFixed(2)} µs, off ${samples.off.at(-1)!.toFixed(2)} µs CPU per call; write ${written.perCall.toFixed(1)} µs per call written\n`,
    );
  }
  const added = median(samples.on.map((value, i) => value - samples.off[i]!));
  const ratio = median(samples.on.map((value, i) => value / samples.off[i]!));
  const writePerCall = median(samples.write);
  // What the write adds per answer for one busy subscription: 500 calls written every 5 s.
  const writeAt = (rate: number) => (writePerCall * 500) / (rate * 5);
  const lines = [
    '## Request inspector: what it adds to a call (`npm run bench:inspector`)',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${databases.label}; ${ROUNDS} rounds of ${CALLS.toLocaleString('en')} calls per side (32 in flight, \`inject\`), the sides alternating, the order reversed every other round; process CPU time (user + system) per call, a full collection before each block and before each write, and 50 ms for its concurrent sweeping to finish (so no block pays for another's garbage). The call is \`bench:gateway\`'s (the fixed JSON of the sandbox business number product through the guard, usage and metrics), inspector on against the same gateway over the same runtime with it off; the inspector written after each round, so the first 500 calls of each round's block are captured with their bodies (as a subscription's first 500 calls between two writes, 5 s apart in a server) and the rest pay the bound's map read.`,
    '',
    '| | CPU µs per call (median) |',
    '|---|---|',
    `| inspector off | ${median(samples.off).toFixed(2)} |`,
    `| inspector on | ${median(samples.on).toFixed(2)} |`,
    `| added per call (median of per-round differences) | ${added.toFixed(2)} |`,
    `| the write, per call written (redaction and the INSERT; 500 per subscription every 5 s at most) | ${writePerCall.toFixed(1)} |`,
    '',
    `- On ÷ off per call (inside the process, \`inject\` included): ${((ratio - 1) * 100).toFixed(1)}% (per round: ${samples.on.map((v, i) => (v / samples.off[i]!).toFixed(3)).join(', ')}).`,
    `- Against \`bench:gateway\`'s cost per request over HTTP (CPU µs per answer of the gateway, ${process.env.BENCH_GATEWAY_CPU ?? '20.3'} in its last recorded quiet run): the capture adds ${((added / Number(process.env.BENCH_GATEWAY_CPU ?? 20.3)) * 100).toFixed(1)}%, the write ${((writeAt(10_000) / Number(process.env.BENCH_GATEWAY_CPU ?? 20.3)) * 100).toFixed(2)}% more for a subscription calling 10,000 times a second (${writeAt(10_000).toFixed(3)} µs per answer; ${writeAt(1_000).toFixed(3)} µs at 1,000 a second). Goal: ≤ 5% in all.`,
  ];
  process.stdout.write(`\n${lines.join('\n')}\n`);
  await recordResults('bench:inspector', lines.join('\n'));
  await on.close();
  await off.close();
  await runtime.close();
} finally {
  await databases.release();
}
