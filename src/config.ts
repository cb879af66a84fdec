import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import {
  DEFAULT_FEE_SCHEDULE,
  type FeeSchedule,
  parseFeeScheduleOverrides,
} from './billing/domain/fee-schedule.ts';
import { DEFAULT_PASSWORD_COST } from './identity/domain/passwords.ts';
import type { ServiceSetting, UserRateLimit } from './services/contract.ts';

/**
 * One typed configuration, read from environment variables (and CLI flags, which the CLI folds into the
 * same variables before calling `loadConfig`). A wrong value stops the program with one line that names
 * the variable and the rule: `ConfigError`.
 */
export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** Gateway state (users, subscriptions, keys, usage). Unset: the embedded server. */
  databaseUrl: string | undefined;
  sandboxDatabaseUrl: string | undefined;
  productionDatabaseUrl: string | undefined;
  /** Port of the embedded PostgreSQL server when no DATABASE_URL is given. */
  embeddedPgPort: number;
  redisUrl: string | undefined;
  /** scrypt cost of new password hashes, log2 N (`RSG_PASSWORD_COST`, 10–20, default 15). */
  passwordCost: number;
  /** Longest wait for one Redis call before a rate-limit decision is made in this process (ms). */
  redisTimeoutMs: number;
  sandboxClock: 'real' | 'virtual';
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  workers: number;
  /** `/metrics` without a key on its own port (loopback by default); undefined: `RSG_METRICS_PORT=off`. */
  metrics: { host: string; port: number } | undefined;
  /**
   * `RSG_PUBLIC_URL`: the base of every absolute URL the gateway makes (links, signed download URLs,
   * WSDL addresses, the OAuth issuer, mail). Unset: the listen address (runtime.publicUrl).
   */
  publicUrl: string | undefined;
  /**
   * `RSG_TRUSTED_PROXIES`: addresses or CIDR ranges of the proxies whose X-Forwarded-For and
   * X-Forwarded-Proto are believed (the client's address in sign-in throttles and logs). Empty: none.
   */
  trustedProxies: string[];
  adminEmail: string;
  seedScale: 'small' | 'full';
  /** Milliseconds that a key lookup may be served from the in-process cache (invalidated on change). */
  keyCacheMs: number;
  /** Outgoing mail: SMTP when set (smtp:// or smtps://); every message is also kept in the outbox. */
  smtpUrl: string | undefined;
  /** The From address of outgoing mail. */
  mailFrom: string;
  /** Run the services' background jobs (watchlist fan-out and delivery, sandbox activity) in this process. */
  jobs: boolean;
  /** Graceful shutdown: how long requests in flight may take before their connections are cut. */
  shutdownTimeoutMs: number;
  /** Sandbox: simulate the source registers' Wednesday 21:00–23:00 (New Zealand) maintenance window. */
  sandboxMaintenance: boolean;
  /**
   * The request inspector (gateway/jobs/inspector.ts): `RSG_INSPECTOR` (on by default) records each
   * subscription's last calls, redacted; production keeps metadata only unless
   * `RSG_INSPECTOR_PRODUCTION_BODIES=on`.
   */
  inspector: { enabled: boolean; productionBodies: boolean };
  /**
   * Sandbox reset, snapshot and restore (platform/sandbox/): how long requests and jobs in flight may
   * take to finish before the sandbox database is let go of (`RSG_SANDBOX_RESET_GRACE_MS`), and how
   * long a sandbox request that arrives meanwhile waits before it is answered 503
   * (`RSG_SANDBOX_RESET_WAIT_MS`).
   */
  sandboxReset: { graceMs: number; waitMs: number };
  /**
   * Request bodies (platform/http/body-deadline.ts): the time any body may take to arrive
   * (`RSG_BODY_TIMEOUT_MS`), and the average rate, bytes a second, at which a large upload may take
   * longer (`RSG_UPLOAD_MIN_RATE`).
   */
  bodies: { timeoutMs: number; uploadMinRate: number };
  /**
   * The variables the configuration was read from: the services' own settings
   * (`ServiceDefinition.settings`) are read from them with `readSettings`.
   */
  variables: Readonly<Env>;
  /** Connection pools of a serving process (each of the three databases has its own). */
  database: {
    /** Connections per database at most. */
    poolSize: number;
    /** Milliseconds a request waits for a connection before it is answered 503. */
    acquireTimeoutMs: number;
    /** Server-side statement timeout for requests and jobs, in milliseconds (0: none). */
    statementTimeoutMs: number;
  };
  /** Fees (billing/): charging on or off (`RSG_FEES`), and the schedule with the operator's overrides. */
  fees: {
    enabled: boolean;
    schedule: FeeSchedule;
    /** The overrides file (`RSG_FEE_SCHEDULE`), when one is given. */
    overrides: string | undefined;
  };
  oauth: {
    /** Base of the resource (audience) names: `<base>/gateway` and `<base>/sandbox`, as the public gateway's. */
    resourceBase: string;
    accessTokenTtl: number;
    refreshTokenTtl: number;
    authorizationCodeTtl: number;
    sessionTtl: number;
  };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    readonly rule: string,
  ) {
    super(`${variable}: ${rule}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** A service's settings (services/contract.ts) read from `variables`, checked like every other setting. */
export function readSettings(
  variables: Readonly<Env>,
  settings: Readonly<Record<string, ServiceSetting>> = {},
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(settings).map(([name, setting]) => [
      name,
      integer(variables, setting.variable, setting.default, setting.min, setting.max),
    ]),
  );
}

/**
 * A service's per-user limit (`ServiceDefinition.userRateLimit`) in calls per minute: its variable when
 * set (0 to 1,000,000), else its default; undefined when the service has none or it is 0 (off).
 */
export function readUserRateLimit(
  variables: Readonly<Env>,
  limit: UserRateLimit | undefined,
): number | undefined {
  if (!limit) return undefined;
  const perMinute = limit.variable
    ? integer(variables, limit.variable, limit.perMinute, 0, 1_000_000)
    : limit.perMinute;
  return perMinute > 0 ? perMinute : undefined;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw))
    throw new ConfigError(name, `must be a whole number from ${min} to ${max}, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function url(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be a URL such as ${protocols[0]}//host:port/name`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

/** A comma-separated list of IP addresses and CIDR ranges (`10.0.0.0/8`, `::1`). */
function addresses(env: Env, name: string): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split(',').map((item) => {
    const entry = item.trim();
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (!family || !prefixOk || rest.length)
      throw new ConfigError(name, `must be IP addresses or CIDR ranges separated by commas, got "${entry}"`);
    return entry;
  });
}

function email(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[^\s@]+@[^\s@]+$/.test(raw)) throw new ConfigError(name, `must be an email address, got "${raw}"`);
  return raw.toLowerCase();
}

/** The defaults, with the amounts of the JSON file `RSG_FEE_SCHEDULE` over them (billing/README.md). */
function feeSchedule(env: Env, cwd: string): { schedule: FeeSchedule; overrides: string | undefined } {
  const raw = env.RSG_FEE_SCHEDULE;
  if (raw === undefined || raw === '') return { schedule: DEFAULT_FEE_SCHEDULE, overrides: undefined };
  const file = path.resolve(cwd, raw);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError('RSG_FEE_SCHEDULE', `cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return { schedule: parseFeeScheduleOverrides(text), overrides: file };
  } catch (error) {
    throw new ConfigError('RSG_FEE_SCHEDULE', `${file}: ${(error as Error).message}`);
  }
}

function metricsListener(env: Env): Config['metrics'] {
  const raw = env.RSG_METRICS_PORT;
  if (raw === 'off') return undefined;
  try {
    return {
      host: env.RSG_METRICS_HOST || '127.0.0.1',
      port: integer(env, 'RSG_METRICS_PORT', 9464, 0, 65535),
    };
  } catch {
    throw new ConfigError('RSG_METRICS_PORT', `must be off or a whole number from 0 to 65535, got "${raw}"`);
  }
}

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const pg = ['postgres:', 'postgresql:'] as const;
  const publicUrl = url(env, 'RSG_PUBLIC_URL', ['http:', 'https:']);
  return {
    host: env.HOST || '127.0.0.1',
    port: integer(env, 'PORT', 8080, 0, 65535),
    dataDir: path.resolve(cwd, env.RSG_DATA_DIR || 'data'),
    databaseUrl: url(env, 'DATABASE_URL', pg),
    sandboxDatabaseUrl: url(env, 'SANDBOX_DATABASE_URL', pg),
    productionDatabaseUrl: url(env, 'PRODUCTION_DATABASE_URL', pg),
    embeddedPgPort: integer(env, 'RSG_EMBEDDED_PG_PORT', 54329, 1024, 65535),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisTimeoutMs: integer(env, 'RSG_REDIS_TIMEOUT_MS', 250, 10, 60_000),
    passwordCost: integer(env, 'RSG_PASSWORD_COST', DEFAULT_PASSWORD_COST, 10, 20),
    sandboxClock: oneOf(env, 'RSG_SANDBOX_CLOCK', ['real', 'virtual'] as const, 'real'),
    logLevel: oneOf(
      env,
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
      'info',
    ),
    workers: integer(env, 'RSG_WORKERS', 1, 1, 64),
    metrics: metricsListener(env),
    publicUrl: publicUrl?.replace(/\/+$/, ''),
    trustedProxies: addresses(env, 'RSG_TRUSTED_PROXIES'),
    adminEmail: email(env, 'RSG_ADMIN_EMAIL', 'admin@localhost'),
    seedScale: oneOf(env, 'RSG_SEED_SCALE', ['small', 'full'] as const, 'small'),
    keyCacheMs: integer(env, 'RSG_KEY_CACHE_MS', 30_000, 0, 3_600_000),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: email(env, 'RSG_MAIL_FROM', 'no-reply@localhost'),
    jobs: oneOf(env, 'RSG_JOBS', ['on', 'off'] as const, 'on') === 'on',
    shutdownTimeoutMs: integer(env, 'RSG_SHUTDOWN_TIMEOUT_MS', 30_000, 0, 600_000),
    sandboxMaintenance: oneOf(env, 'RSG_SANDBOX_MAINTENANCE', ['on', 'off'] as const, 'off') === 'on',
    inspector: {
      enabled: oneOf(env, 'RSG_INSPECTOR', ['on', 'off'] as const, 'on') === 'on',
      productionBodies: oneOf(env, 'RSG_INSPECTOR_PRODUCTION_BODIES', ['on', 'off'] as const, 'off') === 'on',
    },
    sandboxReset: {
      graceMs: integer(env, 'RSG_SANDBOX_RESET_GRACE_MS', 1_000, 0, 60_000),
      waitMs: integer(env, 'RSG_SANDBOX_RESET_WAIT_MS', 10_000, 0, 600_000),
    },
    bodies: {
      timeoutMs: integer(env, 'RSG_BODY_TIMEOUT_MS', 30_000, 100, 600_000),
      uploadMinRate: integer(env, 'RSG_UPLOAD_MIN_RATE', 65_536, 0, 1_073_741_824),
    },
    variables: { ...env },
    database: {
      poolSize: integer(env, 'RSG_DB_POOL_SIZE', 10, 1, 1000),
      acquireTimeoutMs: integer(env, 'RSG_DB_ACQUIRE_TIMEOUT_MS', 5_000, 10, 600_000),
      statementTimeoutMs: integer(env, 'RSG_DB_STATEMENT_TIMEOUT_MS', 30_000, 0, 86_400_000),
    },
    fees: {
      enabled: oneOf(env, 'RSG_FEES', ['on', 'off'] as const, 'on') === 'on',
      ...feeSchedule(env, cwd),
    },
    oauth: {
      resourceBase: (
        url(env, 'RSG_OAUTH_RESOURCE_BASE', ['https:', 'http:']) ?? 'https://api.business.govt.nz'
      ).replace(/\/+$/, ''),
      accessTokenTtl: integer(env, 'RSG_OAUTH_ACCESS_TOKEN_TTL', 3600, 60, 86_400),
      refreshTokenTtl: integer(env, 'RSG_OAUTH_REFRESH_TOKEN_TTL', 14 * 86_400, 300, 365 * 86_400),
      authorizationCodeTtl: integer(env, 'RSG_OAUTH_CODE_TTL', 60, 10, 600),
      sessionTtl: integer(env, 'RSG_OAUTH_SESSION_TTL', 86_400, 300, 30 * 86_400),
    },
  };
}
