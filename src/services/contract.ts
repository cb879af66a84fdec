/**
 * The service contract: the types and constants every layer may import (environments, service ids,
 * what a service definition holds, what its jobs and seed hook are given). The list of services is apart
 * from it, in registry.ts, which only the composition root (app, runtime, CLI) imports; so a service's
 * own modules never import the list that imports them.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../gateway/service-context.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/pool.ts';
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
  /** Top-level additions to the service's OpenAPI document (e.g. `webhooks` it sends). */
  openapi?: Record<string, unknown>;
  /** Routes of the service, mounted once per environment. */
  routes?: FastifyPluginAsync<ServiceContext>;
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
  settings: { sandboxActivityPerHour: number };
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

export interface SeedContext {
  /** The sandbox database. */
  database: Database;
  scale: SeedScale;
  /** The sandbox clock: generated histories end at its "now". */
  clock: Clock;
  log: (line: string) => void;
  /** What a generator may ask of identity/ in the sandbox (fixtures that operators act for). */
  identity: SeedIdentity;
}

export interface SeedIdentity {
  /** Grants every operator's sandbox user authority over one object of `service` (idempotent). */
  grantOperatorsAuthority(service: ServiceId, kind: string, objectId: string): Promise<void>;
}

export const productId = (environment: Environment, service: ServiceId): string =>
  `${environment}-${service}`;
