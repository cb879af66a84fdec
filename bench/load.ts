import { execFile, execFileSync } from 'node:child_process';
import os from 'node:os';
import { promisify } from 'node:util';
import autocannon from 'autocannon';

/**
 * HTTP load for the side-by-side benchmarks, on 127.0.0.1 only and bounded in time.
 *
 * The load comes from `wrk` when it is installed (`apt-get install wrk`; C and epoll, so it spends
 * little of the machine's CPU on itself and the contenders get more of it), otherwise from autocannon in
 * this process. `BENCH_LOAD=autocannon|wrk` chooses. Each result says which one made it.
 *
 * With `cpus` set (a `taskset` list such as "0"), wrk runs on those cores only; the contenders are
 * then started on the others (see `pinned`), so each side has cores of its own.
 */
const run = promisify(execFile);

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  /** Bytes received per answer, headers included. */
  bytes: number;
}

export interface LoadTarget {
  name: string;
  url: string;
  headers: Record<string, string>;
}

const onPath = (command: string): boolean => {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

export const LOAD_GENERATOR: 'wrk' | 'autocannon' =
  process.env.BENCH_LOAD === 'autocannon' || (process.env.BENCH_LOAD !== 'wrk' && !onPath('wrk'))
    ? 'autocannon'
    : 'wrk';

/** Cores this process may use (its affinity, not the machine's count); numbered from 0 when pinning. */
const CORES = os.availableParallelism();

/**
 * Whether contenders and load can be given cores of their own: `taskset`, at least 2 cores, and wrk
 * (autocannon, in this process, cannot load the faster contenders from one core, which would squeeze
 * the ratios).
 */
export const CAN_PIN = CORES >= 2 && onPath('taskset') && LOAD_GENERATOR === 'wrk';

/** The cores for the load generator and for the contenders when pinned: the first, and the rest. */
export const LOAD_CPUS = '0';
export const SERVER_CPUS = CORES > 2 ? `1-${CORES - 1}` : '1';

/** `command args` under `taskset -c cpus` when cpus is given. */
export function pinned(cpus: string | undefined, command: string, args: string[]): [string, string[]] {
  return cpus ? ['taskset', ['-c', cpus, command, ...args]] : [command, args];
}

/** wrk's figures: "Latency Distribution" lines are "50%  1.23ms". */
function wrkMs(text: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text.trim());
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

function wrkBytes(text: string): number {
  const match = /^([\d.]+)(B|KB|MB|GB)$/.exec(text.trim());
  if (!match) return Number.NaN;
  const scale = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }[match[2] as 'B'];
  return Number(match[1]) * scale;
}

export function parseWrk(output: string): LoadResult & { failures: number } {
  const field = (pattern: RegExp) => pattern.exec(output)?.[1];
  const rps = Number(field(/Requests\/sec:\s+([\d.]+)/));
  const transfer = wrkBytes(field(/Transfer\/sec:\s+(\S+)/) ?? '');
  const non2xx = Number(field(/Non-2xx or 3xx responses:\s+(\d+)/) ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const failures = non2xx + (socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0);
  return {
    rps,
    p50: wrkMs(field(/^\s+50%\s+(\S+)/m) ?? ''),
    p99: wrkMs(field(/^\s+99%\s+(\S+)/m) ?? ''),
    bytes: transfer / Math.max(1, rps),
    failures,
  };
}

/** One measurement of `seconds` with 32 connections; throws on any error or non-2xx answer. */
export async function measureLoad(target: LoadTarget, seconds: number, cpus?: string): Promise<LoadResult> {
  if (LOAD_GENERATOR === 'wrk') {
    const headers = Object.entries(target.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
    const [command, args] = pinned(cpus, 'wrk', [
      '-t',
      '1',
      '-c',
      '32',
      '-d',
      `${seconds}s`,
      '--latency',
      ...headers,
      target.url,
    ]);
    const { stdout } = await run(command, args, { timeout: (seconds + 30) * 1000 });
    const { failures, ...result } = parseWrk(stdout);
    if (failures > 0 || !(result.rps > 0)) throw new Error(`${target.name}: ${failures} failed answers`);
    return result;
  }
  const result = await autocannon({
    url: target.url,
    headers: target.headers,
    connections: 32,
    duration: seconds,
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${target.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bytes: result.throughput.average / Math.max(1, result.requests.average),
  };
}

/**
 * Loads a contender until its throughput stops climbing: a JVM keeps compiling for tens of seconds (on
 * one core, for a minute or more), so a short warm-up measures WireMock before it has reached its pace.
 * Runs of `seconds`, at least `minRuns`, until the median of the last three is no more than `tolerance`
 * above the median of the three before (a rate that only wobbles, as every rate does on a shared
 * machine, stops at once), at most `maxRuns`. Returns the rates seen, for the notes.
 */
export async function warmUp(
  target: LoadTarget,
  options: { seconds?: number; minRuns?: number; maxRuns?: number; tolerance?: number; cpus?: string } = {},
): Promise<number[]> {
  const { seconds = 5, minRuns = 6, maxRuns = 30, tolerance = 0.05 } = options;
  const rates: number[] = [];
  const median3 = (values: number[]) => [...values].sort((a, b) => a - b)[1]!;
  for (let runs = 0; runs < maxRuns; runs++) {
    rates.push((await measureLoad(target, seconds, options.cpus)).rps);
    if (rates.length < Math.max(6, minRuns)) continue;
    if (median3(rates.slice(-3)) <= median3(rates.slice(-6, -3)) * (1 + tolerance)) break;
  }
  return rates;
}
