import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { dropDatabase, ensureDatabase } from '../src/platform/db/pool.ts';
import { withDatabase } from '../src/platform/db/urls.ts';
import { type DatabaseSetup, migrateAll, prepareDatabases } from '../src/runtime.ts';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A TCP port free on 127.0.0.1 right now, for a server a benchmark starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * Starts a TypeScript server script in its own process and waits for its first JSON line. With `cpus`
 * (a `taskset` list), the process and any it forks run on those cores only.
 */
export function startServer<T>(
  script: string,
  env: Record<string, string> = {},
  cpus?: string,
): Promise<{ child: ChildProcess; info: T }> {
  const args = ['--import', 'tsx', path.isAbsolute(script) ? script : path.join(root, script)];
  const [command, commandArgs] = cpus
    ? ['taskset', ['-c', cpus, process.execPath, ...args]]
    : [process.execPath, args];
  const child = spawn(command, commandArgs, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const line = buffer.split('\n')[0];
      if (buffer.includes('\n') && line) resolve({ child, info: JSON.parse(line) as T });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

export function stopServer(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Replaces the section between `<!-- name:start -->` and `<!-- name:end -->` in docs/benchmarks.md. */
export async function recordResults(name: string, markdown: string): Promise<void> {
  const file = path.join(root, 'docs/benchmarks.md');
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const current = existsSync(file) ? await readFile(file, 'utf8') : '# Benchmarks\n';
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const next = current.includes(start)
    ? current.replace(new RegExp(`${start}[\\s\\S]*?${end}`), block)
    : `${current.trimEnd()}\n\n${block}\n`;
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, next);
}

export interface BenchDatabases {
  setup: DatabaseSetup;
  /** 'DATABASE_URL' or 'embedded PostgreSQL 17', for the results' notes. */
  label: string;
  /** Whether the databases persist between runs (`keep`): release leaves them. */
  kept: boolean;
  /** Drops the scratch databases (DATABASE_URL) or stops and removes the embedded server. */
  release(): Promise<void>;
}

/**
 * Scratch databases for one benchmark run: on the server in DATABASE_URL (databases named after
 * `stem` and this process, dropped afterwards), otherwise an embedded server in a temporary folder.
 */
export async function benchDatabases(
  stem: string,
  options: { migrate?: boolean; keep?: string } = {},
): Promise<BenchDatabases> {
  const config = loadConfig();
  // `keep` (with DATABASE_URL only): a persistent name, not dropped at the end, for data slow to load.
  const keep = config.databaseUrl && options.keep ? options.keep : undefined;
  const databaseUrl = config.databaseUrl
    ? withDatabase(
        config.databaseUrl,
        keep ? `rsg_bench_${stem}_${keep}` : `rsg_bench_${stem}_${process.pid}`,
      )
    : undefined;
  const dataDir = databaseUrl ? undefined : await mkdtemp(path.join(tmpdir(), `rsg-bench-${stem}-`));
  const setup = await prepareDatabases({
    ...config,
    databaseUrl,
    dataDir: dataDir ?? config.dataDir,
    embeddedPgPort: 20_000 + (process.pid % 20_000),
  });
  for (const url of Object.values(setup.urls)) await ensureDatabase(url);
  if (options.migrate !== false) await migrateAll(setup.urls);
  return {
    setup,
    label: databaseUrl ? 'DATABASE_URL' : 'embedded PostgreSQL 17',
    kept: keep !== undefined,
    async release() {
      if (databaseUrl && !keep) for (const url of Object.values(setup.urls)) await dropDatabase(url);
      await setup.embedded?.stop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
