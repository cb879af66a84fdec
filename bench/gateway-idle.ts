import { measureLoad } from './load.ts';
import { benchDatabases, SERVER_NODE_ARGS, startServer, stopServer } from './support.ts';

/**
 * The gateway's throughput across idle spells: `bench:gateway` leaves each contender idle while it
 * measures the others, and a gateway in service is idle at night. Loads `bench/servers/gateway.ts`
 * (under wrk, or autocannon: load.ts) for `BENCH_SECONDS` (10), then leaves it idle for `BENCH_IDLE`
 * seconds (30), `BENCH_ROUNDS` times (4), and prints req/s and the garbage collections seen in each
 * load spell (the server runs with `--trace-gc`; its lines are counted, not printed): scavenges, their
 * pause time, the MB each freed (the young generation's size) and the pause per MB and per answer. The
 * server gets `SERVER_NODE_ARGS` (support.ts; `BENCH_SERVER_NODE_ARGS=""` for none) and `BENCH_NODE_ARGS`
 * (say `--max-semi-space-size=1`, the young generation as the memory reducer leaves it).
 *
 *   node --import tsx bench/gateway-idle.ts
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const IDLE = Number(process.env.BENCH_IDLE ?? 30);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const nodeArgs = [
  '--trace-gc',
  ...SERVER_NODE_ARGS,
  ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
];

const databases = await benchDatabases('gateway_idle', { migrate: false });
const gc = { scavenges: 0, markCompacts: 0, reduce: 0, scavengeMs: 0, scavengedMb: 0 };
const onGcLine = (line: string) => {
  // "Scavenge 133.3 (216.7) -> 81.7 (216.7) MB, pooled: 0 MB, 0.49 / 0.01 ms"
  const m = /([\d.]+) \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \//.exec(line);
  if (line.includes('Scavenge')) {
    gc.scavenges++;
    gc.scavengeMs += Number(m?.[3] ?? 0);
    gc.scavengedMb += Number(m?.[1] ?? 0) - Number(m?.[2] ?? 0);
  } else if (line.includes('Mark-Compact')) {
    gc.markCompacts++;
    if (line.includes('(reduce)')) gc.reduce++;
  }
};
// The server's --trace-gc lines come to stderr through startServer (after its first JSON line).
const write = process.stderr.write.bind(process.stderr);
let pending = '';
process.stderr.write = ((chunk: string | Uint8Array) => {
  pending += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
  const lines = pending.split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) {
    if (/ms: (Scavenge|Mark-Compact|Minor)/.test(line)) onGcLine(line);
    else write(`${line}\n`);
  }
  return true;
}) as typeof process.stderr.write;

const server = await startServer<{ port: number; key: string }>(
  'bench/servers/gateway.ts',
  { RSG_BENCH_URLS: JSON.stringify(databases.setup.urls) },
  undefined,
  nodeArgs,
);
try {
  const target = {
    name: 'gateway',
    url: `http://127.0.0.1:${server.info.port}/sandbox/nzbn/v5/fixed`,
    headers: { 'Ocp-Apim-Subscription-Key': server.info.key },
  };
  await measureLoad(target, 3);
  for (let round = 1; round <= ROUNDS; round++) {
    const before = { ...gc };
    const { rps } = await measureLoad(target, SECONDS);
    const scavenges = gc.scavenges - before.scavenges;
    const ms = gc.scavengeMs - before.scavengeMs;
    const mb = gc.scavengedMb - before.scavengedMb;
    process.stdout.write(
      `round ${round}: ${rps.toFixed(0)} req/s; in the spell: ${scavenges} scavenges (${ms.toFixed(0)} ms, ` +
        `${(mb / Math.max(1, scavenges)).toFixed(1)} MB freed each, ${(ms / Math.max(1, mb)).toFixed(3)} ms a MB, ` +
        `${((ms * 1000) / (rps * SECONDS)).toFixed(2)} µs an answer), ${gc.markCompacts - before.markCompacts} mark-compacts; ` +
        `memory-reducer collections so far: ${gc.reduce}\n`,
    );
    if (round < ROUNDS) await new Promise((resolve) => setTimeout(resolve, IDLE * 1000));
  }
} finally {
  await stopServer(server.child);
  await databases.release();
}
