import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rsg } from '../../../support/cli.ts';
import { type NzbnTest, nzbnTest } from '../support/api.ts';
import { createWatchlist, makeChange, Receiver, sandboxNow } from '../support/watchlists.ts';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../bin/rsg.js');

interface Worker {
  child: ChildProcess;
  /** The sandbox delivery worker's number (its advisory lock). */
  number: number;
}

/** Starts `rsg worker` on the test's databases and waits for it to report its sandbox worker number. */
function startWorker(t: NzbnTest): Promise<Worker> {
  const { urls } = t.gateway;
  const child = spawn(process.execPath, [bin, 'worker'], {
    env: {
      ...process.env,
      LOG_LEVEL: 'silent',
      DATABASE_URL: urls.gateway,
      SANDBOX_DATABASE_URL: urls.sandbox,
      PRODUCTION_DATABASE_URL: urls.production,
      RSG_SANDBOX_ACTIVITY_PER_HOUR: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /sandbox-nzbn: .*push delivery worker (\d+)/.exec(output);
      if (match) resolve({ child, number: Number(match[1]) });
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}): ${output}`)));
  });
}

let t: NzbnTest;
let receiver: Receiver;
const workers: Worker[] = [];

beforeAll(async () => {
  t = await nzbnTest({ clockMode: 'virtual' });
  receiver = await new Receiver(() => sandboxNow(t)).start();
});
afterAll(async () => {
  for (const worker of workers) worker.child.kill('SIGKILL');
  await receiver?.close();
  await t?.close();
});

// Real `rsg worker` processes (started, killed, taken over): longer than the suite's default.
describe('several delivery workers', { timeout: 90_000 }, () => {
  it('share the work; one killed by SIGKILL mid-delivery loses nothing, and a repeat keeps its webhook-id', async () => {
    const endpoints = Array.from({ length: 6 }, () => receiver.endpoint());
    const paths = endpoints.map((endpoint) => new URL(endpoint).pathname);
    const watchlists = [];
    for (const endpoint of endpoints) watchlists.push(await createWatchlist(t, { pushEndpoint: endpoint }));
    // The first delivery to the first watchlist hangs: its worker is killed while waiting for the answer.
    let hung = false;
    receiver.answer = (request) => {
      if (request.path === paths[0] && !hung) {
        hung = true;
        return 'hang';
      }
      return 200;
    };
    for (let i = 0; i < 5; i++) await makeChange(t);

    workers.push(await startWorker(t), await startWorker(t));
    await receiver.waitFor(paths[0]!, 1);
    const pool = t.gateway.runtime.environments.sandbox.pool;
    const lease = await pool.query<{ lease_worker: number }>(
      'SELECT lease_worker FROM nzbn_watchlists WHERE number = $1',
      [watchlists[0]!.watchlistId],
    );
    const victim = workers.find((worker) => worker.number === lease.rows[0]!.lease_worker);
    expect(victim, 'the hung delivery belongs to one of the two workers').toBeDefined();
    const exited = new Promise((resolve) => victim!.child.once('exit', resolve));
    victim!.child.kill('SIGKILL');
    await exited;

    // The survivor takes over at once (the killed worker's advisory lock went with its connection).
    await vi.waitFor(
      async () => {
        const left = await pool.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM nzbn_notifications WHERE delivered_at IS NULL',
        );
        expect(left.rows[0]!.n).toBe(0);
      },
      { timeout: 60_000, interval: 100 },
    );
    const records = await pool.query<{ watchlist_id: string; id: string; delivered: boolean }>(
      `SELECT watchlist_id::text AS watchlist_id, id::text AS id, delivered_at IS NOT NULL AS delivered
         FROM nzbn_notifications n ORDER BY n.id`,
    );
    expect(records.rows).toHaveLength(30);
    expect(records.rows.every((row) => row.delivered)).toBe(true);

    // Every notification arrived; a repeat (only after the crash) carries the same id and body.
    const byId = new Map<string, string[]>();
    for (const path of paths) {
      for (const request of receiver.on(path)) {
        const id = String(request.headers['webhook-id']);
        byId.set(id, [...(byId.get(id) ?? []), request.body]);
      }
    }
    expect(byId.size).toBe(30);
    for (const bodies of byId.values()) expect(new Set(bodies).size).toBe(1);
    const firstOfHung = receiver.on(paths[0]!)[0]!.headers['webhook-id'];
    expect(byId.get(String(firstOfHung))!.length).toBeGreaterThanOrEqual(2);
    // In order per watchlist: each receiver saw its changes in the order they were made.
    for (const path of paths) {
      const ids = [...new Set(receiver.on(path).map((r) => Number(JSON.parse(r.body).changeEventId)))];
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    }
  });

  it('a running worker follows `rsg clock advance` from another process to the minute of the next retry', async () => {
    for (const worker of workers) worker.child.kill('SIGKILL');
    const endpoint = receiver.endpoint();
    const path = new URL(endpoint).pathname;
    receiver.answer = (request) => (request.path === path ? 500 : 200);
    await createWatchlist(t, { pushEndpoint: endpoint });
    await makeChange(t);
    workers.push(await startWorker(t));
    await receiver.waitFor(path, 1);
    const advanced = await rsg(['clock', 'advance', '19m'], { urls: t.gateway.urls });
    expect(advanced.code, advanced.stderr).toBe(0);
    expect((await rsg(['clock', 'advance', '1m'], { urls: t.gateway.urls })).code).toBe(0);
    await receiver.waitFor(path, 2);
    // The retry came on the 20th minute of the sandbox clock the worker followed, not at 19 when nothing
    // was due (an early retry would be this second attempt, recorded 19 minutes after the first; the
    // next retry is far later than a minute).
    const record = await vi.waitFor(
      async () => {
        const rows = await t.gateway.runtime.environments.sandbox.pool.query<{
          first_attempt_at: Date;
          last_attempt_at: Date;
        }>(
          `SELECT first_attempt_at, last_attempt_at FROM nzbn_notifications n
             JOIN nzbn_watchlists w ON w.id = n.watchlist_id WHERE w.push_endpoint = $1 AND n.attempts = 2`,
          [endpoint],
        );
        expect(rows.rows).toHaveLength(1);
        return rows.rows[0]!;
      },
      { timeout: 10_000, interval: 100 },
    );
    const gap = record.last_attempt_at.getTime() - record.first_attempt_at.getTime();
    expect(Math.floor(gap / 60_000)).toBe(20);
    receiver.answer = () => 200;
  });

  it('rsg worker --once runs what is due and exits', async () => {
    const endpoint = receiver.endpoint();
    for (const worker of workers) worker.child.kill('SIGKILL');
    await createWatchlist(t, { pushEndpoint: endpoint });
    await makeChange(t);
    const result = await rsg(['worker', '--once'], {
      urls: t.gateway.urls,
      env: { RSG_SANDBOX_ACTIVITY_PER_HOUR: '0' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/sandbox-nzbn: .*push delivery worker \d+/);
    expect(receiver.on(new URL(endpoint).pathname)).toHaveLength(1);
  });
});
