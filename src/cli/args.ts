import { parseArgs } from 'node:util';
import type { Pool } from 'pg';
import type { Config } from '../config.ts';
import { SUBSCRIPTION_ERRORS, SubscriptionError } from '../gateway/errors.ts';
import { findUserByEmail } from '../identity/store/users.ts';
import { type Database, openDatabase } from '../platform/db/pool.ts';
import type { DatabaseUrls } from '../platform/db/urls.ts';
import { migrateAll, prepareDatabases } from '../runtime.ts';
import type { Environment } from '../services/contract.ts';

/** Argument helpers shared by every `rsg` command (apart from the command table, so no cycle). */
export class UsageError extends Error {}

export type Options = Record<string, string | boolean | undefined>;

export function parse(args: string[], options: Record<string, { type: 'string' | 'boolean' }>) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function required(values: Options, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `--subscription`: required, and a subscription id (a UUID), named in the refusal. */
export function subscriptionId(values: Options): string {
  const id = required(values, 'subscription');
  if (!UUID.test(id)) {
    throw new UsageError(
      `--subscription must be a subscription id, a UUID such as 3f2c…-…; "rsg subscriptions list" shows them (got "${id.slice(0, 60)}")`,
    );
  }
  return id;
}

export function optional(values: Options, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

export function wholeNumber(values: Options, name: string): number | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value) || Number(value) === 0) {
    throw new UsageError(`--${name} must be a whole number above 0`);
  }
  return Number(value);
}

export const print = (value: unknown, json: boolean, text: () => string) =>
  process.stdout.write(`${json ? JSON.stringify(value, null, 2) : text()}\n`);

/** Finds the databases (starting or attaching to the embedded server), migrates them, runs `work`, cleans up. */
export async function withMigrated<T>(config: Config, work: (urls: DatabaseUrls) => Promise<T>): Promise<T> {
  const setup = await prepareDatabases(config);
  try {
    await migrateAll(setup.urls);
    return await work(setup.urls);
  } finally {
    await setup.embedded?.stop();
  }
}

/** Opens the gateway database, runs `work`, cleans up. */
export function withGateway<T>(config: Config, work: (pool: Pool) => Promise<T>): Promise<T> {
  return withMigrated(config, async (urls) => {
    const gateway = openDatabase(urls.gateway, 2);
    try {
      return await work(gateway.pool);
    } finally {
      await gateway.close();
    }
  });
}

export interface Databases {
  gateway: Pool;
  environments: Record<Environment, Pool>;
}

/** Opens the gateway, sandbox and production databases, runs `work`, cleans up. */
export function withDatabases<T>(config: Config, work: (databases: Databases) => Promise<T>): Promise<T> {
  return withMigrated(config, async (urls) => {
    const [gateway, sandbox, production] = [urls.gateway, urls.sandbox, urls.production].map((url) =>
      openDatabase(url, 2),
    ) as [Database, Database, Database];
    try {
      return await work({
        gateway: gateway.pool,
        environments: { sandbox: sandbox.pool, production: production.pool },
      });
    } finally {
      await Promise.all([gateway.close(), sandbox.close(), production.close()]);
    }
  });
}

export async function userId(pool: Pool, email: string): Promise<string> {
  const user = await findUserByEmail(pool, email);
  if (!user)
    throw new SubscriptionError(
      SUBSCRIPTION_ERRORS.unknownUser,
      'user',
      'is no user',
      `no user with the email ${email}; add one with "rsg users add --email ${email}"`,
    );
  return user.id;
}
