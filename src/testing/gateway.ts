import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { createSubscription } from '../gateway/operations/subscriptions.ts';
import { grantSandboxAuthority, makeSandboxUser } from '../gateway/routes/sandbox-users.ts';
import { addUser } from '../identity/operations/users.ts';
import { withTransaction } from '../platform/db/pool.ts';
import type { DatabaseUrls } from '../platform/db/urls.ts';
import {
  advanceClock,
  type ClockReading as Reading,
  readClock,
  setClock,
} from '../platform/environment-clocks.ts';
import { keepCompiledCode } from '../platform/http/schema-compilers.ts';
import { seedStateName } from '../platform/sandbox/names.ts';
import { keepState, keptMail, keptState } from '../platform/store/sandbox-states.ts';
import { documentPlaces, type JobsHandle, openRuntime, type Runtime, startJobs } from '../runtime.ts';
import { ENVIRONMENT_PREFIX } from '../services/contract.ts';
import { dropRunDocuments, placeDocuments } from './documents.ts';
import { trustedCacheFolder } from './machine.ts';
import type { ClockReading, RegisterId, Sandbox, SandboxOptions, SandboxUserOptions } from './types.ts';

/**
 * The harness's gateway side (harness.ts loads it while the databases are copied): the gateway over a
 * run's databases, its seeded state, its operator's keys, and the `Sandbox` a suite holds.
 */

/** Before a gateway is built: the registers' document folders placed, the schemas' kept code used. */
export function prepare(): void {
  placeDocuments(documentPlaces());
  // A new process (a test runner's worker) evaluates the schemas' kept code rather than compiling them.
  keepCompiledCode(keptCodeFolder());
}

/** The run's document folders (named after its databases) removed. */
export const dropDocuments = (prefix: string): Promise<void> => dropRunDocuments(documentPlaces(), prefix);

export interface Running {
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
export async function serve(
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
export async function startFrom(
  runtime: Runtime,
  scale: string,
  clockAt: string | Date | undefined,
): Promise<void> {
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
export async function subscribe(runtime: Runtime): Promise<Holder> {
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

export interface Holder {
  userId: string;
  keys: Record<RegisterId, string>;
}

const reading = (clock: Reading): ClockReading => ({
  now: clock.now,
  mode: clock.mode,
  frozen: clock.frozen,
});

export function sandboxOf(
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
