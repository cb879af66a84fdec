import { AsyncLocalStorage } from 'node:async_hooks';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand } from '../../src/cli/commands.ts';
import { reportFailure } from '../../src/cli/run.ts';
import type { DatabaseUrls } from '../../src/platform/db/urls.ts';
import { TEST_SERVER_SECRET } from './runtime.ts';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/rsg.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** The test's databases, as DATABASE_URL, SANDBOX_DATABASE_URL and PRODUCTION_DATABASE_URL. */
  urls?: DatabaseUrls;
  /** More environment variables for the command. */
  env?: Record<string, string>;
}

function environment(options: CliOptions): Record<string, string> {
  // scrypt at 2^10 like testGateway's (identity/domain/passwords.ts): the cost is the process's.
  const env: Record<string, string> = {
    LOG_LEVEL: 'silent',
    RSG_PASSWORD_COST: '10',
    RSG_SERVER_SECRET: TEST_SERVER_SECRET,
    ...options.env,
  };
  if (options.urls) {
    env.DATABASE_URL = options.urls.gateway;
    env.SANDBOX_DATABASE_URL = options.urls.sandbox;
    env.PRODUCTION_DATABASE_URL = options.urls.production;
  }
  return env;
}

/**
 * Runs an `rsg` command in this process, as `bin/rsg.js` would run it (the same dispatcher,
 * `runCommand`, and the same reporting of failures and exit statuses, `reportFailure`), and returns
 * what it wrote and its exit status. Much cheaper than a process of its own (no loader, no start-up);
 * `rsgProcess` below is for the few smoke tests of the real entry point.
 *
 * - Output: while a command runs, its writes to process.stdout and process.stderr are captured. They
 *   are told apart by async context (AsyncLocalStorage), so concurrent commands (migrations.test.ts)
 *   each get their own; writes from outside a command pass through unchanged.
 * - Environment: commands read process.env (loadConfig()), so the command's variables are set on
 *   process.env while it runs and restored afterwards. a vitest worker runs one test file at a time
 *   and the tests of a file one after another, so nothing else sees them; commands running at the
 *   same time must share the same variables (checked).
 * - `rsg start` and `rsg worker` without `--once` keep running and take over the process's signals:
 *   they are refused here; test them with `rsgProcess`.
 */
export async function rsg(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const [command, ...rest] = args;
  if (!command) throw new Error('rsg(): name a command');
  if (command === 'start' || (command === 'worker' && !rest.includes('--once'))) {
    throw new Error(`rsg ${command} keeps running: use rsgProcess() for it`);
  }
  installCapture();
  const output: Output = { stdout: '', stderr: '' };
  const restore = applyEnvironment(environment(options));
  try {
    const code = await captured.run(output, async () => {
      try {
        return (await runCommand(command, rest)) ?? 0;
      } catch (error) {
        return reportFailure(error);
      }
    });
    return { code, ...output };
  } finally {
    restore();
  }
}

interface Output {
  stdout: string;
  stderr: string;
}

const captured = new AsyncLocalStorage<Output>();
let installed = false;

/** Wraps process.stdout.write and process.stderr.write once: inside a command, the text is kept. */
function installCapture(): void {
  if (installed) return;
  installed = true;
  for (const name of ['stdout', 'stderr'] as const) {
    const stream = process[name];
    const original = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const output = captured.getStore();
      if (!output) return original(chunk, ...rest);
      output[name] +=
        typeof chunk === 'string'
          ? chunk
          : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
      const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      if (callback) queueMicrotask(callback);
      return true;
    }) as typeof stream.write;
  }
}

let active:
  | { env: Record<string, string>; saved: Record<string, string | undefined>; users: number }
  | undefined;

/** Sets `env` on process.env; the returned function restores it once the last command using it ends. */
function applyEnvironment(env: Record<string, string>): () => void {
  if (active) {
    if (JSON.stringify(active.env) !== JSON.stringify(env)) {
      throw new Error('rsg(): commands running at the same time must have the same environment');
    }
    active.users++;
  } else {
    const saved: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(env)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
    active = { env, saved, users: 1 };
  }
  const current = active;
  return () => {
    if (--current.users > 0) return;
    for (const [name, value] of Object.entries(current.saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    active = undefined;
  };
}

/** Runs `rsg` as a separate process (`node bin/rsg.js`), as an operator would, against the given databases. */
export function rsgProcess(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const env = { ...process.env, ...environment(options) };
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
