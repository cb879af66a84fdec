import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The typed TypeScript client, packed (`npm pack` of packages/client: its build, types, documents and
 * README), for `npm install <gateway>/portal/downloads/client.tgz` until it is published to a registry.
 *
 * The gateway packs it itself, in the background, whenever the packed file is missing or older than the
 * package's sources: `rsg start` asks at start, and a download that finds none asks again. A request
 * never waits for a build: while one runs (or after one failed) the download says so (503), and the
 * gateway serves on whatever happens to the packing. Processes sharing the folder (`--workers`) pack one
 * at a time, under a lock file; a lock older than `STALE_LOCK_MS` is taken as abandoned.
 */
const PACKAGE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'packages',
  'client',
);

/** Where the packed client is kept (git-ignored). */
export const PACKED_CLIENT = path.join(PACKAGE, 'pack', 'client.tgz');

/** The package's files whose change makes a packed client stale. */
const SOURCES = ['src', 'openapi', 'package.json', 'README.md', 'tsconfig.json', 'tsconfig.build.json'];
/** After a failed packing, the next attempt waits this long (a download meanwhile tells the failure). */
const RETRY_AFTER_FAILURE_MS = 5 * 60_000;
/** A packing that holds the lock longer than this has died with it. */
const STALE_LOCK_MS = 10 * 60_000;
/** The longest a packing may take before it is stopped and counted as failed. */
const PACK_TIMEOUT_MS = 8 * 60_000;

export type PackedClient =
  | { state: 'ready'; file: string }
  | { state: 'packing' }
  | { state: 'failed'; reason: string }
  | { state: 'unavailable'; reason: string };

/** The newest modification time among the files under `entry` (a file or a folder). */
async function newest(entry: string): Promise<number> {
  const info = await stat(entry).catch(() => undefined);
  if (!info) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  let latest = info.mtimeMs;
  for (const name of await readdir(entry)) latest = Math.max(latest, await newest(path.join(entry, name)));
  return latest;
}

/** How `npm` is run: the one that started this process (`npm start`), else the one on the PATH. */
function npmCommand(): { command: string; prefix: string[] } {
  const cli = process.env.npm_execpath;
  // npm's own CLI only: npx sets npm_execpath to its own, which would run a package named `pack`.
  return cli && /(^|[/\\])npm-cli\.c?js$/.test(cli)
    ? { command: process.execPath, prefix: [cli] }
    : { command: process.platform === 'win32' ? 'npm.cmd' : 'npm', prefix: [] };
}

/** Runs `npm pack` of the package into `destination`; resolves with the packed file's name. */
function npmPack(destination: string): Promise<string> {
  const { command, prefix } = npmCommand();
  return new Promise((resolve, reject) => {
    const child = spawn(
      command,
      [...prefix, 'pack', '--workspace', 'packages/client', '--pack-destination', destination, '--silent'],
      {
        cwd: path.join(PACKAGE, '..', '..'),
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' },
        timeout: PACK_TIMEOUT_MS,
      },
    );
    // A packing still running when the gateway stops is stopped with it.
    const stop = () => child.kill();
    process.once('exit', stop);
    child.on('close', () => process.off('exit', stop));
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (error) => reject(new Error(`npm could not be run (${error.message})`)));
    child.on('close', (code, signal) => {
      if (code === 0) return resolve(output.trim().split('\n').pop() ?? '');
      const last = output
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line && !line.startsWith('>'))
        .slice(-3)
        .join(' ');
      reject(new Error(`npm pack ended with ${signal ?? `code ${code}`}${last ? `: ${last}` : ''}`));
    });
  });
}

export class ClientPackage {
  private packing: Promise<void> | undefined;
  private failure: { reason: string; at: number } | undefined;

  constructor(
    private readonly packageDir = PACKAGE,
    private readonly packed = path.join(packageDir, 'pack', 'client.tgz'),
    private readonly pack: (destination: string) => Promise<string> = npmPack,
  ) {}

  /** Whether the package's sources are here to pack (a deployment may ship the packed file alone). */
  private hasSources(): boolean {
    return (
      existsSync(path.join(this.packageDir, 'package.json')) && existsSync(path.join(this.packageDir, 'src'))
    );
  }

  /** Whether the packed file is there and no older than every source. */
  private async fresh(): Promise<boolean> {
    const packed = await stat(this.packed).catch(() => undefined);
    if (!packed) return false;
    if (!this.hasSources()) return true;
    let latest = 0;
    for (const source of SOURCES) latest = Math.max(latest, await newest(path.join(this.packageDir, source)));
    return packed.mtimeMs >= latest;
  }

  /** The packed client's state; starts packing (in the background) when it is missing or stale. */
  async state(): Promise<PackedClient> {
    if (!this.packing && (await this.fresh())) return { state: 'ready', file: this.packed };
    if (!this.hasSources()) {
      return {
        state: 'unavailable',
        reason: 'This server has neither the packed client nor its sources (packages/client).',
      };
    }
    this.ensure();
    if (this.packing) return { state: 'packing' };
    if (this.failure) return { state: 'failed', reason: this.failure.reason };
    return (await this.fresh()) ? { state: 'ready', file: this.packed } : { state: 'packing' };
  }

  /**
   * Packs the client in the background when it is missing or stale and no packing runs or failed
   * lately. Never throws: a failure is kept for the download to tell.
   */
  ensure(): void {
    if (this.packing) return;
    if (this.failure && Date.now() - this.failure.at < RETRY_AFTER_FAILURE_MS) return;
    const run = this.packIfStale()
      .then(() => {
        this.failure = undefined;
      })
      .catch((error: unknown) => {
        this.failure = { reason: (error as Error).message, at: Date.now() };
      })
      .finally(() => {
        this.packing = undefined;
      });
    this.packing = run;
  }

  /** Waits for the packing running now, if any (tests, and a start that wants it done). */
  async settled(): Promise<void> {
    await this.packing;
  }

  private async packIfStale(): Promise<void> {
    if (!this.hasSources() || (await this.fresh())) return;
    const folder = path.dirname(this.packed);
    await mkdir(folder, { recursive: true });
    const lockFile = path.join(folder, '.packing');
    const lock = await this.lock(lockFile);
    // Another process packs it now: its file appears when done.
    if (!lock) return;
    try {
      if (await this.fresh()) return;
      // Beside the pack folder, on the same file system (so the rename below is atomic), and outside it
      // (so removing the pack folder does not pull a packing's files from under it).
      const scratch = await mkdtemp(path.join(this.packageDir, '.pack-'));
      try {
        const name = await this.pack(scratch);
        const made = path.join(scratch, path.basename(name));
        if (!name || !existsSync(made)) throw new Error('npm pack made no file');
        // Whole or not at all: a download never reads a half-written file.
        await mkdir(folder, { recursive: true });
        await rename(made, this.packed);
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    } finally {
      await lock.close();
      await rm(lockFile, { force: true });
    }
  }

  /** The lock file, made exclusively; undefined when another live process holds it. */
  private async lock(file: string) {
    try {
      return await open(file, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const held = await stat(file).catch(() => undefined);
      if (held && Date.now() - held.mtimeMs < STALE_LOCK_MS) return undefined;
      await rm(file, { force: true });
      return open(file, 'wx').catch(() => undefined);
    }
  }
}

/** The process's packed client (one per process: the processes of `--workers` share its folder). */
export const clientPackage = new ClientPackage();
