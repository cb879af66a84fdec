import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDetachedEmbedded, stopDetachedEmbedded } from '../platform/db/embedded.ts';
import { freeLocalPort } from './ports.ts';

/**
 * The machine's part of the harness: its cache folder (cache-folder.js), and the embedded PostgreSQL
 * server every harness on the machine shares (when no DATABASE_URL names a server).
 *
 * The folder holds the server's data (`pg/`), a lock file for starting and stopping it, and one lease
 * file per running harness (`leases/<pid>-<random>`). The first harness starts the server detached (it
 * outlives any one process); the harness that stops last (no lease left whose process is alive) stops
 * it. A server left running by processes that ended without stopping is attached to by the next
 * harness, and stopped by the last one.
 */
export { cacheFolder, trustedCacheFolder } from './cache-folder.js';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Runs `work` holding the folder's lock file (created exclusively, holding this process's id). A lock
 * whose process is gone is taken over; otherwise it is waited for (every 50 ms, at most `waitMs`).
 */
export async function withFileLock<T>(folder: string, work: () => Promise<T>, waitMs = 120_000): Promise<T> {
  await mkdir(folder, { recursive: true });
  const file = path.join(folder, 'lock');
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      // Empty: being written this moment. A holder that is gone left it behind.
      if (Number.isInteger(holder) && holder > 0 && !alive(holder)) {
        await rm(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`the harness lock ${file} is held by process ${holder}`);
      await sleep(50);
    }
  }
  try {
    return await work();
  } finally {
    await rm(file, { force: true });
  }
}

/** A lease on the machine's server: given back by `release` (or found stale once its process is gone). */
export interface ServerLease {
  serverUrl: string;
  /** Whether this lease started the server (nobody else was using it). */
  started: boolean;
  release(): Promise<void>;
}

async function liveLeases(leases: string): Promise<string[]> {
  const names = await readdir(leases).catch(() => [] as string[]);
  const live: string[] = [];
  for (const name of names) {
    const pid = Number(name.split('-')[0]);
    if (Number.isInteger(pid) && alive(pid)) live.push(name);
    else await rm(path.join(leases, name), { force: true });
  }
  return live;
}

/**
 * The machine's embedded server, started when no harness is using it. `onStarted` runs (under the lock)
 * when this call started it: nobody else uses it then, so leftovers of crashed runs may be dropped.
 */
export async function leaseServer(
  folder: string,
  onStarted: (serverUrl: string) => Promise<void>,
): Promise<ServerLease> {
  const leases = path.join(folder, 'leases');
  const lease = path.join(leases, `${process.pid}-${randomBytes(4).toString('hex')}`);
  const { serverUrl, started } = await withFileLock(folder, async () => {
    const server = await startDetachedEmbedded({ dataDir: folder, port: await freeLocalPort() });
    if (server.started) await onStarted(server.serverUrl);
    await mkdir(leases, { recursive: true });
    await writeFile(lease, '');
    return server;
  });
  // A process that ends without releasing leaves no lease behind (the server stays up until the next
  // harness to stop finds nobody left).
  const forget = () => rmSync(lease, { force: true });
  process.once('exit', forget);
  let released: Promise<void> | undefined;
  return {
    serverUrl,
    started,
    release: () => {
      released ??= withFileLock(folder, async () => {
        process.off('exit', forget);
        await rm(lease, { force: true });
        if ((await liveLeases(leases)).length === 0) await stopDetachedEmbedded(folder);
      });
      return released;
    },
  };
}

/** Makes the folder now, so that a first start's errors about it come first. */
export function ensureFolder(folder: string): void {
  mkdirSync(folder, { recursive: true });
}
