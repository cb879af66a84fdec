import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { measureLoad } from './load.ts';
import { benchDatabases, median, root, serverStarter } from './support.ts';

/**
 * The gateway's figure round by round over a long run, against bare node:http in the same rounds: for
 * finding what changes in the gateway process as a `bench:gateway` run goes on (the decay after the
 * first rounds, docs/decisions/0003-gateway-decay-after-idle-spells.md), and for showing that a change removes it.
 *
 * Each round loads bare node:http and the gateway (and, with `BENCH_BASELINE=<folder>` holding another
 * copy of the project, that copy's gateway) in turn under wrk for `BENCH_SECONDS` (5) each, the order
 * reversed every other round, then each at a fixed 2,000 req/s (paced-client.ts) for as long, as
 * `bench:gateway` does, then leaves them idle for `BENCH_IDLE` seconds (0). It prints per round req/s,
 * CPU µs per answer (from /proc) and each gateway's ratios to bare, and medians per phase.
 *
 * `BENCH_REDUCE_AFTER=<round>`: after that round the gateways (started with `--expose-gc`) are sent
 * SIGHUP, on which `bench/servers/gateway.ts` runs the memory-reducing full collection that V8's memory
 * reducer runs after a quiet spell (in `bench:gateway` it came 115–172 s into the run), so the rounds
 * before and after it compare without waiting for the reducer. The medians are then given for the
 * rounds before and after.
 *
 * `BENCH_PROFILE=1`: every round's wrk spell of this checkout's gateway is profiled (inspector, 200 µs
 * sampling, the same cost in every round) into `BENCH_PROFILE_DIR` (`<tmp>/rsg-gateway-decay`) as
 * `profile-<round>.cpuprofile`, to compare with `cpuprofile-top.ts`. `BENCH_GATEWAY_NODE_ARGS` adds node
 * flags to the gateways (say `--trace-deopt` or `--trace-gc`, whose lines go to stderr).
 *
 *   BENCH_ROUNDS=8 BENCH_REDUCE_AFTER=3 BENCH_BASELINE=../before node --import tsx bench/gateway-decay.ts
 */
const run = promisify(execFile);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const IDLE = Number(process.env.BENCH_IDLE ?? 0);
const REDUCE_AFTER = Number(process.env.BENCH_REDUCE_AFTER ?? 0);
const BASELINE = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE) : undefined;
const PROFILE = process.env.BENCH_PROFILE === '1';
const PROFILE_DIR = path.resolve(
  process.env.BENCH_PROFILE_DIR ?? path.join(process.env.TMPDIR ?? '/tmp', 'rsg-gateway-decay'),
);
if (PROFILE) mkdirSync(PROFILE_DIR, { recursive: true });
const gatewayNodeArgs = [
  ...(process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ...(REDUCE_AFTER > 0 ? ['--expose-gc'] : []),
];

const cpuMicros = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};

type Name = 'bare' | 'gateway' | 'baseline';
const databases = await benchDatabases('gateway_decay', { migrate: false });
const starter = serverStarter(databases);
const start = (script: string, env: Record<string, string>, args: string[]) =>
  starter.start<{ port: number; key?: string }>(script, env, args);
const gatewayEnv = { RSG_BENCH_URLS: JSON.stringify(databases.setup.urls) };
const servers: Partial<Record<Name, Awaited<ReturnType<typeof start>>>> = {
  bare: await start('bench/servers/bare.ts', {}, []),
  gateway: await start(
    'bench/servers/gateway.ts',
    { ...gatewayEnv, ...(PROFILE ? { RSG_BENCH_PROFILE_DIR: PROFILE_DIR } : {}) },
    gatewayNodeArgs,
  ),
  ...(BASELINE
    ? { baseline: await start(path.join(BASELINE, 'bench/servers/gateway.ts'), gatewayEnv, gatewayNodeArgs) }
    : {}),
};
const names = Object.keys(servers) as Name[];
const gateways = names.filter((name) => name !== 'bare');
const target = (name: Name) => {
  const info = servers[name]!.info;
  return {
    name,
    url: `http://127.0.0.1:${info.port}/sandbox/nzbn/v5/fixed`,
    headers: (info.key ? { 'Ocp-Apim-Subscription-Key': info.key } : {}) as Record<string, string>,
  };
};
const pid = (name: Name) => servers[name]!.child.pid!;
const paced = async (name: Name) => {
  const { url, headers } = target(name);
  await run(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(root, 'bench/paced-client.ts'),
      JSON.stringify({ url, headers, rate: 2000, seconds: SECONDS, connections: 8 }),
    ],
    { timeout: (SECONDS + 30) * 1000 },
  );
};

const began = Date.now();
const rows: { round: number; ratio: Record<string, number>; cpuRatio: Record<string, number> }[] = [];
try {
  for (const name of names) await measureLoad(target(name), 3);
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 ? names : [...names].reverse();
    const result = {} as Record<Name, { rps: number; cpu: number }>;
    for (const name of order) {
      const profiled = PROFILE && name === 'gateway';
      if (profiled) process.kill(pid(name), 'SIGUSR2');
      const before = cpuMicros(pid(name));
      const { rps } = await measureLoad(target(name), SECONDS);
      result[name] = { rps, cpu: (cpuMicros(pid(name)) - before) / (rps * SECONDS) };
      if (profiled) {
        process.kill(pid(name), 'SIGUSR2');
        const file = path.join(PROFILE_DIR, `profile-${round}.cpuprofile`);
        for (let i = 0; i < 100 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 100));
      }
    }
    for (const name of order) await paced(name);
    const row = { round, ratio: {} as Record<string, number>, cpuRatio: {} as Record<string, number> };
    for (const name of gateways) {
      row.ratio[name] = result[name].rps / result.bare.rps;
      row.cpuRatio[name] = result.bare.cpu / result[name].cpu;
    }
    rows.push(row);
    process.stdout.write(
      `round ${round} (${((Date.now() - began) / 1000).toFixed(0)} s): ` +
        names
          .map(
            (name) =>
              `${name} ${result[name].rps.toFixed(0)} req/s, ${result[name].cpu.toFixed(1)} µs/answer` +
              (name === 'bare'
                ? ''
                : ` (${(row.ratio[name]! * 100).toFixed(1)}%, by CPU ${(row.cpuRatio[name]! * 100).toFixed(1)}%)`),
          )
          .join('; ') +
        '\n',
    );
    if (round === REDUCE_AFTER) {
      for (const name of gateways) process.kill(pid(name), 'SIGHUP');
      process.stdout.write(`  (memory-reducing collection in the gateways after round ${round})\n`);
      await new Promise((r) => setTimeout(r, 2000));
    }
    if (IDLE > 0 && round < ROUNDS) await new Promise((r) => setTimeout(r, IDLE * 1000));
  }
  const phases =
    REDUCE_AFTER > 0 && REDUCE_AFTER < ROUNDS
      ? [
          { title: `rounds 1–${REDUCE_AFTER}`, rows: rows.slice(0, REDUCE_AFTER) },
          { title: `rounds ${REDUCE_AFTER + 1}–${ROUNDS}`, rows: rows.slice(REDUCE_AFTER) },
        ]
      : [{ title: 'all rounds', rows }];
  for (const phase of phases) {
    process.stdout.write(
      `${phase.title}: ${gateways
        .map(
          (name) =>
            `${name} ÷ bare ${(median(phase.rows.map((r) => r.ratio[name]!)) * 100).toFixed(1)}%, by CPU ` +
            `${(median(phase.rows.map((r) => r.cpuRatio[name]!)) * 100).toFixed(1)}%`,
        )
        .join('; ')}\n`,
    );
  }
  if (PROFILE) process.stdout.write(`profiles in ${PROFILE_DIR}\n`);
} finally {
  await starter.stopAll();
  await databases.release();
}
