import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { BILLING_MIGRATIONS } from './billing/index.ts';
import { BillingJobs } from './billing/jobs/month-end.ts';
import { identityDirectory } from './billing/store/directory.ts';
import { PayerCache } from './billing/store/payer-cache.ts';
import { type Config, readSettings } from './config.ts';
import type { KeySlot, SubscriptionState } from './gateway/domain/subscriptions.ts';
import { CorsPolicies } from './gateway/http/cors-policies.ts';
import { forgetEnvironmentLimits } from './gateway/http/guard.ts';
import { KeyCache } from './gateway/http/key-cache.ts';
import { OrganisationResolver } from './gateway/http/organisation-resolver.ts';
import { TokenVerifier } from './gateway/http/tokens.ts';
import { Inspector } from './gateway/jobs/inspector.ts';
import { UsageRecorder } from './gateway/jobs/usage.ts';
import { changeState, regenerateKey, setSubscriptionScenario } from './gateway/operations/subscriptions.ts';
import { ensureProducts } from './gateway/store/products.ts';
import { setPasswordCost } from './identity/domain/passwords.ts';
import { OAUTH_PREFIX } from './identity/oauth/prefix.ts';
import { grantAuthority } from './identity/operations/authorities.ts';
import { addOrganisation } from './identity/operations/organisations.ts';
import { seedRegisterOrganisation } from './identity/operations/register-seed.ts';
import { ensureSigningKey } from './identity/operations/signing-keys.ts';
import { addMember } from './identity/store/memberships.ts';
import { findOrganisation } from './identity/store/organisations.ts';
import { listUsers } from './identity/store/users.ts';
import { GATEWAY_MIGRATIONS } from './migration-sources.ts';
import type { Clock, ClockMode } from './platform/clock.ts';
import { type EmbeddedServer, startEmbedded } from './platform/db/embedded.ts';
import { hasMigrations, type MigrationSource, migrate } from './platform/db/migrations.ts';
import { ChangeFeed } from './platform/db/notify.ts';
import { type Database, ensureDatabase, openDatabase } from './platform/db/pool.ts';
import { type DatabaseUrls, resolveDatabaseUrls } from './platform/db/urls.ts';
import { type DocumentsPlace, documentsRoot } from './platform/documents/location.ts';
import { Clocks, readClock } from './platform/environment-clocks.ts';
import { PublicUrl } from './platform/http/public-url.ts';
import { createLimitStore, type LimitStore } from './platform/limits/index.ts';
import { sendMail } from './platform/mail.ts';
import { keyedUniform } from './platform/random.ts';
import { SandboxParticipant } from './platform/sandbox/participant.ts';
import { SandboxStates } from './platform/sandbox/states.ts';
import { loadServerKeys, type ServerKeys } from './platform/server-keys.ts';
import { keptSetting, writeSetting } from './platform/store/settings.ts';
import {
  ENVIRONMENT_PREFIX,
  ENVIRONMENTS,
  type Environment,
  type JobContext,
  type RunningJobs,
  registersOf,
  type SeedIdentity,
  type SeedScale,
  type ServiceDefinition,
  type ServiceId,
} from './services/contract.ts';
import { type InvariantResult, runInvariants } from './services/invariants.ts';
import { SERVICES } from './services/registry.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Gateway database: platform settings and clocks, identity, then the gateway's own tables. */
export { GATEWAY_MIGRATIONS };

/**
 * Each environment's database holds the billing ledger (a platform module, first: services' migrations
 * may refer to its tables), the imports' checkpoints (platform/transfer/) and every service's tables.
 */
export const ENVIRONMENT_MIGRATIONS: MigrationSource[] = [
  { module: 'billing', dir: BILLING_MIGRATIONS },
  { module: 'transfer', dir: path.join(here, 'platform/transfer/migrations') },
  ...SERVICES.flatMap((service) =>
    service.migrations ? [{ module: service.id, dir: service.migrations }] : [],
  ),
];

/** Everything a running gateway process holds: databases, limits, clocks, caches. */
export interface Runtime {
  config: Config;
  /** The services this gateway serves (the composition root's list, handed to every layer that needs it). */
  services: readonly ServiceDefinition[];
  urls: DatabaseUrls;
  gateway: Database;
  environments: Record<Environment, Database>;
  feed: ChangeFeed;
  /** Billing's payer rule in memory (users' organisations), kept while it hears membership changes. */
  payers: PayerCache;
  limits: LimitStore;
  clocks: Clocks;
  /**
   * This process's part in a sandbox reset, snapshot or restore (platform/sandbox/participant.ts): the
   * gate sandbox requests pass, and the pause and resume every process hears on the change feed.
   */
  sandbox: SandboxParticipant;
  /** The sandbox's reset, snapshots and restores (platform/sandbox/states.ts), run from this process. */
  sandboxStates: SandboxStates;
  keys: KeyCache;
  /** Each product's CORS policy, reloaded on every product change notice. */
  cors: CorsPolicies;
  /** Changes that must take effect in this process at once (other processes hear the change notice). */
  subscriptions: {
    regenerateKey(subscriptionId: string, slot: KeySlot): Promise<string>;
    changeState(subscriptionId: string, state: SubscriptionState): Promise<void>;
    /** The subscription's fault scenario set (or, with null or blank text, cleared); as stored. */
    setScenario(subscriptionId: string, text: string | null): Promise<string | null>;
  };
  usage: UsageRecorder;
  /** The request inspector's writer: each subscription's last calls, redacted, written every 5 s. */
  inspector: Inspector;
  tokens: TokenVerifier;
  organisations: OrganisationResolver;
  /** The base of every absolute URL the gateway makes: RSG_PUBLIC_URL, else the listen address. */
  publicUrl: PublicUrl;
  /** The authorization server's issuer: `<public URL>/oauth2`. */
  issuer: string;
  secret: string;
  keyedUniform(key: string): number;
  /**
   * The server secret that keys and encrypts stored secrets (platform/server-keys.ts): from the
   * environment or the data folder's key file, never from a database it protects.
   */
  serverKeys: ServerKeys;
  close(): Promise<void>;
}

export interface DatabaseSetup {
  urls: DatabaseUrls;
  embedded: EmbeddedServer | undefined;
  /**
   * The sandbox database was created by this setup, or had never been migrated (a first start): its
   * first seed is its seeded state.
   */
  freshSandbox?: boolean;
}

/** Starts (or attaches to) the embedded server unless DATABASE_URL is set, and creates the databases. */
export async function prepareDatabases(
  config: Config,
  log: (line: string) => void = () => {},
): Promise<DatabaseSetup> {
  const embedded = config.databaseUrl
    ? undefined
    : await startEmbedded({ dataDir: config.dataDir, port: config.embeddedPgPort, log });
  const urls = resolveDatabaseUrls({
    serverUrl: embedded?.serverUrl,
    databaseUrl: config.databaseUrl,
    sandboxDatabaseUrl: config.sandboxDatabaseUrl,
    productionDatabaseUrl: config.productionDatabaseUrl,
  });
  await ensureDatabase(urls.gateway);
  const created = await ensureDatabase(urls.sandbox);
  await ensureDatabase(urls.production);
  return { urls, embedded, freshSandbox: created || !(await migrated(urls.sandbox)) };
}

/** Whether any migration was ever applied to the database at `url`. */
async function migrated(url: string): Promise<boolean> {
  const database = openDatabase(url, 1);
  try {
    return await hasMigrations(database.pool);
  } finally {
    await database.close();
  }
}

export async function migrateAll(urls: DatabaseUrls): Promise<string[]> {
  const applied: string[] = [];
  const targets: [string, MigrationSource[]][] = [
    [urls.gateway, GATEWAY_MIGRATIONS],
    [urls.sandbox, ENVIRONMENT_MIGRATIONS],
    [urls.production, ENVIRONMENT_MIGRATIONS],
  ];
  for (const [url, sources] of targets) {
    const database = openDatabase(url, 2);
    try {
      const result = await migrate(database.pool, sources);
      // The products follow the service registry: a new service gets its two products here.
      if (url === urls.gateway) await ensureProducts(database.pool, SERVICES);
      applied.push(...result.applied.map((name) => `${new URL(url).pathname.slice(1)}: ${name}`));
    } finally {
      await database.close();
    }
  }
  return applied;
}

/** The sandbox organisation every operator belongs to (the offers register's `x-organisation` for them). */
export const OPERATORS_ORGANISATION = 'sandbox-operators';

/**
 * Runs every service's sandbox generator (each is idempotent per scale), on the sandbox clock unless
 * `options.clock` is given (a fresh seeded state is made on real time): the business number register
 * first (the others draw their businesses from it), then the others side by side.
 */
export async function seedSandbox(
  urls: DatabaseUrls,
  scale: SeedScale,
  log: (line: string) => void = () => {},
  options: { clock?: Clock } = {},
): Promise<string[]> {
  // A connection for each register seeded side by side, and some to spare; a seed that waits for one,
  // or for a server busy with the others' loads, waits rather than fails.
  const acquireTimeoutMs = 120_000;
  const gateway = openDatabase(urls.gateway, { max: 2, acquireTimeoutMs });
  const sandbox = openDatabase(urls.sandbox, { max: 6, acquireTimeoutMs });
  try {
    const reading = await readClock(gateway.pool, 'sandbox');
    const offset = reading.mode === 'virtual' ? reading.now.getTime() - Date.now() : 0;
    const clock = options.clock ?? {
      now: () => (reading.frozen ? new Date(reading.now) : new Date(Date.now() + offset)),
    };
    // Made once a seed (registers seeded side by side ask for it at the same time).
    let operatorsOrganisation: Promise<string> | undefined;
    const operatorsOrganisationId = () => {
      operatorsOrganisation ??= findOrAddOperatorsOrganisation();
      return operatorsOrganisation;
    };
    const findOrAddOperatorsOrganisation = async () => {
      const organisation =
        (await findOrganisation(gateway.pool, 'sandbox', OPERATORS_ORGANISATION)) ??
        (await addOrganisation(gateway.pool, {
          environment: 'sandbox',
          identifier: OPERATORS_ORGANISATION,
          name: 'Sandbox operators',
        }));
      for (const user of (await listUsers(gateway.pool)).filter((u) => u.isOperator)) {
        await addMember(gateway.pool, organisation.id, user.id, 'owner');
      }
      return organisation.id;
    };
    const identity: SeedIdentity = {
      async grantOperatorsAuthority(service, kind, objectId) {
        for (const user of (await listUsers(gateway.pool)).filter((u) => u.isOperator)) {
          await grantAuthority(
            gateway.pool,
            { environment: 'sandbox', service, kind, id: objectId },
            { userId: user.id },
            { at: clock.now() },
          );
        }
      },
      async grantOperatorsOrganisationAuthority(service, kind, objectId) {
        await grantAuthority(
          gateway.pool,
          { environment: 'sandbox', service, kind, id: objectId },
          { organisationId: await operatorsOrganisationId() },
          { at: clock.now() },
        );
        return OPERATORS_ORGANISATION;
      },
      operatorsOrganisationId,
      async seedOrganisation(organisation) {
        await seedRegisterOrganisation(gateway.pool, organisation, clock.now());
      },
    };
    const registers = registersOf(SERVICES, sandbox);
    const seed = async (service: ServiceDefinition) => {
      try {
        return (
          (await service.seed?.({ database: sandbox, scale, clock, log, identity, registers })) ?? undefined
        );
      } catch (error) {
        // Told at once: the registers seeded beside it go on, and the seed fails when they are done.
        log(`${service.id}: the seed failed: ${(error as Error).message}`);
        throw error;
      }
    };
    // The registers others ask (the business number register) first; then the rest side by side: each
    // alternates between generating (this process) and loading (the database server), so together they
    // keep both busy.
    const first = SERVICES.filter((service) => service.businessNumberRegister);
    const summaries = new Map<ServiceId, string | undefined>();
    for (const service of first) summaries.set(service.id, await seed(service));
    const rest = SERVICES.filter((service) => !first.includes(service));
    const seeded = await Promise.allSettled(rest.map(seed));
    seeded.forEach((result, i) => {
      if (result.status === 'fulfilled') summaries.set(rest[i]!.id, result.value);
    });
    const failed = seeded.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    return SERVICES.flatMap((service) => {
      const summary = summaries.get(service.id);
      return summary ? [`${service.id}: ${summary}`] : [];
    });
  } finally {
    await Promise.all([gateway.close(), sandbox.close()]);
  }
}

/**
 * Checks the sandbox registers against their invariants (`ServiceDefinition.invariants`): of every
 * service, or of those named. Reads only.
 */
export async function checkSandbox(
  urls: DatabaseUrls,
  only?: readonly ServiceId[],
): Promise<InvariantResult[]> {
  const gateway = openDatabase(urls.gateway, 1);
  const sandbox = openDatabase(urls.sandbox, 4);
  try {
    const reading = await readClock(gateway.pool, 'sandbox');
    const clock = { now: () => new Date(reading.now) };
    const services = only ? SERVICES.filter((s) => only.includes(s.id)) : SERVICES;
    return await runInvariants(services, () => ({
      database: sandbox,
      clock,
      registers: registersOf(SERVICES, sandbox),
    }));
  } finally {
    await Promise.all([gateway.close(), sandbox.close()]);
  }
}

/** The name the keyed-random secret is kept under in the platform's settings. */
const SECRET_SETTING = 'keyed_random_secret';

/** The keyed-random secret: made on the first start, the same for every process afterwards. */
function serverSecret(database: Database): Promise<string> {
  return keptSetting(database.pool, SECRET_SETTING, randomBytes(32).toString('base64url'));
}

/**
 * Migrates throwaway databases and gives their gateway a known server secret before a runtime opens
 * them: the response-example recorder's (src/portal/examples), so that what is keyed by the secret (the
 * rental statistics' random rounding) repeats from one recording to the next. Never for a deployment.
 */
export async function presetServerSecret(urls: DatabaseUrls, secret: string): Promise<void> {
  await migrateAll(urls);
  const database = openDatabase(urls.gateway, 1);
  try {
    await writeSetting(database.pool, SECRET_SETTING, secret);
  } finally {
    await database.close();
  }
}

/** The sandbox generators' folders (`sandbox/` beside each seeded service's migrations). */
/** Where the registers that keep files keep them (one folder per database under each). */
export function documentPlaces(services: readonly ServiceDefinition[] = SERVICES): DocumentsPlace[] {
  return services.flatMap((service) => (service.documents ? [service.documents] : []));
}

export function generatorFolders(services: readonly ServiceDefinition[] = SERVICES): string[] {
  return services.flatMap((service) =>
    service.seed && service.migrations ? [path.join(path.dirname(service.migrations), 'sandbox')] : [],
  );
}

/**
 * The sandbox's reset, snapshots and restores on these databases (platform/sandbox/states.ts): seeded
 * states made with this gateway's generators and migrations. A serving process gives its participant
 * and limit store (`openRuntime`); `rsg sandbox` gives its limit store only.
 */
export function openSandboxStates(
  urls: DatabaseUrls,
  gateway: Database,
  options: {
    graceMs: number;
    participant?: SandboxParticipant;
    limits?: LimitStore;
    log?: (line: string) => void;
  },
): SandboxStates {
  const { limits } = options;
  return new SandboxStates({
    sandboxUrl: urls.sandbox,
    gatewayUrl: urls.gateway,
    gateway: gateway.pool,
    migrations: ENVIRONMENT_MIGRATIONS,
    generators: generatorFolders(SERVICES),
    documentRoots: documentPlaces().map((place) => documentsRoot(place)),
    seed: async (url, scale, clock) => {
      await seedSandbox({ ...urls, sandbox: url }, scale as SeedScale, options.log, { clock });
    },
    participant: options.participant,
    afterReplace: limits ? () => forgetEnvironmentLimits(limits, 'sandbox') : undefined,
    graceMs: options.graceMs,
    log: options.log,
  });
}

/**
 * The limit store of a gateway whose database holds `secret` (`REDIS_URL`, else this process's memory):
 * what `rsg sandbox` forgets the sandbox's counts in, as the serving processes do.
 */
export async function openLimitStore(config: Config, gateway: Database): Promise<LimitStore> {
  const limits = createLimitStore(config.redisUrl, limitPrefix(await serverSecret(gateway)), {
    commandTimeoutMs: config.redisTimeoutMs,
  });
  await limits.ready?.();
  return limits;
}

function limitPrefix(secret: string): string {
  return `rsg:${createHash('sha256').update(`limits:${secret}`).digest('hex').slice(0, 16)}:`;
}

export async function openRuntime(
  config: Config,
  setup: DatabaseSetup,
  options: {
    migrate?: boolean;
    clockMode?: ClockMode | 'keep';
    /** Told when a database becomes unreachable and when it answers again (for the log). */
    onDatabaseHealth?: (database: string, state: 'down' | 'up', reason: string) => void;
  } = {},
): Promise<Runtime> {
  const { urls } = setup;
  setPasswordCost(config.passwordCost);
  // First: a key file that is missing is made, one readable by others stops the start.
  const serverKeys = loadServerKeys(config.variables, config.dataDir).keys;
  const healthLog = pino({ level: config.logLevel, base: { pid: process.pid } });
  const logDatabaseHealth = (database: string, state: 'down' | 'up', reason: string) => {
    if (state === 'down') {
      healthLog.warn(
        { database, reason },
        'database unreachable: requests answer 503 and jobs pause until it is back',
      );
    } else healthLog.info({ database }, `database reachable again ${reason}: serving`);
  };
  if (options.migrate !== false) await migrateAll(urls);
  const pools = (name: string) => ({
    name,
    max: config.database.poolSize,
    acquireTimeoutMs: config.database.acquireTimeoutMs,
    statementTimeoutMs: config.database.statementTimeoutMs,
    onHealth: (state: 'down' | 'up', reason: string) =>
      (options.onDatabaseHealth ?? logDatabaseHealth)(name, state, reason),
  });
  const gateway = openDatabase(urls.gateway, pools('gateway'));
  const environments = {
    sandbox: openDatabase(urls.sandbox, pools('sandbox')),
    production: openDatabase(urls.production, pools('production')),
  };
  const feed = new ChangeFeed(urls.gateway);
  await feed.start();
  const payers = new PayerCache(urls.gateway);
  await payers.start();
  const clocks = new Clocks(gateway.pool);
  const mode = options.clockMode ?? config.sandboxClock;
  await clocks.start(mode === 'keep' ? undefined : mode, feed);
  const sandbox = new SandboxParticipant({
    database: environments.sandbox,
    gateway: gateway.pool,
    graceMs: config.sandboxReset.graceMs,
    waitMs: config.sandboxReset.waitMs,
    log: (message, error) => healthLog.warn({ err: error }, message),
  });
  const stopListening = sandbox.listen(feed);
  const secret = await serverSecret(gateway);
  await ensureSigningKey(gateway.pool);
  const publicUrl = new PublicUrl(config.publicUrl, config.host, config.port);
  const issuer = publicUrl.absolute(OAUTH_PREFIX);
  // Retired keys stay published for the longest token lifetime, so their tokens keep verifying.
  const publishedFor = Math.max(config.oauth.accessTokenTtl, config.oauth.refreshTokenTtl);
  const tokens = new TokenVerifier(gateway.pool, issuer, config.oauth.resourceBase, publishedFor, feed);
  await tokens.reload();
  // Two gateways may share one Redis: each keeps its counters under a prefix derived from its own
  // database's secret, so one deployment's sign-up throttle or rate window never spends another's.
  // Redis going away never stops requests: see platform/limits/redis.ts (decisions fall back to this
  // process alone until it is back).
  const limits = createLimitStore(config.redisUrl, limitPrefix(secret), {
    commandTimeoutMs: config.redisTimeoutMs,
  });
  await limits.ready?.();
  // After a reset or restore: the sandbox clock as it was put back, and none of the sandbox's counts.
  sandbox.add({
    resume: async () => {
      await clocks.reload();
      await forgetEnvironmentLimits(limits, 'sandbox');
    },
  });
  const usage = new UsageRecorder(gateway.pool);
  const inspector = new Inspector(gateway.pool, {
    flushEveryMs: config.inspector.enabled ? 5_000 : 0,
    log: (message, error) => healthLog.warn({ err: error }, message),
  });
  const keys = new KeyCache(gateway.pool, config.keyCacheMs, feed);
  const cors = new CorsPolicies(gateway.pool, feed);
  await cors.reload();
  const sandboxStates = openSandboxStates(urls, gateway, {
    graceMs: config.sandboxReset.graceMs,
    participant: sandbox,
    limits,
    log: (line) => healthLog.info(line),
  });
  return {
    config,
    services: SERVICES,
    urls,
    gateway,
    environments,
    feed,
    payers,
    limits,
    clocks,
    sandbox,
    sandboxStates,
    keys,
    cors,
    subscriptions: {
      async regenerateKey(subscriptionId, slot) {
        const key = await regenerateKey(gateway.pool, subscriptionId, slot);
        keys.forgetSubscription(subscriptionId);
        return key;
      },
      async changeState(subscriptionId, state) {
        await changeState(gateway.pool, subscriptionId, state);
        keys.forgetSubscription(subscriptionId);
      },
      async setScenario(subscriptionId, text) {
        const scenario = await setSubscriptionScenario(gateway.pool, subscriptionId, text);
        keys.forgetSubscription(subscriptionId);
        return scenario;
      },
    },
    usage,
    inspector,
    tokens,
    organisations: new OrganisationResolver(gateway.pool),
    publicUrl,
    issuer,
    secret,
    keyedUniform: (key) => keyedUniform(secret, key),
    serverKeys,
    async close() {
      stopListening();
      await sandbox.close();
      await sandboxStates.settled();
      cors.close();
      await usage.close();
      await inspector.close();
      await feed.close();
      await payers.close();
      await limits.close();
      await Promise.all([gateway.close(), environments.sandbox.close(), environments.production.close()]);
      await setup.embedded?.stop();
    },
  };
}

export interface JobsHandle {
  /** `<environment>-<service>` → that service's jobs in that environment. */
  running: Map<string, RunningJobs>;
  /** Runs every job until nothing is due or in flight (tests, `rsg worker --once`). */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts every service's background jobs in both environments in this process. `base` is the address
 * callers use (links in notifications and emails). The sandbox's stop while a reset or restore holds
 * the sandbox (their runs in flight finish, within the grace) and start again once it is back.
 */
export async function startJobs(
  runtime: Runtime,
  base: string,
  log: JobContext['log'] = { info: () => {}, error: () => {} },
): Promise<JobsHandle> {
  const running = new Map<string, RunningJobs>();
  const unsubscribe: Record<Environment, Array<() => void>> = { sandbox: [], production: [] };
  const stopEnvironment = async (environment: Environment) => {
    for (const off of unsubscribe[environment].splice(0)) off();
    const stopping = [...running].filter(([name]) => name.startsWith(`${environment}-`));
    for (const [name] of stopping) running.delete(name);
    await Promise.allSettled(stopping.map(([, jobs]) => jobs.stop()));
  };
  try {
    for (const environment of ENVIRONMENTS) {
      for (const [name, jobs] of await environmentJobs(
        runtime,
        environment,
        base,
        log,
        unsubscribe[environment],
      )) {
        running.set(name, jobs);
      }
    }
  } catch (error) {
    await Promise.allSettled(ENVIRONMENTS.map(stopEnvironment));
    throw error;
  }
  const removeHooks = runtime.sandbox.add({
    pause: () => stopEnvironment('sandbox'),
    resume: async () => {
      for (const [name, jobs] of await environmentJobs(runtime, 'sandbox', base, log, unsubscribe.sandbox)) {
        running.set(name, jobs);
      }
    },
  });
  return {
    running,
    async settle() {
      for (const jobs of running.values()) await jobs.settle();
    },
    async stop() {
      removeHooks();
      await Promise.allSettled(ENVIRONMENTS.map(stopEnvironment));
    },
  };
}

/** Starts every service's jobs and billing's month end in one environment; `unsubscribe` gets its clock handlers. */
async function environmentJobs(
  runtime: Runtime,
  environment: Environment,
  base: string,
  log: JobContext['log'],
  unsubscribe: Array<() => void>,
): Promise<Map<string, RunningJobs>> {
  const started = new Map<string, RunningJobs>();
  const mail = {
    pool: runtime.gateway.pool,
    smtpUrl: runtime.config.smtpUrl,
    from: runtime.config.mailFrom,
    environment,
  };
  // Production runs on real time: only the sandbox clock moves.
  const onClockMoved = (handler: () => void) => {
    if (environment === 'sandbox') unsubscribe.push(runtime.clocks.onSandboxMoved(handler));
  };
  const send = async (message: { to: string; subject: string; text: string }) => {
    await sendMail(mail, message);
  };
  try {
    for (const service of SERVICES) {
      if (!service.jobs) continue;
      const jobs = await service.jobs({
        environment,
        database: runtime.environments[environment],
        clock: runtime.clocks.for(environment),
        apiBase: `${base}${ENVIRONMENT_PREFIX[environment]}${service.path}`,
        mail: send,
        onClockMoved,
        keyedUniform: runtime.keyedUniform,
        settings: readSettings(runtime.config.variables, service.settings),
        registers: registersOf(runtime.services, runtime.environments[environment]),
        log,
      });
      started.set(`${environment}-${service.id}`, jobs);
    }
    // Billing is a platform module: its month end runs beside the services' jobs.
    const billing = new BillingJobs(
      {
        environment,
        database: runtime.environments[environment],
        clock: runtime.clocks.for(environment),
        mail: send,
        onClockMoved,
        log,
      },
      { directory: identityDirectory(runtime.gateway.pool), portalUrl: `${base}/portal/billing` },
    );
    billing.start();
    started.set(`${environment}-billing`, billing);
  } catch (error) {
    await Promise.allSettled([...started.values()].map((jobs) => jobs.stop()));
    throw error;
  }
  return started;
}
