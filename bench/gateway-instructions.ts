import { execFile, spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { benchDatabases, median, root } from './support.ts';

/**
 * Machine instructions per answer for `bench:gateway`'s contenders, counted by valgrind's callgrind
 * (all threads of the contender's process: JavaScript, V8's compiler and collector, libuv, the
 * kernel-call wrappers; not the kernel itself). The hope was a figure that does not depend on what else
 * the machine is doing; it depends on it less than CPU time but still does (how many requests wait when
 * the server wakes, timers, connection time-outs under valgrind's slowness: see
 * docs/decisions/0002-gateway-per-request-costs.md), so it serves to see where instructions go
 * (`BENCH_KEEP=1`, `callgrind_annotate`) more than to
 * tell a few per cent apart:
 *
 *   node --import tsx bench/gateway-instructions.ts [requests=20000] [contender ...]
 *
 * Contenders: bare, fastify, gateway (this checkout's `bench/servers/<name>.ts`), and `baseline` (the
 * gateway of the checkout in `BENCH_BASELINE`). Each starts under callgrind with counting off, is warmed
 * with `BENCH_WARM_UP` requests (default 20,000; JIT), then counts exactly `requests` answers (autocannon, 32
 * keep-alive connections, no pipelining) and the total is divided by them. `BENCH_REPEAT` (default 1)
 * repeats the count in the same process (after one window thrown away); the median is reported.
 */
const run = promisify(execFile);
const requests = Number(process.argv[2] ?? 20_000);
const names = process.argv.slice(3).length ? process.argv.slice(3) : ['bare', 'fastify', 'gateway'];
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 20_000);
const repeat = Number(process.env.BENCH_REPEAT ?? 1);
const BASELINE = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE) : undefined;

const databases = names.some((n) => n === 'gateway' || n === 'baseline')
  ? await benchDatabases('gateway_instructions', { migrate: false })
  : undefined;

function start(name: string) {
  const base = name === 'baseline' ? BASELINE : root;
  if (!base) throw new Error('baseline needs BENCH_BASELINE');
  // A name ending in .ts is a server script of its own (a variant to compare), else bench/servers/<name>.ts.
  const script = name.endsWith('.ts')
    ? path.resolve(name)
    : path.join(base, 'bench/servers', `${name === 'baseline' ? 'gateway' : name}.ts`);
  const out = path.join(tmpdir(), `rsg-callgrind-${path.basename(name)}-${process.pid}`);
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${out}`,
      process.execPath,
      // BENCH_SINGLE_THREADED=1: V8 compiles and collects on this thread. Tried for steadier counts; it
      // made them less steady (docs/decisions/0002-gateway-per-request-costs.md), so it is off by default.
      ...(process.env.BENCH_SINGLE_THREADED === '1' ? ['--single-threaded'] : []),
      '--import',
      'tsx',
      script,
    ],
    {
      cwd: base,
      env: { ...process.env, RSG_BENCH_URLS: JSON.stringify(databases?.setup.urls ?? {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const info = new Promise<{ port: number; key?: string }>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      if (buffer.includes('\n')) resolve(JSON.parse(buffer.split('\n')[0]!));
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}: ${errors.slice(-2000)}`)));
  });
  return { child, info, out };
}

const load = async (port: number, key: string | undefined, amount: number) => {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/sandbox/nzbn/v5/fixed`,
    headers: key ? { 'Ocp-Apim-Subscription-Key': key } : {},
    connections: 32,
    amount,
    timeout: 60,
  });
  if (result.non2xx > 0) process.stderr.write(`(${result.non2xx} answers not 2xx, not counted)\n`);
  // Connection errors (a socket reset while valgrind switches its instrumentation) are reported and
  // the answers counted are the 2xx ones only.
  if (result.errors > 0)
    process.stderr.write(`(${result.errors} connection errors, ${result['2xx']} answers)\n`);
  return result['2xx'];
};

/** Total instructions in callgrind's dump files for this process (`summary:` or `totals:` lines). */
async function instructions(out: string, pid: number): Promise<number> {
  const { stdout } = await run('sh', ['-c', `ls ${out}*`]);
  let total = 0;
  for (const file of stdout.trim().split('\n')) {
    const text = await readFile(file, 'utf8');
    const line = /^(?:summary|totals): (\d+)/m.exec(text);
    if (line) total += Number(line[1]);
    // BENCH_KEEP=1 keeps the dump for `callgrind_annotate` (the profile of the counted answers).
    if (process.env.BENCH_KEEP === '1') process.stderr.write(`kept ${file}\n`);
    else await rm(file);
  }
  void pid;
  return total;
}

const results: Record<string, number[]> = {};
try {
  for (const name of names) {
    const server = start(name);
    const info = await server.info;
    const pid = server.child.pid!;
    await load(info.port, info.key, WARM_UP); // JIT warm-up, key cache, pools
    results[name] = [];
    // The first counted window after switching counting on runs slow and is thrown away.
    for (let i = -1; i < repeat; i++) {
      await run('callgrind_control', ['-z', String(pid)]);
      await run('callgrind_control', ['-i', 'on', String(pid)]);
      const answered = await load(info.port, info.key, requests);
      await run('callgrind_control', ['-d', String(pid)]);
      await run('callgrind_control', ['-i', 'off', String(pid)]);
      const count = await instructions(server.out, pid);
      if (i >= 0) results[name].push(count / answered);
      process.stdout.write(
        `${name}: ${(count / answered).toFixed(0)} instructions per answer${i < 0 ? ' (first window, not counted)' : ''}\n`,
      );
    }
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
    await rm(server.out, { force: true });
  }
} finally {
  await databases?.release();
}
const bare = results.bare ? median(results.bare) : undefined;
process.stdout.write(
  `\n| contender | instructions per answer | bare ÷ it |\n|---|---|---|\n${Object.entries(results)
    .map(
      ([name, values]) =>
        `| ${name} | ${median(values).toFixed(0)} | ${bare ? `${((bare / median(values)) * 100).toFixed(1)}%` : ''} |`,
    )
    .join('\n')}\n`,
);
