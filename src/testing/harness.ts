import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { createSubscription } from '../gateway/operations/subscriptions.ts';
import { grantSandboxAuthority, makeSandboxUser } from '../gateway/routes/sandbox-users.ts';
import { addUser } from '../identity/operations/users.ts';
import { databasesNamed, dropDatabaseNamed } from '../platform/db/databases.ts';
import { withTransaction } from '../platform/db/pool.ts';
import { type DatabaseUrls, databaseName } from '../platform/db/urls.ts';
import {
  advanceClock,
  type ClockReading as Reading,
  readClock,
  setClock,
} from '../platform/environment-clocks.ts';
import { keepCompiledCode } from '../platform/http/schema-compilers.ts';
import { keptDatabasePrefix, seedStateName } from '../platform/sandbox/names.ts';
import { keepState, keptMail, keptState } from '../platform/store/sandbox-states.ts';
import { type JobsHandle, openRuntime, type Runtime, startJobs } from '../runtime.ts';
import { ENVIRONMENT_PREFIX } from '../services/contract.ts';
import { dropRunDocuments, placeDocuments } from './documents.ts';
import { leaseServer, type ServerLease, trustedCacheFolder } from './machine.ts';
import { copyTemplate, ensureTemplate, RUN_PREFIX } from './template.ts';
import type { ClockReading, RegisterId, Sandbox, SandboxOptions, SandboxUserOptions } from './types.ts';

/**
 * `startSandbox`: a gateway in this process, on a free port, over three databases of its own copied
 * from the machine's template (template.ts; made once per change of the code), with a user holding a
 * key to every register's sandbox. What it starts and in what order is src/testing/README.md.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const scale = options.scale ?? 'small';
  const clockMode = options.clock ?? 'virtual';
  if (scale !== 'small' && scale !== 'full') throw new TypeError('scale must be "small" or "full"');
  if (clockMode !== 'virtual' && clockMode !== 'real')
    throw new TypeError('clock must be "virtual" or "real"');
  if (options.clockAt !== undefined && clockMode !== 'virtual') {
    throw new TypeError('clockAt needs the virtual clock');
  }
  const log = options.log ?? (() => {});
  const databaseUrl = options.databaseUrl ?? process.env.DATABASE_URL;
  const lease: ServerLease | undefined = databaseUrl
    ? undefined
    : await leaseServer(trustedCacheFolder(), async (serverUrl) => {
        // Nobody else uses a server this harness just started: what crashed runs left goes.
        for (const name of await databasesNamed(serverUrl, RUN_PREFIX))
          await dropDatabaseNamed(serverUrl, name);
      });
  const server = databaseUrl ?? `${lease!.serverUrl}/postgres`;
  const cleanup: Array<() => Promise<unknown>> = [async () => lease?.release()];
  const undo = async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {});
  };
  try {
    const template = await ensureTemplate(server, scale, log);
    placeDocuments();
    // A new process (a test runner's worker) evaluates the schemas' kept code rather than compiling them.
    keepCompiledCode(keptCodeFolder());
    const stem = randomBytes(6).toString('hex');
    const urls = await copyTemplate(server, template, stem);
    cleanup.push(() => dropHarnessDatabases(urls));
    cleanup.push(() => dropRunDocuments(`${RUN_PREFIX}${stem}`));
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'rsg-harness-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const running = await serve(urls, dataDir, scale, clockMode, options);
    cleanup.push(() => running.close());
    await startFrom(running.runtime, scale, options.clockAt);
    const holder = await subscribe(running.runtime);
    return sandboxOf(running, holder, scale, undo);
  } catch (error) {
    await undo();
    throw error;
  }
}

interface Running {
  runtime: Runtime;
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

/** The kept schema code's folder, or none when the cache folder is not this user's alone. */
function keptCodeFolder(): string | undefined {
  try {
    return path.join(trustedCacheFolder(), 'compiled');
  } catch {
    return undefined;
  }
}

/** The gateway's log records (JSON lines) as one short line each: its message and the reason given. */
function linesTo(log: (line: string) => void): { write(record: string): void } {
  return {
    write(record) {
      try {
        const { msg, reason, err } = JSON.parse(record) as {
          msg?: string;
          reason?: string;
          err?: { message?: string };
        };
        const why = reason ?? err?.message;
        log(`gateway: ${msg ?? ''}${why ? ` (${why})` : ''}`);
      } catch {
        log(`gateway: ${record.trim()}`);
      }
    },
  };
}

/** The gateway over `urls`, listening on a free port of 127.0.0.1, its jobs running unless turned off. */
async function serve(
  urls: DatabaseUrls,
  dataDir: string,
  scale: string,
  clockMode: 'virtual' | 'real',
  options: SandboxOptions,
): Promise<Running> {
  const config = loadConfig({
    // With a `log`, the gateway's warnings and errors go there (why a request was answered 503, say).
    LOG_LEVEL: options.log ? 'warn' : 'silent',
    HOST: '127.0.0.1',
    PORT: '0',
    RSG_DATA_DIR: dataDir,
    DATABASE_URL: urls.gateway,
    SANDBOX_DATABASE_URL: urls.sandbox,
    PRODUCTION_DATABASE_URL: urls.production,
    // Its own secret: nothing in the template is keyed by one.
    RSG_SERVER_SECRET: randomBytes(24).toString('base64url'),
    RSG_METRICS_PORT: 'off',
    RSG_SEED_SCALE: scale,
    RSG_SANDBOX_CLOCK: clockMode,
    // Simulated register activity would change records under a test's feet.
    RSG_SANDBOX_ACTIVITY_PER_HOUR: '0',
    // Several gateways (parallel workers) on one server: five connections a pool.
    RSG_DB_POOL_SIZE: '5',
    // Sign-ups and sign-ins of test users: scrypt at 2^10.
    RSG_PASSWORD_COST: '10',
    // The rental statistics' warm-up (JIT before the first query) and report thread (a worker thread
    // for large answers) are for a server's latency under load; a suite's answers are small.
    RSG_MARKET_RENT_WARM_UP: '0',
    RSG_MARKET_RENT_REPORT_THREAD: '0',
    RSG_JOBS: options.jobs === false ? 'off' : 'on',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...options.env,
  });
  const runtime = await openRuntime(config, { urls, embedded: undefined }, { migrate: false, clockMode });
  let app: FastifyInstance | undefined;
  let jobs: JobsHandle | undefined;
  const close = async () => {
    await jobs?.stop();
    await app?.close();
    await runtime.close();
  };
  try {
    app = await buildApp(runtime, options.log ? { logStream: linesTo(options.log) } : { logger: false });
    await app.listen({ host: config.host, port: 0 });
    const url = runtime.publicUrl.base;
    if (config.jobs) jobs = await startJobs(runtime, url);
    return { runtime, app, url, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The clock where the sandbox starts (`clockAt`, else now), and the seeded state showing that reading:
 * a reset brings the clock back to the harness's start, not to when the template was made.
 */
async function startFrom(runtime: Runtime, scale: string, clockAt: string | Date | undefined): Promise<void> {
  const pool = runtime.gateway.pool;
  if (clockAt !== undefined) {
    await setClock(pool, 'sandbox', clockAt instanceof Date ? clockAt.toISOString() : clockAt);
    await runtime.clocks.reload();
  }
  const reading = await readClock(pool, 'sandbox');
  const name = seedStateName(scale);
  const seeded = await keptState(pool, name);
  if (!seeded) throw new Error(`the template holds no seeded state ${name}`);
  const mail = await keptMail(pool, name);
  await withTransaction(pool, (tx) =>
    keepState(tx, { ...seeded, clockAt: reading.now, clockFrozen: reading.frozen, mail }),
  );
}

/**
 * An operator with an active subscription to every register's sandbox product (as `rsg start` makes on
 * a first start), so the sandbox's admin routes take the keys too; their primary keys.
 */
async function subscribe(runtime: Runtime): Promise<Holder> {
  const pool = runtime.gateway.pool;
  const user = await addUser(pool, {
    email: `harness-${randomBytes(5).toString('hex')}@example.test`,
    isOperator: true,
  });
  const keys = {} as Record<RegisterId, string>;
  for (const service of runtime.services) {
    const created = await createSubscription(pool, {
      userId: user.id,
      productId: `sandbox-${service.id}`,
      state: 'active',
    });
    keys[service.id] = created.primaryKey;
  }
  return { userId: user.id, keys };
}

interface Holder {
  userId: string;
  keys: Record<RegisterId, string>;
}

const reading = (clock: Reading): ClockReading => ({
  now: clock.now,
  mode: clock.mode,
  frozen: clock.frozen,
});

function sandboxOf(
  running: Running,
  holder: Holder,
  scale: 'small' | 'full',
  undo: () => Promise<void>,
): Sandbox {
  const { runtime, app, url } = running;
  const pool = runtime.gateway.pool;
  const states = runtime.sandboxStates;
  const moved = async (clock: Promise<Reading>) => {
    const now = await clock;
    await runtime.clocks.reload();
    return reading(now);
  };
  let stopped: Promise<void> | undefined;
  return {
    url,
    registers: Object.fromEntries(
      runtime.services.map((service) => [service.id, `${url}${ENVIRONMENT_PREFIX.sandbox}${service.path}`]),
    ) as Record<RegisterId, string>,
    keys: { ...holder.keys },
    userId: holder.userId,
    scale,
    clock: {
      read: async () => reading(await readClock(pool, 'sandbox')),
      advance: (duration) => moved(advanceClock(pool, 'sandbox', duration)),
      set: (time) => moved(setClock(pool, 'sandbox', time instanceof Date ? time.toISOString() : time)),
    },
    user: (options: SandboxUserOptions = {}) => makeSandboxUser(app, runtime, options),
    grantAuthority: (holder, object) => grantSandboxAuthority(runtime, holder, object),
    async reset() {
      await states.reset(scale);
    },
    async snapshot(name) {
      await states.snapshot(name);
    },
    async restore(name) {
      await states.restore(name);
    },
    stop() {
      stopped ??= undo();
      return stopped;
    },
  };
}

/** A harness's databases, and the kept states and scratch copies named after its sandbox database. */
async function dropHarnessDatabases(urls: DatabaseUrls): Promise<void> {
  for (const url of [urls.gateway, urls.sandbox, urls.production]) {
    await dropDatabaseNamed(url, databaseName(url));
  }
  for (const name of await databasesNamed(urls.sandbox, keptDatabasePrefix(databaseName(urls.sandbox)))) {
    await dropDatabaseNamed(urls.sandbox, name);
  }
}
