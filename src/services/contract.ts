/**
 * The service contract: the types and constants every layer may import (environments, service ids,
 * what a service definition holds, what its jobs, seed hook and commands are given, its settings). The list of services is apart
 * from it, in registry.ts, which only the composition root (app, runtime, CLI) imports; so a service's
 * own modules never import the list that imports them.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../gateway/service-context.ts';
import type { BulkManifest } from '../platform/bulk-files.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/pool.ts';
import type { DocumentsPlace } from '../platform/documents/location.ts';
import type { Dialect, ErrorCode } from '../platform/http/error-codes.ts';

export type Environment = 'sandbox' | 'production';
export const ENVIRONMENTS: readonly Environment[] = ['sandbox', 'production'];
export const ENVIRONMENT_PREFIX: Record<Environment, string> = {
  production: '/gateway',
  sandbox: '/sandbox',
};

export type ServiceId = 'nzbn' | 'market-rent' | 'iponz' | 'ppsr' | 'disclose';

export interface ServiceDefinition {
  id: ServiceId;
  title: string;
  /** Path behind the environment prefix, as the public gateway publishes it. */
  path: string;
  version: string;
  /** The error dialect of this API (gateway-level errors are always API Management's). */
  dialect: Dialect;
  /**
   * The service's own error codes, beside the gateway's and the platform's (platform/http/error-codes.ts):
   * all of them are listed in its OpenAPI document as `x-error-codes` and in its README.
   */
  errorCodes?: readonly ErrorCode[];
  /**
   * Markdown shown first in the service's reference (its OpenAPI document's `info.description`): what a
   * client must know that no single operation says, such as operations replaced.
   */
  description?: string;
  /**
   * The register's rules accept direct credit for its fees (a prepaid account, billing/fees.ts) beside a
   * direct debit authority: the IP office's do ("direct debit or direct credit"); the rest need a direct
   * debit authority in production.
   */
  acceptsDirectCredit?: boolean;
  /** Top-level additions to the service's OpenAPI document (e.g. `webhooks` it sends). */
  openapi?: Record<string, unknown>;
  /** Routes of the service, mounted once per environment. */
  routes?: FastifyPluginAsync<ServiceContext>;
  /**
   * Routes answered without a key (an online register's public pages, signed document URLs), mounted
   * under the same prefix beside the guarded ones. They must hide themselves from the OpenAPI document.
   */
  publicRoutes?: FastifyPluginAsync<ServiceContext>;
  /** The rules its generated sandbox keeps (`rsg sandbox check`). */
  invariants?: readonly SandboxInvariant[];
  /** Folder of the service's migrations, applied to the sandbox and production databases. */
  migrations?: string;
  /**
   * Generates the service's sandbox register. Must be deterministic for a scale and idempotent: a
   * second call at the same scale changes nothing. Returns a one-line summary for the operator.
   */
  seed?: (context: SeedContext) => Promise<string | undefined>;
  /**
   * Starts the service's background jobs in one environment (every process that runs jobs runs them;
   * the service coordinates its processes through its database).
   */
  jobs?: (context: JobContext) => Promise<RunningJobs>;
  /**
   * The service's own settings, by the name its jobs read them under (`JobContext.settings`): each from
   * an environment variable, checked as every setting is (a wrong value stops the program with one line
   * naming the variable and the rule).
   */
  settings?: Readonly<Record<string, ServiceSetting>>;
  /** Commands the service adds to `rsg` (listed in `rsg help` after the gateway's own). */
  commands?: readonly ServiceCommand[];
  /**
   * A rate limit per user per minute, applied by the gateway to every operation of the service beside
   * each subscription's own (product) limit: calls are counted per environment, service and user (the
   * three-legged token's user, else the subscriber who owns the key) across all of that user's keys and,
   * with Redis, all processes. Absent: no such limit, at no cost.
   */
  userRateLimit?: UserRateLimit;
  /**
   * The business number register, as other registers of the same environment may ask it (the secured
   * interests register checks debtors' numbers; generators draw organisations from it). Given by the
   * service that holds that register; the gateway hands it to the others as `ServiceContext.registers`.
   */
  businessNumberRegister?: (database: Database) => BusinessNumberRegister;
  /**
   * The service's public data as monthly bulk data files (spec part E), written by the service itself
   * (its jobs at each month start of the environment's clock, and `exportNow` when an operator asks) into
   * the environment's bulk data folder (platform/bulk-files.ts). The portal lists and serves the files to
   * users whose bulk data access an operator approved; it never reads the service's tables.
   */
  bulkData?: BulkDataSet;
  /**
   * Where the service keeps files of its own (documents), one folder per database under a root
   * (platform/documents/location.ts): a sandbox reset, snapshot and restore keep and put back the
   * sandbox database's folder with the database.
   */
  documents?: DocumentsPlace;
  /**
   * The push deliveries of the watchlists a subscription owns, newest first, for the portal's request
   * inspector: the service reads its own tables, the portal never does.
   */
  pushDeliveries?: (database: Database, subscriptionId: string, limit: number) => Promise<PushDelivery[]>;
}

/** `ServiceDefinition.pushDeliveries`: one notification pushed (or being pushed) to a watchlist's endpoint. */
export interface PushDelivery {
  watchlistId: string;
  watchlistName: string;
  /** The endpoint as registered, its secret query parameters the inspector's to redact. */
  endpoint: string;
  notificationId: string;
  createdAt: Date;
  /** Attempts made so far (the first and every retry). */
  attempts: number;
  firstAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  /** The last attempt's answer: its HTTP status, or why none came. */
  lastStatus: number | null;
  lastError: string | null;
  /** Every failed attempt, oldest first, with its answer (`at` as an ISO string). */
  failedAttempts: { at: string; status: number | null; error: string }[];
}

/** `ServiceDefinition.bulkData`: one data set of a service's public data. */
export interface BulkDataSet {
  /** The files' name stem, e.g. `nzbn-entities`. */
  dataset: string;
  title: string;
  /** What a record of the JSON file is. */
  jsonRecord: string;
  /** The CSV file's columns, in order, each with what it holds. */
  columns: readonly { name: string; description: string }[];
  /** Writes the export of the clock's current month now; undefined when another process is writing it. */
  exportNow(input: BulkExportInput): Promise<BulkManifest | undefined>;
}

export interface BulkExportInput {
  environment: Environment;
  database: Database;
  clock: Clock;
  /** The service's settings (`ServiceDefinition.settings`), by name. */
  settings: Readonly<Record<string, number>>;
  /** The folder to write to; default `bulkDataFolder(environment)`. */
  folder?: string;
}

/** What another register may ask of the business number register of its environment. */
export interface BusinessNumberRegister {
  /**
   * The entity with this business number, or undefined; `statusCode` and `typeCode` as the register
   * publishes them.
   */
  find(
    nzbn: string,
  ): Promise<{ nzbn: string; name: string; statusCode: string; typeCode: string } | undefined>;
  /** Up to `limit` registered companies, always in the same order (for sandbox generators). */
  companies(limit: number): Promise<{ nzbn: string; name: string }[]>;
  /**
   * For each of the numbers that is an entity: its type and the names it has had, its present one
   * first, then the earlier ones, latest first (a number that is no entity is not in the map). For the
   * sandbox's cross-register rules: another register keeps the name a business had when it filed there.
   * Asked for a register's whole set of parties at once, so it reads them a batch at a time.
   */
  namesOf(nzbns: readonly string[]): Promise<Map<string, { typeCode: string; names: string[] }>>;
  /** Of the names, those some entity has or had exactly (parties another register names without a number). */
  namesHeld(names: readonly string[]): Promise<Set<string>>;
}

/** The other registers of an environment that a service may ask (none when not built). */
export interface Registers {
  businessNumbers?: BusinessNumberRegister | undefined;
}

/** `ServiceDefinition.userRateLimit`: the service's default, which an environment variable may override. */
export interface UserRateLimit {
  /** Calls per user in any 60 seconds (a sliding window, as the product limits). */
  perMinute: number;
  /**
   * The variable that overrides `perMinute` (a whole number from 0 to 1,000,000; 0 turns the limit
   * off), e.g. `RSG_PPSR_USER_RATE_LIMIT`. It belongs in the configuration table in docs/operations.md.
   */
  variable?: string;
}

/** A whole-number setting read from an environment variable. */
export interface ServiceSetting {
  /** The environment variable, e.g. `RSG_SANDBOX_ACTIVITY_PER_HOUR`. */
  variable: string;
  default: number;
  min: number;
  max: number;
}

/** A command of `rsg` that a service contributes, e.g. `rsg import bonds`. */
export interface ServiceCommand {
  name: string;
  /**
   * The first word after the name that this command answers (`rsg import ppsr …`): commands of one name
   * from several services are told apart by it; one without a subject answers the rest.
   */
  subject?: string;
  /** Its lines in `rsg help`, without the two-space indent. */
  usage: string;
  /** Runs the command; resolves to the exit status. */
  run(context: CommandContext, args: string[]): Promise<number>;
}

/** What `rsg` gives a service's command. */
export interface CommandContext {
  /** Parses the arguments (options as `node:util` parseArgs takes them, positionals allowed, strict). */
  parse(
    args: string[],
    options: Record<string, { type: 'string' | 'boolean' }>,
  ): { values: Record<string, string | boolean | undefined>; positionals: string[] };
  /** An error to throw for a wrong command line: `rsg` prints it, points to `rsg help` and exits 2. */
  usageError(message: string): Error;
  /**
   * Finds the databases as the running server does (the same `RSG_DATA_DIR` / `RSG_EMBEDDED_PG_PORT`, or
   * the database URLs), applies pending migrations, and runs `work` with the address of one
   * environment's database; whatever it started is stopped afterwards.
   */
  withEnvironmentDatabase<T>(environment: Environment, work: (url: string) => Promise<T>): Promise<T>;
}

export interface JobContext {
  environment: Environment;
  /** That environment's database. */
  database: Database;
  clock: Clock;
  /** Base address of the service in this environment, as callers reach it (for links in messages). */
  apiBase: string;
  /** Sends (and keeps in the outbox) one email. */
  mail(message: { to: string; subject: string; text: string }): Promise<void>;
  /** Called when the environment's clock is moved (the sandbox's virtual clock). */
  onClockMoved(handler: () => void): void;
  keyedUniform(key: string): number;
  /** The values of the service's own settings (`ServiceDefinition.settings`), by name. */
  settings: Readonly<Record<string, number>>;
  /** The other registers of this environment. */
  registers: Registers;
  log: {
    info(object: object, message: string): void;
    error(object: object, message: string): void;
  };
}

export interface RunningJobs {
  /** One line for the operator: what runs (e.g. the delivery worker's number). */
  describe(): string;
  /** Wakes the jobs now (they also wake on their own). */
  wake(): void;
  /** Runs everything due and waits until nothing is in flight. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

export type SeedScale = 'small' | 'full';

/** What an invariant of a sandbox register reads: the sandbox database and clock, and the other registers. */
export interface InvariantContext {
  database: Database;
  clock: Clock;
  registers?: Registers;
}

/** A record that breaks an invariant: its identifier (an application number, an NZBN…) and what is wrong. */
export interface InvariantBreak {
  record: string;
  detail: string;
}

/**
 * A rule a register's generated sandbox keeps, as a domain expert reads it (dates in order, categories
 * that agree with content, real addresses): checked by `rsg sandbox check` and by the tests at both
 * scales, and listed in the register's README. A fixed test case that breaks it on purpose (an overdue
 * filing, an expired statement) is an exception, named with why: the check passes over it.
 */
export interface SandboxInvariant {
  /** Short and stable, e.g. `dates-in-order`; reported as `<service>/<id>`. */
  id: string;
  /** The rule in one sentence, for the README and the check's report. */
  description: string;
  /** Records (by the identifier `check` reports) that break it on purpose, each with why. */
  exceptions?: Readonly<Record<string, string>>;
  /** Every record that breaks the rule (an empty list: it holds). Reads only. */
  check(context: InvariantContext): Promise<InvariantBreak[]>;
}

export interface SeedContext {
  /** The sandbox database. */
  database: Database;
  scale: SeedScale;
  /** The sandbox clock: generated histories end at its "now". */
  clock: Clock;
  log: (line: string) => void;
  /** What a generator may ask of identity/ in the sandbox (fixtures that operators act for). */
  identity: SeedIdentity;
  /** The other registers of the sandbox (seeded before this service when listed before it); absent when a
   * service is seeded on its own. */
  registers?: Registers;
}

export interface SeedIdentity {
  /** Grants every operator's sandbox user authority over one object of `service` (idempotent). */
  grantOperatorsAuthority(service: ServiceId, kind: string, objectId: string): Promise<void>;
  /**
   * Grants the operators' sandbox organisation (every operator a member; made when missing) authority
   * over one object of `service` (idempotent). Resolves to the organisation's identifier.
   */
  grantOperatorsOrganisationAuthority?(service: ServiceId, kind: string, objectId: string): Promise<string>;
  /**
   * The operators' sandbox organisation's id (every operator an owner; made when missing): a register's
   * fixtures that belong to an organisation belong to this one, so the operators' first calls find them.
   */
  operatorsOrganisationId?(): Promise<string>;
  /**
   * Makes a sandbox organisation with its users (made without a password when missing) and their
   * authorities, when it is not there yet (idempotent: a second seed changes nothing).
   */
  seedOrganisation?(organisation: SeedOrganisation): Promise<void>;
}

/** A sandbox organisation a register's seed asks for: its users, and authorities it or they hold. */
export interface SeedOrganisation {
  /** A system identifier (`sandbox-…`), so no user can make it first. */
  identifier: string;
  name: string;
  categoryCode: string;
  users: { email: string; firstName: string; lastName: string; role: 'owner' | 'admin' | 'member' }[];
  authorities: {
    service: ServiceId;
    kind: string;
    objectId: string;
    /** The organisation, or one of its users (by email) holding it for the organisation. */
    holder: 'organisation' | { email: string };
    status: 'ACCEPTED' | 'PENDING';
    approvalType: 'REGISTRAR_LETTER' | 'REGISTRAR_ID_PROOF' | 'USER' | 'PROFESSIONAL_AUTHORITY';
  }[];
}

export const productId = (environment: Environment, service: ServiceId): string =>
  `${environment}-${service}`;

/** The registers the services of a list provide in one environment (its database). */
export function registersOf(services: readonly ServiceDefinition[], database: Database): Registers {
  const businessNumbers = services.find((s) => s.businessNumberRegister)?.businessNumberRegister;
  return { businessNumbers: businessNumbers?.(database) };
}
