import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Pool } from 'pg';
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

/** Keeps its connections open between requests, as fetch does: no connection set-up is timed. */
const keptAlive = new http.Agent({ keepAlive: true, maxSockets: 4 });

/**
 * A GET timed until the last byte of the body has arrived, and no further: the chunks are kept as they
 * come and joined only after the clock stops. fetch's `text()` times the client too (a web stream per
 * chunk, then the bytes decoded into one string): for a national rental statistics answer, 12.5 MB, that
 * added 20 to 100 ms of the client's own work, and showed the answer cache (a copy) at 93 ms.
 */
export function timedGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headersMs: number; ms: number; body: Buffer }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers, agent: keptAlive }, (response) => {
      const headersMs = performance.now() - started;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', reject);
      response.once('end', () => {
        const ms = performance.now() - started;
        resolve({ status: response.statusCode ?? 0, headersMs, ms, body: Buffer.concat(chunks) });
      });
    });
    request.once('error', reject);
  });
}

/**
 * The node flags the gateway runs with under `npm start` (package.json) and `rsg` (bin/rsg.js): a floor
 * under V8's young generation, which V8's memory reducer otherwise shrinks to 1 MB whenever the process
 * idles for a moment; under load afterwards it then collected ten times as often and did not grow back
 * (docs/decisions/0003-gateway-decay-after-idle-spells.md). Benchmarks start the servers
 * they compare with the same flags; `BENCH_SERVER_NODE_ARGS` replaces them (empty: none, as before).
 */
export const SERVER_NODE_ARGS =
  process.env.BENCH_SERVER_NODE_ARGS === undefined
    ? ['--min-semi-space-size=16']
    : process.env.BENCH_SERVER_NODE_ARGS.split(' ').filter(Boolean);

/**
 * Starts a TypeScript server script in its own process and waits for its first JSON line. With `cpus`
 * (a `taskset` list), the process and any it forks run on those cores only; `nodeArgs` go to node
 * before the script (flags NODE_OPTIONS refuses, such as `--trace-gc`).
 */
export function startServer<T>(
  script: string,
  env: Record<string, string> = {},
  cpus?: string,
  nodeArgs: string[] = [],
): Promise<{ child: ChildProcess; info: T }> {
  const args = [...nodeArgs, '--import', 'tsx', path.isAbsolute(script) ? script : path.join(root, script)];
  const [command, commandArgs] = cpus
    ? ['taskset', ['-c', cpus, process.execPath, ...args]]
    : [process.execPath, args];
  const child = spawn(command, commandArgs, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let buffer: string | undefined = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      // After its first JSON line, what a server prints (say `--trace-gc` lines) goes to stderr.
      if (buffer === undefined) return void process.stderr.write(chunk);
      buffer += chunk.toString();
      const line = buffer.split('\n').find((l, i, all) => i < all.length - 1 && l.startsWith('{'));
      if (line) {
        buffer = undefined;
        resolve({ child, info: JSON.parse(line) as T });
      }
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

/**
 * Starts a benchmark's contenders one after the other, each with the node flags `npm start` gives the
 * gateway (SERVER_NODE_ARGS) and its own `extra` ones, so they differ in their code only. When one
 * cannot start, the ones already running are stopped and `databases` released before the error goes on;
 * `stopAll` stops every one started.
 */
export function serverStarter(databases: { release(): Promise<void> }) {
  const started: { child: ChildProcess }[] = [];
  const stopAll = async () => {
    for (const server of started.splice(0)) await stopServer(server.child);
  };
  const start = async <T>(script: string, env: Record<string, string> = {}, extra: string[] = []) => {
    try {
      const server = await startServer<T>(script, env, undefined, [...SERVER_NODE_ARGS, ...extra]);
      started.push(server);
      return server;
    } catch (error) {
      await stopAll();
      await databases.release();
      throw error;
    }
  };
  return { start, stopAll };
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
  // BENCH_RECORD=0: print only, for every benchmark (some checked it themselves, some did not).
  if (process.env.BENCH_RECORD === '0') return;
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

/**
 * A user of a production organisation holding an approved direct debit authority, with an active key to
 * `productId` (its rate limit lifted, no quota): who pays in the fee benchmarks. Made by the code of the
 * checkout at `checkout` (this one, or a `BENCH_BASELINE` copy), on its runtime's databases.
 */
/**
 * Loads a module of the checkout at `checkout` by its path there: the first of `files` it has, so a
 * baseline taken before a file moved loads it from where it was.
 */
export function checkoutLoader(checkout: string) {
  return <T>(...files: string[]): Promise<T> =>
    import(path.join(checkout, files.find((file) => existsSync(path.join(checkout, file))) ?? files[0]!));
}

export async function productionPayer(
  checkout: string,
  runtime: { gateway: { pool: Pool }; environments: { production: { pool: Pool } } },
  productId: string,
  identifier: string,
): Promise<{ userId: string; organisationId: string; key: string }> {
  const load = checkoutLoader(checkout);
  const authorities = await load<typeof import('../src/billing/store/authorities.ts')>(
    'src/billing/store/authorities.ts',
  );
  const { updateProduct } = await load<typeof import('../src/gateway/store/products.ts')>(
    'src/gateway/store/products.ts',
    'src/gateway/products.ts',
  );
  const { createSubscription } = await load<typeof import('../src/gateway/operations/subscriptions.ts')>(
    'src/gateway/operations/subscriptions.ts',
    'src/gateway/subscriptions.ts',
  );
  const { addMember } = await load<typeof import('../src/identity/store/memberships.ts')>(
    'src/identity/store/memberships.ts',
    'src/identity/organisations.ts',
  );
  const { addOrganisation } = await load<typeof import('../src/identity/operations/organisations.ts')>(
    'src/identity/operations/organisations.ts',
    'src/identity/organisations.ts',
  );
  const { addUser } = await load<typeof import('../src/identity/operations/users.ts')>(
    'src/identity/operations/users.ts',
    'src/identity/users.ts',
  );
  const gateway = runtime.gateway.pool;
  const production = runtime.environments.production.pool;
  const user = await addUser(gateway, { email: `bench-${randomBytes(4).toString('hex')}@example.test` });
  const organisation = await addOrganisation(gateway, {
    environment: 'production',
    identifier,
    name: `Bench ${identifier}`,
  });
  await addMember(gateway, organisation.id, user.id, 'owner');
  const requested = await authorities.requestAuthority(production, 'production', {
    organisationId: organisation.id,
    accountName: 'Bench Ltd',
    accountNumber: '12-3140-0123456-00',
    now: new Date(),
  });
  await authorities.approveAuthority(production, requested.id, { now: new Date() });
  await updateProduct(gateway, productId, { rateLimitPerMinute: 100_000_000, quota: null });
  const { primaryKey } = await createSubscription(gateway, { userId: user.id, productId, state: 'active' });
  return { userId: user.id, organisationId: organisation.id, key: primaryKey };
}
