import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type LoadTarget, measureLoad as measureOnce } from './load.ts';
import { benchDatabases, median, root, startServer, stopServer } from './support.ts';

/**
 * What each change to the gateway's hot path bought, as CPU time per answer: the gateway of several
 * checkouts of the project (say one per commit of a series, `git worktree add --detach <folder> <commit>`),
 * each in its own process, loaded in turn by wrk (or autocannon) round by round, the order reversed every
 * other round; the figure is the process's own CPU time (user + system, from /proc) divided by the
 * answers it gave. On a shared machine the rate a contender reaches follows what other work leaves it,
 * its CPU per answer much less so (it still rises somewhat with the machine's load, which is why the
 * contenders are interleaved and compared by per-round ratios, medians):
 *
 *   node --import tsx bench/gateway-steps.ts <folder> [<folder> ...]
 *
 * `bare` and `fastify` as folder names stand for this checkout's bare node:http and Fastify-alone
 * servers, `floor` for `gateway-floor.ts` (Fastify as the app configures it for every request, with none
 * of the gateway's work), and a name ending in `.ts` for a server script of one's own that prints `{port}` once
 * listening, as `gateway-floor.ts` does (variants of a server). `BENCH_TOGETHER=1` loads all contenders at the same time in each round, each under its own wrk,
 * so that what else the machine is doing hits them alike (on a busy machine this is steadier than taking
 * turns). Results print as a markdown table, each step's ratio to the first folder and to the one
 * before it. BENCH_ROUNDS (default 7) and BENCH_SECONDS (default 3) set the length.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const folders = process.argv.slice(2);
/** BENCH_TOGETHER=1: load every contender at the same time in each round (for a busy machine). */
const TOGETHER = process.env.BENCH_TOGETHER === '1';
if (folders.length === 0) throw new Error('name at least one checkout folder');

/** On a busy machine wrk now and then counts a socket timeout: such a run is tried again (twice at most). */
async function measureLoad(target: LoadTarget, seconds: number) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await measureOnce(target, seconds);
    } catch (error) {
      if (attempt >= 3) throw error;
      process.stderr.write(`${(error as Error).message}; again\n`);
    }
  }
}

const cpuMicros = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};

const databases = await benchDatabases('gateway_steps', { migrate: false });
const env = { RSG_BENCH_URLS: JSON.stringify(databases.setup.urls) };
const servers: {
  label: string;
  child: Awaited<ReturnType<typeof startServer>>['child'];
  url: string;
  headers: Record<string, string>;
}[] = [];
try {
  for (const folder of folders) {
    const script =
      folder === 'bare' || folder === 'fastify'
        ? path.join(root, `bench/servers/${folder}.ts`)
        : folder === 'floor'
          ? path.join(root, 'bench/gateway-floor.ts')
          : folder.endsWith('.ts')
            ? path.resolve(folder)
            : path.join(path.resolve(folder), 'bench/servers/gateway.ts');
    const { child, info } = await startServer<{ port: number; key?: string }>(script, env);
    servers.push({
      label: folder,
      child,
      url: `http://127.0.0.1:${info.port}/sandbox/nzbn/v5/fixed`,
      headers: info.key ? { 'Ocp-Apim-Subscription-Key': info.key } : {},
    });
  }
  for (const server of servers) await measureLoad({ name: server.label, ...server }, 3);
  const cpu: number[][] = servers.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    const order = servers.map((_, i) => i);
    if (round % 2) order.reverse();
    if (TOGETHER) {
      // All at once, each under its own wrk: whatever else the machine is doing hits them alike.
      const before = servers.map((server) => cpuMicros(server.child.pid!));
      const results = await Promise.all(
        servers.map((server) => measureLoad({ name: server.label, ...server }, SECONDS)),
      );
      servers.forEach((server, i) => {
        cpu[i]!.push((cpuMicros(server.child.pid!) - before[i]!) / (results[i]!.rps * SECONDS));
      });
    } else {
      for (const i of order) {
        const server = servers[i]!;
        const before = cpuMicros(server.child.pid!);
        const { rps } = await measureLoad({ name: server.label, ...server }, SECONDS);
        cpu[i]!.push((cpuMicros(server.child.pid!) - before) / (rps * SECONDS));
      }
    }
    process.stdout.write(
      `round ${round + 1}: ${servers.map((s, i) => `${s.label} ${cpu[i]!.at(-1)!.toFixed(1)}`).join(', ')} µs CPU per answer\n`,
    );
  }
  const ratio = (a: number[], b: number[]) => median(a.map((x, r) => b[r]! / x));
  const lines = [
    `| step | CPU µs per answer (median) | first ÷ it | the one before ÷ it |`,
    '|---|---|---|---|',
    ...servers.map(
      (s, i) =>
        `| ${s.label} | ${median(cpu[i]!).toFixed(1)} | ${i ? ratio(cpu[i]!, cpu[0]!).toFixed(3) : ''} | ${i ? ratio(cpu[i]!, cpu[i - 1]!).toFixed(3) : ''} |`,
    ),
  ];
  process.stdout.write(`\n${ROUNDS} interleaved rounds of ${SECONDS} s\n${lines.join('\n')}\n`);
} finally {
  for (const server of servers) await stopServer(server.child);
  await databases.release();
}
