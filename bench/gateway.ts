import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CAN_PIN, LOAD_CPUS, LOAD_GENERATOR, measureLoad, pinned, SERVER_CPUS } from './load.ts';
import { benchDatabases, median, recordResults, root, serverStarter, stopServer } from './support.ts';

/**
 * Gateway overhead: the same fixed JSON from (a) a bare node:http server, the ceiling, (b) Fastify alone
 * and (c) through the gateway with a real key check, rate limit, quota, usage counting, metrics and the
 * request inspector, beside (c') the same gateway with the inspector off (what it adds: goal ≤ 5%) (and,
 * with `BENCH_BASELINE=<folder>` holding another copy of the project, (d) that copy's gateway, for a
 * before/after in one run). Each runs in its own process; they are measured interleaved, round by round
 * (the order reversed every other round), so drift in the machine's speed hits all alike; figures are
 * medians, ratios medians of the per-round ratios.
 *
 * Throughput: wrk (or autocannon, see load.ts), 32 connections. Latency at a fixed 2,000 req/s: our own
 * constant-rate client (paced-client.ts, its own process) with an HDR histogram in microseconds.
 * Setups: sharing both cores with the load, and (with wrk, `taskset` and 2+ cores; `BENCH_PIN=0` skips
 * it) the load on core 0 and the contenders on the others, re-pinned in place with `taskset -p`.
 * Goals (docs/decisions/0002-gateway-per-request-costs.md): throughput ≥ 75% of the ceiling; p99 at 2,000 req/s at most 0.5 ms above the
 * ceiling's.
 */
const run = promisify(execFile);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const FIXED_RATE = 2000; // requests per second, for the latency comparison
const BASELINE = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE) : undefined;
const GOAL_RATIO = 0.75;
const GOAL_ADDED_P99_US = 500;
/** What the request inspector may add to the gateway's cost per request (CPU per answer, on ÷ off − 1). */
const GOAL_INSPECTOR = 0.05;
const inspectorCost = (load: Record<string, Sample[]>) =>
  median(load.gateway!.map((g, i) => g.cpu / load.uninspected![i]!.cpu)) - 1;

const LABELS = {
  ceiling: 'bare node:http (ceiling)',
  fastify: 'Fastify alone, one route (reference)',
  floor: 'Fastify as the gateway configures it, none of its work (its no-plugin figure)',
  baseline: 'through the gateway, `BENCH_BASELINE` (before)',
  gateway: 'through the gateway (key, rate limit, quota, usage, metrics, request inspector)',
  uninspected: 'through the gateway, request inspector off (`RSG_INSPECTOR=off`)',
};
type Name = keyof typeof LABELS;

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  /** CPU time (user + system) the contender's process spent per answer, µs. */
  cpu: number;
}

/**
 * A process's CPU time so far in µs (/proc: user + system, in clock ticks of 10 ms). On a shared machine
 * the rate a contender reaches follows what the other work leaves it; the CPU it spends per answer
 * does not, so the benchmark reports both.
 */
const cpuMicros = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};
const HAS_PROC = (() => {
  try {
    return cpuMicros(process.pid) >= 0;
  } catch {
    return false;
  }
})();
interface Paced {
  rate: number;
  p50: number;
  p99: number;
  p999: number;
}

async function paced(url: string, headers: Record<string, string>, cpus?: string): Promise<Paced> {
  const [command, args] = pinned(cpus, process.execPath, [
    '--import',
    'tsx',
    path.join(root, 'bench/paced-client.ts'),
    JSON.stringify({ url, headers, rate: FIXED_RATE, seconds: SECONDS, connections: 8 }),
  ]);
  const { stdout } = await run(command, args, { timeout: (SECONDS + 30) * 1000 });
  const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as Paced & { failures: number };
  if (result.failures > 0) throw new Error(`${url}: ${result.failures} failed answers at a fixed rate`);
  return result;
}

const databases = await benchDatabases('gateway', { migrate: false });
const { setup } = databases;
const gatewayEnv = { RSG_BENCH_URLS: JSON.stringify(setup.urls) };
/** Node flags for the gateway contender alone, e.g. `--trace-gc` or `--cpu-prof --cpu-prof-dir=…`. */
const gatewayNodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);

// Every contender runs with the node flags `npm start` gives the gateway, so they differ in their code
// only; none is left running when another cannot start.
const { start } = serverStarter(databases);
const servers = {
  ceiling: await start<{ port: number }>('bench/servers/bare.ts'),
  fastify: await start<{ port: number }>('bench/servers/fastify.ts'),
  floor: await start<{ port: number }>('bench/gateway-floor.ts'),
  gateway: await start<{ port: number; key: string; limits: string }>(
    'bench/servers/gateway.ts',
    gatewayEnv,
    gatewayNodeArgs,
  ),
  // The same gateway without the request inspector: what the inspector adds (goal ≤ 5%).
  uninspected: await start<{ port: number; key: string; limits: string }>(
    'bench/servers/gateway.ts',
    { ...gatewayEnv, RSG_INSPECTOR: 'off' },
    gatewayNodeArgs,
  ),
  ...(BASELINE
    ? {
        baseline: await start<{ port: number; key: string; limits: string }>(
          path.join(BASELINE, 'bench/servers/gateway.ts'),
          gatewayEnv,
        ),
      }
    : {}),
};
const names = Object.keys(servers) as Name[];
const target = (name: Name) => {
  const info = servers[name]!.info as { port: number; key?: string };
  return {
    name,
    url: `http://127.0.0.1:${info.port}/sandbox/nzbn/v5/fixed`,
    headers: info.key ? { 'Ocp-Apim-Subscription-Key': info.key } : ({} as Record<string, string>),
  };
};
/** Moves every thread of every contender onto `cpus` (a taskset list). */
const pinAll = async (cpus: string) => {
  for (const server of Object.values(servers))
    await run('taskset', ['-a', '-p', '-c', cpus, String(server.child.pid)]);
};

const SETUPS = [
  {
    id: 'shared',
    title: 'Sharing the cores',
    note: 'contenders and load on all cores',
    load: undefined,
    server: undefined,
  },
  ...(CAN_PIN && process.env.BENCH_PIN !== '0'
    ? [
        {
          id: 'pinned',
          title: 'Cores of their own',
          note: `load (wrk, paced client) on core ${LOAD_CPUS}, each contender on core(s) ${SERVER_CPUS} (\`taskset\`)`,
          load: LOAD_CPUS,
          server: SERVER_CPUS,
        },
      ]
    : []),
];
const allCpus = `0-${os.availableParallelism() - 1}`;

try {
  // Warm all (JIT, key cache, connection pools) before measuring.
  for (const name of names) await measureLoad(target(name), 3);
  const results = SETUPS.map((s) => ({
    setup: s,
    load: Object.fromEntries(names.map((n) => [n, [] as Sample[]])) as Record<Name, Sample[]>,
    paced: Object.fromEntries(names.map((n) => [n, [] as Paced[]])) as Record<Name, Paced[]>,
  }));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...names].reverse() : names;
    for (const result of results) {
      await pinAll(result.setup.server ?? allCpus);
      for (const name of order) {
        const pid = servers[name]!.child.pid!;
        const before = HAS_PROC ? cpuMicros(pid) : 0;
        const sample = await measureLoad(target(name), SECONDS, result.setup.load);
        const cpu = HAS_PROC ? (cpuMicros(pid) - before) / (sample.rps * SECONDS) : Number.NaN;
        result.load[name].push({ ...sample, cpu });
      }
      for (const name of order) {
        const { url, headers } = target(name);
        result.paced[name].push(await paced(url, headers, result.setup.load));
      }
      process.stdout.write(
        `round ${round + 1} ${result.setup.id}: req/s ${names.map((n) => `${n} ${result.load[n].at(-1)!.rps.toFixed(0)}`).join(', ')}; ` +
          `p99 µs at ${FIXED_RATE}/s ${names.map((n) => `${n} ${result.paced[n].at(-1)!.p99}`).join(', ')}\n`,
      );
    }
  }
  await pinAll(allCpus);
  const gatewayInfo = servers.gateway.info;
  const lines = [
    `## Gateway overhead (\`npm run bench:gateway\`)`,
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ` +
      `load average ${os.loadavg()[0]!.toFixed(1)} at the end (the machine is shared); ${ROUNDS} interleaved rounds of ${SECONDS} s per measurement; ` +
      `throughput from ${LOAD_GENERATOR === 'wrk' ? 'wrk (1 thread)' : 'autocannon'}, 32 connections; latency at a fixed ${FIXED_RATE.toLocaleString('en')} req/s from ` +
      `\`bench/paced-client.ts\` (8 connections, HDR histogram in µs); limits store: ${gatewayInfo.limits}; database: ${databases.label}.`,
  ];
  for (const { setup: s, load, paced: at } of results) {
    const stat = <T>(samples: T[], key: keyof T) => median(samples.map((x) => Number(x[key])));
    const ratio = (name: Name) => median(load[name].map((g, i) => g.rps / load.ceiling[i]!.rps));
    const cpuRatio = (name: Name) => median(load[name].map((g, i) => load.ceiling[i]!.cpu / g.cpu));
    const added = (name: Name) => median(at[name].map((g, i) => g.p99 - at.ceiling[i]!.p99));
    const throughputRatio = ratio('gateway');
    /** Gateway ÷ its own no-plugin figure (the floor), per round: Kong's measure in the issue. */
    const ownRatio = median(load.gateway.map((g, i) => g.rps / load.floor[i]!.rps));
    const ownCpuRatio = median(load.gateway.map((g, i) => load.floor[i]!.cpu / g.cpu));
    const addedP99 = added('gateway');
    lines.push(
      '',
      `**${s.title}** (${s.note}):`,
      '',
      `| contender | req/s | ÷ ceiling | CPU µs per answer | ceiling's CPU ÷ its | p50 ms | p99 ms | p50 µs at ${FIXED_RATE.toLocaleString('en')} req/s | p99 µs | p99.9 µs | p99 added µs |`,
      '|---|---|---|---|---|---|---|---|---|---|---|',
      ...names.map(
        (name) =>
          `| ${LABELS[name]} | ${stat(load[name], 'rps').toFixed(0)} | ${name === 'ceiling' ? '' : `${(ratio(name) * 100).toFixed(1)}%`} | ` +
          `${stat(load[name], 'cpu').toFixed(1)} | ${name === 'ceiling' ? '' : `${(cpuRatio(name) * 100).toFixed(1)}%`} | ` +
          `${stat(load[name], 'p50').toFixed(2)} | ${stat(load[name], 'p99').toFixed(2)} | ${stat(at[name], 'p50')} | ${stat(at[name], 'p99')} | ${stat(at[name], 'p999')} | ` +
          `${name === 'ceiling' ? '' : added(name).toFixed(0)} |`,
      ),
      '',
      `- Throughput gateway ÷ ceiling: **${(throughputRatio * 100).toFixed(1)}%** (goal ≥ ${GOAL_RATIO * 100}%) — ${throughputRatio >= GOAL_RATIO ? 'met' : '**not met**'}. ` +
        `By CPU per answer (what one core of its own would give): ${(cpuRatio('gateway') * 100).toFixed(1)}% — ${cpuRatio('gateway') >= GOAL_RATIO ? 'met' : '**not met**'}.`,
      `- For comparison with Kong's figure in the issue (76% of its own no-plugin figure with key auth and rate limiting on): the gateway ÷ Fastify configured as the gateway configures it, without the gateway's work: ${(ownRatio * 100).toFixed(1)}% (by CPU per answer ${(ownCpuRatio * 100).toFixed(1)}%).`,
      // A difference of p99s says something only when the ceiling's own p99 is within the goal: on a busy
      // machine it is milliseconds, and a negative "added" is noise, not a result.
      `- p99 added at ${FIXED_RATE.toLocaleString('en')} req/s: **${addedP99.toFixed(0)} µs** (goal ≤ ${GOAL_ADDED_P99_US} µs) — ${
        stat(at.ceiling, 'p99') > GOAL_ADDED_P99_US || addedP99 < 0
          ? `**not resolved** (the ceiling's own p99 is ${stat(at.ceiling, 'p99')} µs; run on a quiet machine)`
          : addedP99 <= GOAL_ADDED_P99_US
            ? 'met'
            : '**not met**'
      }.`,
      ...(BASELINE
        ? [
            `- Before (\`BENCH_BASELINE\`) ÷ ceiling: ${(ratio('baseline') * 100).toFixed(1)}%, by CPU ${(cpuRatio('baseline') * 100).toFixed(1)}%; after ÷ before per round: ${load.gateway.map((g, i) => (g.rps / load.baseline[i]!.rps).toFixed(2)).join(', ')}; CPU per answer before ÷ after per round: ${load.gateway.map((g, i) => (load.baseline[i]!.cpu / g.cpu).toFixed(2)).join(', ')}.`,
          ]
        : []),
      `- The request inspector (on, as in the sandbox: every call captured with its body; each subscription's newest 500 redacted and written every 5 s) against the same gateway with it off: ` +
        `CPU per answer on ÷ off **${(inspectorCost(load) * 100).toFixed(1)}%** added (goal ≤ ${GOAL_INSPECTOR * 100}%) — ${inspectorCost(load) <= GOAL_INSPECTOR ? 'met' : '**not met**'}; ` +
        `throughput off ÷ on ${(median(load.gateway.map((g, i) => load.uninspected[i]!.rps / g.rps)) * 100 - 100).toFixed(1)}% more; per round (CPU on ÷ off): ${load.gateway.map((g, i) => (g.cpu / load.uninspected[i]!.cpu).toFixed(3)).join(', ')}.`,
      `- Per-round ratios gateway ÷ ceiling: ${load.gateway.map((g, i) => `${((g.rps / load.ceiling[i]!.rps) * 100).toFixed(1)}%`).join(', ')}; p99 added per round (µs): ${at.gateway.map((g, i) => g.p99 - at.ceiling[i]!.p99).join(', ')}.`,
    );
  }
  process.stdout.write(`\n${lines.join('\n')}\n`);
  if (process.env.BENCH_RECORD !== '0') await recordResults('bench:gateway', lines.join('\n'));
} finally {
  for (const server of Object.values(servers)) await stopServer(server.child);
  await databases.release();
}
