import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { databasesNamed, dropDatabaseNamed } from '../platform/db/databases.ts';
import { type DatabaseUrls, databaseName } from '../platform/db/urls.ts';
import { keptDatabasePrefix } from '../platform/sandbox/names.ts';
import { leaseServer, type ServerLease, trustedCacheFolder } from './machine.ts';
import { copyTemplate, ensureTemplate, RUN_PREFIX } from './template.ts';
import type { Sandbox, SandboxOptions } from './types.ts';

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
  // The gateway's modules (most of a new process's start) load while the server copies the databases
  // (the rest of it): loading them holds this thread, so they start once the copies are asked for,
  // and this module's static imports are only the light ones that find the server and the template.
  let loading: Promise<typeof import('./gateway.ts')> | undefined;
  const load = () => {
    loading ??= import('./gateway.ts');
    loading.catch(() => {});
    return loading;
  };
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
    const stem = randomBytes(6).toString('hex');
    const urls = await copyTemplate(server, template, stem, load);
    cleanup.push(() => dropHarnessDatabases(urls));
    const gateway = await load();
    cleanup.push(() => gateway.dropDocuments(`${RUN_PREFIX}${stem}`));
    gateway.prepare();
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'rsg-harness-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const running = await gateway.serve(urls, dataDir, scale, clockMode, options);
    cleanup.push(() => running.close());
    await gateway.startFrom(running.runtime, scale, options.clockAt);
    const holder = await gateway.subscribe(running.runtime);
    return gateway.sandboxOf(running, holder, scale, undo);
  } catch (error) {
    await undo();
    throw error;
  }
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
