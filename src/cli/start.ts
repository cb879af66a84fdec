import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import { AggregatorRegistry } from 'prom-client';
import { buildApp } from '../app.ts';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { HttpMetrics } from '../gateway/http/metrics.ts';
import { type BootstrapResult, bootstrapIfNeeded } from '../gateway/operations/bootstrap.ts';
import {
  type MetricsServer,
  type MetricsSource,
  startMetricsServer,
} from '../gateway/routes/metrics-server.ts';
import { openDatabase } from '../platform/db/pool.ts';
import { redactText } from '../platform/http/log-redaction.ts';
import { PublicUrl } from '../platform/http/public-url.ts';
import { loadServerKeys } from '../platform/server-keys.ts';
import { clientPackage } from '../portal/operations/client-package.ts';
import { migrateAll, openRuntime, prepareDatabases, seedSandbox, startJobs } from '../runtime.ts';
import { ENVIRONMENT_PREFIX } from '../services/contract.ts';
import { SERVICES } from '../services/registry.ts';
import { keepSeededState } from './sandbox.ts';

/**
 * `rsg start`: the primary process prepares the databases (embedded server, migrations, first-start
 * bootstrap), then serves, itself or through `--workers N` processes sharing the port. Workers are
 * handed the resolved database URLs, so they never start a server of their own.
 */
const FLAG_ENV: Record<string, string> = {
  port: 'PORT',
  host: 'HOST',
  workers: 'RSG_WORKERS',
  clock: 'RSG_SANDBOX_CLOCK',
  scale: 'RSG_SEED_SCALE',
};

function applyFlags(args: string[]): void {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      options: Object.fromEntries(Object.keys(FLAG_ENV).map((name) => [name, { type: 'string' as const }])),
      strict: true,
    });
  } catch (error) {
    throw new ConfigError('start', (error as Error).message);
  }
  for (const [flag, variable] of Object.entries(FLAG_ENV)) {
    const value = parsed.values[flag];
    if (typeof value === 'string') process.env[variable] = value;
  }
}

/** What the running gateway names itself (runtime.publicUrl once listening): the banner says the same. */
const baseUrl = (config: Config, port: number) => new PublicUrl(config.publicUrl, config.host, port).base;

export function printBootstrap(result: BootstrapResult, config: Config, port = config.port): void {
  const base = baseUrl(config, port);
  const rows = result.keys.map((k) => {
    const service = SERVICES.find((s) => `sandbox-${s.id}` === k.productId);
    return [k.productId, `${base}${ENVIRONMENT_PREFIX.sandbox}${service?.path ?? ''}`, k.primaryKey] as const;
  });
  const idWidth = Math.max(...rows.map(([id]) => id.length));
  const urlWidth = Math.max(...rows.map(([, url]) => url.length));
  const lines = [
    '',
    `First start: created the operator ${result.adminEmail} and an active subscription to every sandbox product.`,
    `The operator has no password yet: "rsg users set-password --email ${result.adminEmail}" sets one, then sign in at ${base}/portal/signin.`,
    'Sandbox keys (shown once; keys are stored only as hashes — "rsg keys regenerate" makes new ones):',
    ...rows.map(([id, url, key]) => `  ${id.padEnd(idWidth)}  ${url.padEnd(urlWidth)}  ${key}`),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Where the sandbox's fixed test cases are described. */
export const SANDBOX_GUIDE = 'docs/guide/README.md';

/** The sandbox's test cases and its clock: how to see what happens at a month end or a due date. */
function sandboxLines(config: Config): string[] {
  const clock =
    config.sandboxClock === 'virtual'
      ? 'Sandbox clock: virtual; "rsg clock show", "rsg clock advance 31d" and "rsg clock set <time>" move it.'
      : 'Sandbox clock: real time; start with "rsg start --clock virtual", then "rsg clock advance 31d" to reach a month end (invoices) or a due date.';
  return [`  Sandbox test cases (fixed records for every register): ${SANDBOX_GUIDE}`, `  ${clock}`];
}

function printReady(config: Config, port: number, metrics: MetricsServer | undefined): void {
  const base = baseUrl(config, port);
  const scrape = metrics
    ? `http://${metrics.host.includes(':') ? `[${metrics.host}]` : metrics.host}:${metrics.port}/metrics`
    : `${base}/metrics (operators' key)`;
  const titleWidth = Math.max(...SERVICES.map((s) => s.title.length));
  const sandboxWidth = Math.max(...SERVICES.map((s) => `${base}/sandbox${s.path}`.length));
  const lines = [
    `Register Services Gateway is listening on ${base}`,
    ...SERVICES.map(
      (s) =>
        `  ${s.title.padEnd(titleWidth)}  sandbox ${`${base}/sandbox${s.path}`.padEnd(sandboxWidth)}  production ${base}/gateway${s.path}`,
    ),
    `  Developer portal: ${base}/portal    OAuth 2.0 / OpenID Connect: ${base}/oauth2 (discovery: ${base}/oauth2/.well-known/openid-configuration)`,
    `  OpenAPI documents: <service URL>/openapi.json    health: ${base}/healthz    metrics: ${scrape}`,
    ...sandboxLines(config),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

const warn = (message: string) => process.stderr.write(`${message}\n`);

/** The metrics port, unless RSG_METRICS_PORT=off. */
function serveMetrics(config: Config, source: MetricsSource): Promise<MetricsServer | undefined> {
  if (!config.metrics) return Promise.resolve(undefined);
  return startMetricsServer(config.metrics.host, config.metrics.port, source, warn);
}

async function serve(config: Config, urls: Awaited<ReturnType<typeof prepareDatabases>>, quiet: boolean) {
  const runtime = await openRuntime(config, { urls: urls.urls, embedded: undefined }, { migrate: false });
  const metrics = new HttpMetrics(true);
  const app = await buildApp(runtime, { metrics });
  // Fastify logs "Server listening at …" as a JSON line; the banner below says the same for a person, so the
  // line is left out (the logger's level is back before the first request).
  const level = app.log.level;
  app.log.level = 'warn';
  try {
    await app.listen({ host: config.host, port: config.port });
  } finally {
    app.log.level = level;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  let metricsServer: MetricsServer | undefined;
  if (cluster.isWorker) {
    // The primary serves the metrics port and asks each worker for its registry over the cluster channel.
    AggregatorRegistry.setRegistries([metrics.registry]);
    new AggregatorRegistry();
  } else {
    metricsServer = await serveMetrics(config, {
      contentType: metrics.registry.contentType,
      collect: () => metrics.registry.metrics(),
    });
  }
  const jobs = config.jobs ? await startJobs(runtime, runtime.publicUrl.base, jobLog(app.log)) : undefined;
  if (!quiet) printReady(config, port, metricsServer);
  return {
    port,
    /**
     * Graceful shutdown: the listener closes (new connections are refused, so a load balancer goes to
     * another process), /readyz answers 503, idle keep-alive connections close, requests in flight are
     * answered (with `Connection: close`), then the jobs stop and the pools close. Connections still
     * open after RSG_SHUTDOWN_TIMEOUT_MS are cut.
     */
    async close() {
      app.log.info('shutting down: finishing requests in flight');
      const force = setTimeout(() => app.server.closeAllConnections(), config.shutdownTimeoutMs);
      try {
        await Promise.all([app.close(), jobs?.stop()]);
      } finally {
        clearTimeout(force);
        await metricsServer?.close();
        await runtime.close();
      }
    },
  };
}

/** Runs `stop` once on SIGTERM or SIGINT and exits 0 (1 if stopping failed). */
function onSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = () => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

function jobLog(log: { info(o: object, m: string): void; error(o: object, m: string): void }) {
  return { info: (o: object, m: string) => log.info(o, m), error: (o: object, m: string) => log.error(o, m) };
}

/**
 * `rsg worker [--once]`: the background jobs alone (watchlist fan-out and delivery, digests, sandbox
 * activity), beside one or more `rsg start` processes on the same databases; any number may run.
 * `--once` runs everything that is due, waits for deliveries in flight, and exits.
 */
export async function workerCommand(args: string[]): Promise<number> {
  let once = false;
  try {
    once = parseArgs({ args, options: { once: { type: 'boolean' } }, strict: true }).values.once === true;
  } catch (error) {
    throw new ConfigError('worker', (error as Error).message);
  }
  const config = loadConfig();
  const setup = await prepareDatabases(config);
  // Join the running gateway's clock as it is, unless the mode was asked for.
  const clockMode = process.env.RSG_SANDBOX_CLOCK ? config.sandboxClock : 'keep';
  const runtime = await openRuntime(config, setup, { clockMode }).catch(async (error: unknown) => {
    await setup.embedded?.stop();
    throw error;
  });
  const errors = (o: object, m: string) =>
    process.stderr.write(`${m}: ${redactText(String((o as { err?: Error }).err?.message ?? ''))}\n`);
  const jobs = await startJobs(runtime, baseUrl(config, config.port), { info: () => {}, error: errors });
  for (const [name, running] of jobs.running) {
    process.stdout.write(`${name}: ${running.describe()} (pid ${process.pid})\n`);
  }
  // SIGTERM: stop claiming, abort deliveries in flight (their watchlists are given back and the same
  // notifications are sent again, with the same webhook-id, by another worker), close the pools, exit 0.
  const stop = async () => {
    await jobs.stop();
    await runtime.close();
  };
  if (once) {
    await jobs.settle();
    await stop();
    return 0;
  }
  onSignals(stop);
  return 0;
}

export async function startCommand(args: string[]): Promise<number> {
  applyFlags(args);
  const config = loadConfig();
  if (cluster.isWorker) {
    const server = await serve(
      config,
      { urls: JSON.parse(process.env.RSG_RESOLVED_URLS ?? '{}'), embedded: undefined },
      true,
    );
    onSignals(() => server.close());
    return 0;
  }

  // The server secret first: a key file others can read stops the start before anything is started (and
  // before workers that would each stop on it, and be started again).
  loadServerKeys(config.variables, config.dataDir);
  // The typed client the portal serves (`/portal/downloads/client.tgz`): packed in the background when
  // missing or older than its sources, while the databases start; a failure is the download's to tell.
  clientPackage.ensure();
  const setup = await prepareDatabases(config, (line) => {
    if (config.logLevel === 'debug' || config.logLevel === 'trace')
      process.stderr.write(`postgres: ${line}\n`);
  });
  let firstStart: BootstrapResult | undefined;
  try {
    await migrateAll(setup.urls);
    const gateway = openDatabase(setup.urls.gateway, 2);
    firstStart = await bootstrapIfNeeded(gateway.pool, config.adminEmail, SERVICES).finally(() =>
      gateway.close(),
    );
    // Generators are idempotent: after the first start this finds every register in place.
    for (const summary of await seedSandbox(setup.urls, config.seedScale, (line) =>
      process.stderr.write(`${line}\n`),
    )) {
      process.stdout.write(`sandbox ${summary}\n`);
    }
    // A sandbox database made by this start holds its first seed alone: kept as its seeded state.
    await keepSeededState(config, setup, config.seedScale, { prepare: false });
  } catch (error) {
    await setup.embedded?.stop();
    throw error;
  }

  const stopEmbedded = async () => {
    await setup.embedded?.stop();
  };
  if (config.workers > 1) {
    if (!config.redisUrl) {
      process.stderr.write(
        `warning: ${config.workers} workers without REDIS_URL: each worker enforces rate limits and quotas on its own, so a client may get up to ${config.workers}× its limit.\n`,
      );
    }
    // One metrics port for the whole cluster: the primary sums every worker's figures (prom-client's
    // AggregatorRegistry), so a scraper needs one target however many workers run or restart.
    const aggregator = new AggregatorRegistry();
    const metricsServer = await serveMetrics(config, {
      contentType: aggregator.contentType,
      collect: () => aggregator.clusterMetrics(),
    });
    cluster.setupPrimary({ args: ['start', ...args] });
    for (let i = 0; i < config.workers; i++) {
      cluster.fork({ RSG_RESOLVED_URLS: JSON.stringify(setup.urls) });
    }
    let listening = 0;
    cluster.on('listening', (_worker, address) => {
      listening++;
      if (listening === config.workers) {
        printReady(config, address.port, metricsServer);
        if (firstStart) printBootstrap(firstStart, config, address.port);
      }
    });
    cluster.on('exit', (worker, code, signal) => {
      if (!stopping)
        process.stderr.write(`worker ${worker.process.pid} exited (${signal ?? code}); starting another\n`);
      if (!stopping) cluster.fork({ RSG_RESOLVED_URLS: JSON.stringify(setup.urls) });
    });
    let stopping = false;
    // Each worker shuts down gracefully on its own; the embedded server stops after the last one.
    onSignals(async () => {
      stopping = true;
      await metricsServer?.close();
      const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
      await Promise.all(
        workers.map(
          (worker) =>
            new Promise<void>((resolve) => {
              if (worker.isDead()) return resolve();
              worker.process.once('exit', () => resolve());
              worker.process.kill('SIGTERM');
            }),
        ),
      );
      await stopEmbedded();
    });
    return 0;
  }

  const server = await serve(config, setup, false).catch(async (error: unknown) => {
    await stopEmbedded();
    throw error;
  });
  if (firstStart) printBootstrap(firstStart, config, server.port);
  onSignals(async () => {
    await server.close();
    await stopEmbedded();
  });
  return 0;
}
