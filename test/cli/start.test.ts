import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { rsg } from '../support/cli.ts';
import { freePort } from '../support/ports.ts';
import { freshDatabases, TEST_SERVER_SECRET } from '../support/runtime.ts';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/rsg.js');

interface Started {
  child: ChildProcess;
  output: () => string;
  base: string;
}

/** Starts `rsg start` and waits until it has printed its addresses (and, on a first start, its keys). */
function start(
  args: string[],
  env: Record<string, string | undefined>,
  waitFor: RegExp,
  options: { detached?: boolean } = {},
): Promise<Started> {
  const child = spawn(process.execPath, [bin, 'start', ...args], {
    // Port 0 for the metrics port too: tests (and other gateways on this host) never compete for 9464.
    env: { ...process.env, LOG_LEVEL: 'warn', PORT: '0', RSG_METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // In a process group of its own, as a terminal runs `npm start`: Ctrl-C is SIGINT to the whole group.
    detached: options.detached === true,
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`rsg start did not get ready:\n${output}`)), 180_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const base = /listening on (http:\/\/[\d.]+:\d+)/.exec(output)?.[1];
      if (base && waitFor.test(output)) {
        clearTimeout(timer);
        resolve({ child, output: () => output, base });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`rsg start exited (${code}):\n${output}`)));
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

// Real processes: a cold start initialises an embedded PostgreSQL and migrates it, and --workers forks
// more processes, each loading the sources afresh, and each start seeds a sandbox: on a busy 2-core
// machine a test can take two minutes and more. They test outcomes, not speed.
describe('rsg start', { timeout: 300_000 }, () => {
  it('on an empty data folder: embedded PostgreSQL, migrations, operator, sandbox keys; a later start reuses the data; Ctrl-C stops it cleanly', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'rsg-start-'));
    dirs.push(dataDir);
    const env = {
      RSG_DATA_DIR: dataDir,
      DATABASE_URL: '',
      RSG_EMBEDDED_PG_PORT: String(await freePort()),
    };
    const first = await start([], env, /sandbox-disclose\s+\S+\s+[0-9a-f]{64}/);
    const key = /sandbox-nzbn\s+(\S+)\s+([0-9a-f]{64})/.exec(first.output());
    expect(key?.[1]).toBe(`${first.base}/sandbox/nzbn/v5`);
    // The banner is for a person: no JSON log line of the listener mixed into it.
    expect(first.output()).not.toMatch(/Server listening/);
    // It says where the sandbox's test cases are and how to move the sandbox clock.
    expect(first.output()).toContain(
      '  Sandbox test cases (fixed records for every register): docs/guide/README.md\n',
    );
    expect(first.output()).toContain(
      '  Sandbox clock: real time; start with "rsg start --clock virtual", then "rsg clock advance 31d"',
    );
    const clock = await fetch(`${first.base}/sandbox/admin/clock`, {
      headers: { 'Ocp-Apim-Subscription-Key': key![2]! },
    });
    expect(clock.status).toBe(200);
    expect((await fetch(`${first.base}/readyz`)).status).toBe(200);
    const document = await fetch(`${key![1]}/openapi.json`);
    expect(((await document.json()) as { info: { title: string } }).info.title).toBe(
      'Business number register (sandbox)',
    );
    // The typed client the portal serves: packed by the start when missing or stale (meanwhile, 503
    // saying so), then downloadable, as the quick starts' `npm install` takes it.
    await vi.waitFor(
      async () => {
        const download = await fetch(`${first.base}/portal/downloads/client.tgz`);
        if (download.status === 503) {
          expect(download.headers.get('retry-after')).toMatch(/^\d+$/);
          expect(await download.text()).toContain('being packed');
        }
        expect(download.status).toBe(200);
        expect(download.headers.get('content-type')).toBe('application/gzip');
      },
      { timeout: 150_000, interval: 2_000 },
    );
    expect(await stop(first.child)).toBe(0);
    // The server secret's key file, made on the first start: the owner's alone.
    expect((await stat(path.join(dataDir, 'server-secret'))).mode & 0o777).toBe(0o600);

    // Info lines too: shutting down must log nothing about the database going away.
    const second = await start(['--clock', 'virtual'], { ...env, LOG_LEVEL: 'info' }, /OpenAPI documents/, {
      detached: true,
    });
    expect(second.output()).not.toMatch(/First start/);
    expect(second.output()).toContain(
      '  Sandbox clock: virtual; "rsg clock show", "rsg clock advance 31d" and "rsg clock set <time>" move it.\n',
    );
    const again = await fetch(`${second.base}/sandbox/admin/clock`, {
      headers: { 'Ocp-Apim-Subscription-Key': key![2]! },
    });
    expect(again.status).toBe(200);

    // Ctrl-C in a terminal: SIGINT to the whole process group. The gateway drains and then stops the
    // embedded PostgreSQL, which the terminal's signal does not reach: no "database unreachable" while
    // shutting down, exit 0, and the PostgreSQL server is gone.
    const postmaster = Number(
      (await readFile(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0],
    );
    expect(isRunning(postmaster)).toBe(true);
    const before = second.output().length;
    const exited = new Promise<number | null>((resolve) => second.child.once('exit', resolve));
    process.kill(-second.child.pid!, 'SIGINT');
    expect(await exited).toBe(0);
    const after = second.output().slice(before);
    expect(after).not.toMatch(/unreachable|unavailable|paused|terminating|error|failed/i);
    expect(after).toMatch(/shutting down: finishing requests in flight/);
    expect(isRunning(postmaster)).toBe(false);
  });

  // The two tests below share one set of databases: the first start migrates and seeds them (and prints
  // the sandbox keys), the second starts on them as a restart would, without seeding again.
  let shared: Awaited<ReturnType<typeof freshDatabases>> | undefined;
  let sharedKey = '';
  const sharedEnv = () => ({
    // No key file in the project's data folder (every process of the deployment shares the secret).
    RSG_SERVER_SECRET: TEST_SERVER_SECRET,
    DATABASE_URL: shared!.gateway,
    SANDBOX_DATABASE_URL: shared!.sandbox,
    PRODUCTION_DATABASE_URL: shared!.production,
  });
  afterAll(async () => {
    await shared?.drop();
  });

  it('--workers 2 serves from two processes on one port', async () => {
    shared = await freshDatabases();
    const started = await start(['--workers', '2'], sharedEnv(), /sandbox-disclose\s+\S+\s+[0-9a-f]{64}/);
    const key = /sandbox-nzbn\s+\S+\s+([0-9a-f]{64})/.exec(started.output())![1]!;
    sharedKey = key;
    const statuses = await Promise.all(
      Array.from({ length: 10 }, () =>
        fetch(`${started.base}/sandbox/admin/clock`, {
          headers: { 'Ocp-Apim-Subscription-Key': key },
        }).then((r) => r.status),
      ),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);

    // Metrics: refused on the public port without an operator's key; on the loopback metrics port the
    // primary sums both workers' counters.
    expect((await fetch(`${started.base}/metrics`)).status).toBe(401);
    const scrape = /metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(started.output())![1]!;
    const document = `${started.base}/sandbox/nzbn/v5/openapi.json`;
    // At once, so they arrive on several connections, which the cluster hands to both workers.
    const served = await Promise.all(Array.from({ length: 12 }, () => fetch(document).then((r) => r.status)));
    expect(served).toEqual(Array(12).fill(200));
    const metrics = await fetch(scrape);
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toMatch(/rsg_http_requests_total\{environment="sandbox",service="nzbn",status="2xx"\} 12\b/);
    expect(
      (await fetch(`${started.base}/metrics`, { headers: { 'Ocp-Apim-Subscription-Key': key } })).status,
    ).toBe(200);

    // A sandbox reset while both workers serve: the first start kept its seed as the seeded state, and
    // each worker pauses and resumes on its own; a call meanwhile is answered, held, or 503 — never 500.
    const entity = `${started.base}/sandbox/nzbn/v5/entities/9429000001007`;
    const read = () => fetch(entity, { headers: { 'Ocp-Apim-Subscription-Key': key } }).then((r) => r.status);
    const limit = await rsg(['products', 'set', 'sandbox-nzbn', '--rate-limit', '1000000'], { urls: shared });
    expect(limit.code, limit.stderr).toBe(0);
    let resetting = true;
    const during: number[] = [];
    const clients = Array.from({ length: 4 }, async () => {
      while (resetting) {
        during.push(await read());
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });
    const reset = await rsg(['sandbox', 'reset'], { urls: shared });
    resetting = false;
    await Promise.all(clients);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toMatch(/^sandbox reset to its seeded state \(small\) in \d+\.\d\d s;/);
    expect(reset.stdout).not.toMatch(/made first/);
    expect(during.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    const after = await Promise.all(Array.from({ length: 12 }, read));
    expect(after).toEqual(Array(12).fill(200));
    expect(await stop(started.child)).toBe(0);
  });

  it('SIGTERM: the listener closes, a request in flight is still answered (Connection: close), exit 0', async () => {
    if (!shared) shared = await freshDatabases();
    const started = await start(
      [],
      {
        ...sharedEnv(),
        RSG_JOBS: 'off',
        // Requests are logged as they arrive: the signal goes only once the server has the request.
        LOG_LEVEL: 'debug',
      },
      // A first start prints the keys after the addresses; a later one ends its banner with these.
      sharedKey ? /OpenAPI documents/ : /sandbox-disclose\s+\S+\s+[0-9a-f]{64}/,
    );
    const key = sharedKey || /sandbox-nzbn\s+\S+\s+([0-9a-f]{64})/.exec(started.output())![1]!;
    const { port, hostname } = new URL(started.base);
    // A request whose body has not all arrived when the signal comes: it is in flight.
    const body = JSON.stringify({
      name: 'in flight',
      channel: 'PUSH',
      pushEndpoint: 'http://127.0.0.1:9/hook',
      adminEmailAddress: 'a@example.test',
      nzbns: ['9429000001007'],
    });
    const socket = connect(Number(port), hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
    });
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(
      `POST /sandbox/nzbn/v5/watchlists HTTP/1.1\r\nHost: ${hostname}:${port}\r\n` +
        `Ocp-Apim-Subscription-Key: ${key}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    const exited = new Promise<number | null>((resolve) => started.child.once('exit', resolve));
    // The server has read the request's head (so the connection is not idle) before the signal.
    await vi.waitFor(
      () =>
        expect(started.output()).toMatch(
          /"url":"\/sandbox\/nzbn\/v5\/watchlists"[^\n]*incoming request|incoming request[^\n]*"url":"\/sandbox\/nzbn\/v5\/watchlists"/,
        ),
      { timeout: 20_000, interval: 20 },
    );
    started.child.kill('SIGTERM');
    // New connections are refused once the listener is closed.
    await vi.waitFor(
      () =>
        new Promise<void>((resolve, reject) => {
          const probe = connect(Number(port), hostname);
          probe.once('connect', () => {
            probe.destroy();
            reject(new Error('still accepting'));
          });
          probe.once('error', () => resolve());
        }),
      { timeout: 20_000, interval: 50 },
    );
    socket.write(body.slice(10));
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(await exited).toBe(0);
  });

  it('a wrong setting stops it with one line naming the variable', async () => {
    await expect(start([], { RSG_WORKERS: 'many' }, /never/)).rejects.toThrow(
      /rsg: configuration error: RSG_WORKERS: must be a whole number from 1 to 64, got "many"/,
    );
  });

  it('a server secret key file others can read stops it before anything starts', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'rsg-key-'));
    dirs.push(dataDir);
    const file = path.join(dataDir, 'server-secret');
    await writeFile(file, 'a-server-secret-of-more-than-thirty-two-characters\n', { mode: 0o644 });
    await chmod(file, 0o644);
    await expect(start([], { RSG_DATA_DIR: dataDir, DATABASE_URL: '' }, /never/)).rejects.toThrow(
      `rsg: configuration error: RSG_DATA_DIR: the key file ${file} is readable by others (mode 644)`,
    );
    // No embedded PostgreSQL was made.
    expect(await readdir(dataDir)).toEqual(['server-secret']);
  });
});
