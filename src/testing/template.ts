import { createHash } from 'node:crypto';
import { copyDatabase, databaseExists, databasesNamed, dropDatabaseNamed } from '../platform/db/databases.ts';
import { migrationsFingerprint } from '../platform/db/migrations.ts';
import { ensureDatabase, openDatabase, withSessionLock } from '../platform/db/pool.ts';
import { type DatabaseUrls, withDatabase } from '../platform/db/urls.ts';
import { seedFingerprint } from '../platform/sandbox/names.ts';
import type { SeedScale } from '../services/contract.ts';
import { ENVIRONMENT_SOURCES, GATEWAY_SOURCES, GENERATOR_FOLDERS } from './sources.ts';

/**
 * The harness's template databases on a server: the three databases of a gateway migrated, the
 * sandbox seeded at a scale and kept as its seeded state (platform/sandbox/), closed to connections.
 * A harness copies them (`CREATE DATABASE … TEMPLATE`) instead of migrating and seeding.
 *
 * Named `rsgh_t_<key>_…`, the key a hash of every migration, every file of the sandbox generators and
 * the scale: when one changes, the next harness makes a new template. The newest `KEPT_TEMPLATES` are
 * kept (two checkouts of different code on one machine, or both scales, each keep theirs); older
 * ones, and one half made by a process that ended, are dropped when a template is made. Made
 * under an advisory lock of the server's `postgres` database, so parallel workers make it once and the
 * others wait; it is ready when `…_production` exists (copied last).
 */

/** Bumped when what a template holds changes shape. */
const TEMPLATE_FORMAT = 1;
/** The advisory lock (on the server's `postgres` database) held while a template is made. */
const TEMPLATE_LOCK = 7_361_042_917;

export const TEMPLATE_PREFIX = 'rsgh_t_';
/** How many whole templates a server keeps (the newest), counting one being made. */
export const KEPT_TEMPLATES = 4;
/** What every harness's own databases are named with (`rsgh_r_<random>_gateway`, …). */
export const RUN_PREFIX = 'rsgh_r_';

export interface Template {
  key: string;
  scale: SeedScale;
  /** Database names on the server. */
  gateway: string;
  sandbox: string;
  production: string;
  /** Whether this call made it (a first start: migrations and a seed). */
  made: boolean;
}

/** The template's key: the gateway's and environments' migrations, the generators' files, the scale. */
export async function templateKey(scale: SeedScale): Promise<string> {
  const environment = await migrationsFingerprint(ENVIRONMENT_SOURCES);
  const seed = await seedFingerprint(environment, GENERATOR_FOLDERS, scale);
  const gateway = await migrationsFingerprint(GATEWAY_SOURCES);
  return createHash('sha256')
    .update(JSON.stringify({ format: TEMPLATE_FORMAT, gateway, seed }))
    .digest('hex')
    .slice(0, 16);
}

const named = (stem: string) => ({
  gateway: `${stem}_gateway`,
  sandbox: `${stem}_sandbox`,
  production: `${stem}_production`,
});

/**
 * The template of `scale` on the server at `serverUrl` (the address of any database on it): found, or
 * made first (as long as migrating and seeding take; other callers wait for it).
 */
export async function ensureTemplate(
  serverUrl: string,
  scale: SeedScale,
  log: (line: string) => void = () => {},
): Promise<Template> {
  const key = await templateKey(scale);
  const names = named(`${TEMPLATE_PREFIX}${key}`);
  const found = { key, scale, ...names, made: false };
  if (await databaseExists(serverUrl, names.production)) return found;
  return withSessionLock(withDatabase(serverUrl, 'postgres'), TEMPLATE_LOCK, async () => {
    if (await databaseExists(serverUrl, names.production)) return found;
    await pruneTemplates(serverUrl, TEMPLATE_PREFIX, KEPT_TEMPLATES - 1);
    log(`making the harness's template databases (seed scale ${scale}): once per change of the code`);
    await makeTemplate(serverUrl, scale, key);
    return { ...found, made: true };
  });
}

/**
 * Drops every database of the templates named `<prefix><key>_…` but the `keep` newest whole ones (a
 * whole template has its `_production`, made last): those half made by a process that ended (the caller
 * holds the template lock, so none is being made) and the oldest whole ones. Returns the keys dropped.
 */
export async function pruneTemplates(serverUrl: string, prefix: string, keep: number): Promise<string[]> {
  const names = await databasesNamed(serverUrl, prefix, true);
  const keyOf = (name: string) => name.slice(prefix.length).split('_')[0]!;
  const whole = names.filter((name) => /^[0-9a-f]+_production$/.test(name.slice(prefix.length))).map(keyOf);
  const kept = new Set(whole.slice(Math.max(0, whole.length - keep)));
  const dropped = new Set<string>();
  for (const name of names) {
    if (kept.has(keyOf(name))) continue;
    dropped.add(keyOf(name));
    await dropDatabaseNamed(serverUrl, name);
  }
  return [...dropped];
}

async function makeTemplate(serverUrl: string, scale: SeedScale, key: string): Promise<void> {
  const building = named(`${TEMPLATE_PREFIX}${key}_wip`);
  const urls: DatabaseUrls = {
    gateway: withDatabase(serverUrl, building.gateway),
    sandbox: withDatabase(serverUrl, building.sandbox),
    production: withDatabase(serverUrl, building.production),
  };
  // The gateway's modules: only a start that makes the template needs them before it serves.
  const { migrateAll, openSandboxStates, seedSandbox } = await import('../runtime.ts');
  for (const url of Object.values(urls)) await ensureDatabase(url);
  await migrateAll(urls);
  await seedSandbox(urls, scale);
  // The seeded state a harness's reset goes back to: a closed copy of the sandbox as seeded, named in
  // the gateway database's `sandbox_states` (every harness's copy of it names the same one).
  const gateway = openDatabase(urls.gateway, 2);
  try {
    await openSandboxStates(urls, gateway, { graceMs: 0 }).keepSeeded(scale);
  } finally {
    await gateway.close();
  }
  const final = named(`${TEMPLATE_PREFIX}${key}`);
  // Production last: its presence says the template is whole.
  for (const role of ['gateway', 'sandbox', 'production'] as const) {
    await copyDatabase(serverUrl, building[role], final[role], { connectable: false });
    await dropDatabaseNamed(serverUrl, building[role]);
  }
}

/** Copies the template into a harness's three databases (named `rsgh_r_<stem>_…`). */
export async function copyTemplate(
  serverUrl: string,
  template: Template,
  stem: string,
  sent: () => void = () => {},
): Promise<DatabaseUrls> {
  const names = named(`${RUN_PREFIX}${stem}`);
  const roles = ['gateway', 'sandbox', 'production'] as const;
  let waiting = roles.length;
  await Promise.all(
    roles.map((role) =>
      copyDatabase(serverUrl, template[role], names[role], {
        connectable: true,
        sent: () => {
          if (--waiting === 0) sent();
        },
      }),
    ),
  );
  return {
    gateway: withDatabase(serverUrl, names.gateway),
    sandbox: withDatabase(serverUrl, names.sandbox),
    production: withDatabase(serverUrl, names.production),
  };
}
