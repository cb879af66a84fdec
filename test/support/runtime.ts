import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { inject } from 'vitest';
import { type AppOptions, buildApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { createSubscription } from '../../src/gateway/operations/subscriptions.ts';
import { addUser } from '../../src/identity/operations/users.ts';
import type { ClockMode } from '../../src/platform/clock.ts';
import { databasesNamed, dropDatabaseNamed } from '../../src/platform/db/databases.ts';
import { dropDatabase, ensureDatabase } from '../../src/platform/db/pool.ts';
import { type DatabaseUrls, databaseName, withDatabase } from '../../src/platform/db/urls.ts';
import { keptDatabasePrefix } from '../../src/platform/sandbox/names.ts';
import { openRuntime, type Runtime } from '../../src/runtime.ts';

/** A server URL for tests: the run's PostgreSQL (see global-setup.ts). */
export function pgServerUrl(): string {
  const url = inject('pgServerUrl');
  if (!url) throw new Error('this test needs PostgreSQL; it was run with RSG_TEST_UNIT=1');
  return url;
}

/**
 * The server secret of test gateways and commands (platform/server-keys.ts): one value, so gateways
 * opened on the same databases read each other's keyed values, and no key file is made in the project.
 */
export const TEST_SERVER_SECRET = 'test-server-secret-not-for-any-deployment';

type TestDatabases = DatabaseUrls & { drop(): Promise<void> };

/** The names of a test's three databases on the test server (a random stem), and how to drop them. */
function newTestDatabases(): TestDatabases {
  const stem = `rsgt_${randomBytes(5).toString('hex')}`;
  const server = pgServerUrl();
  const urls = {
    gateway: withDatabase(server, `${stem}_gateway`),
    sandbox: withDatabase(server, `${stem}_sandbox`),
    production: withDatabase(server, `${stem}_production`),
  };
  return {
    ...urls,
    async drop() {
      await Promise.all(Object.values(urls).map(dropDatabase));
      // The sandbox's kept states and scratch copies (platform/sandbox/), named after its database.
      const kept = keptDatabasePrefix(databaseName(urls.sandbox));
      for (const name of await databasesNamed(server, kept)) await dropDatabaseNamed(server, name);
    },
  };
}

/** Three fresh (empty) databases on the test server. */
export async function freshDatabases(): Promise<TestDatabases> {
  const databases = newTestDatabases();
  for (const url of [databases.gateway, databases.sandbox, databases.production]) await ensureDatabase(url);
  return databases;
}

/**
 * Three databases already migrated: copies of the run's templates (global-setup.ts), so a runtime opened
 * on them finds every migration applied. What a test gateway starts from; `freshDatabases` when the
 * test is about migrating.
 */
export async function migratedDatabases(): Promise<TestDatabases> {
  const templates = inject('pgTemplates');
  if (!templates) return freshDatabases();
  const databases = newTestDatabases();
  const copies = [
    [databases.gateway, templates.gateway],
    [databases.sandbox, templates.environment],
    [databases.production, templates.environment],
  ] as const;
  const admin = new pg.Client({ connectionString: withDatabase(pgServerUrl(), 'postgres') });
  await admin.connect();
  try {
    for (const [url, template] of copies) {
      await admin.query(
        `CREATE DATABASE ${admin.escapeIdentifier(databaseName(url))} TEMPLATE ${admin.escapeIdentifier(template)}`,
      );
    }
  } finally {
    await admin.end();
  }
  return databases;
}

export interface TestGateway {
  runtime: Runtime;
  app: FastifyInstance;
  urls: DatabaseUrls;
  close(): Promise<void>;
}

export async function testGateway(
  options: {
    env?: Record<string, string>;
    clockMode?: ClockMode;
    app?: AppOptions;
    urls?: DatabaseUrls;
  } = {},
): Promise<TestGateway> {
  const databases = options.urls ? undefined : await migratedDatabases();
  const urls = options.urls ?? databases!;
  const config: Config = loadConfig({
    LOG_LEVEL: 'silent',
    REDIS_URL: process.env.REDIS_URL,
    // Simulated register activity would add changes to every test that moves the sandbox clock.
    RSG_SANDBOX_ACTIVITY_PER_HOUR: '0',
    // scrypt at 2^10, not 2^15: hundreds of sign-ups a pass (identity/domain/passwords.ts).
    RSG_PASSWORD_COST: '10',
    // Five connections a pool, not ten: three files run at once on one server, some with several
    // gateways of three pools each, and the machine's PostgreSQL takes 100 clients (past them a gateway's
    // new connection is refused and its call answers 503). A test about pools sets its own.
    RSG_DB_POOL_SIZE: '5',
    // No report thread (a worker thread per gateway, engine/report-thread.ts): the tests' answers are
    // small; the tests about it turn it on.
    RSG_MARKET_RENT_REPORT_THREAD: '0',
    RSG_SERVER_SECRET: TEST_SERVER_SECRET,
    ...options.env,
  });
  const runtime = await openRuntime(config, { urls, embedded: undefined }, { clockMode: options.clockMode });
  const app = await buildApp(runtime, { logger: false, ...options.app });
  await app.ready();
  return {
    runtime,
    app,
    urls,
    async close() {
      await app.close();
      await runtime.close();
      await databases?.drop();
    },
  };
}

/** A user with an active subscription to `productId`; returns both keys. */
export async function subscriber(
  gateway: TestGateway,
  productId: string,
  options: { operator?: boolean; state?: 'active' | 'requested' } = {},
) {
  const user = await addUser(gateway.runtime.gateway.pool, {
    email: `${randomBytes(4).toString('hex')}@example.test`,
    isOperator: options.operator ?? false,
  });
  const created = await createSubscription(gateway.runtime.gateway.pool, {
    userId: user.id,
    productId,
    state: options.state ?? 'active',
  });
  return { user, ...created };
}
