import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { updateProduct } from '../../src/gateway/store/products.ts';
import { databaseName } from '../../src/platform/db/urls.ts';
import { type JobsHandle, startJobs } from '../../src/runtime.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from '../services/nzbn/support/api.ts';
import { createWatchlist, Receiver, sandboxNow } from '../services/nzbn/support/watchlists.ts';
import { terminateDuringLoad } from '../support/database-faults.ts';

/**
 * The gateway survives its database: connections ended under load, a statement timeout, an exhausted
 * pool. Every answer is a success or a 503 with Retry-After in the API's own dialect; nothing
 * acknowledged is lost and nothing refused is half-written; background jobs resume and lose nothing.
 * (The server stopped and started again is in database-restart.test.ts.)
 */

const E = FIXTURE.authority;

function expect503InDialect(response: LightMyRequestResponse): void {
  expect(response.statusCode, response.body).toBe(503);
  expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
  expect(response.json()).toMatchObject({
    status: '503',
    errorCode: 'service-unavailable',
    errorDescription: expect.stringContaining('Try again'),
    list: [],
  });
}

describe('connections ended under load', () => {
  let t: NzbnTest;
  let jobs: JobsHandle;
  let receiver: Receiver;

  beforeAll(async () => {
    t = await nzbnTest();
    await updateProduct(t.gateway.runtime.gateway.pool, 'sandbox-nzbn', { rateLimitPerMinute: 100_000 });
    await t.grant(t.owner.userId, E);
    receiver = await new Receiver(() => sandboxNow(t)).start();
    jobs = await startJobs(t.gateway.runtime, 'http://127.0.0.1:8080');
  });
  afterAll(async () => {
    await jobs?.stop();
    await receiver?.close();
    await t?.close();
  });

  // Hundreds of ended connections, their reconnections and the pushes after them: on a loaded machine
  // the whole takes longer than the suite's default 30 s. It tests outcomes, not speed.
  it('4 clients of searches, watchlist reads and writes: only successes and 503s, nothing acknowledged lost, pushes resume', async () => {
    const sandbox = t.gateway.runtime.environments.sandbox.pool;
    const since = (
      await sandbox.query<{ id: string }>('SELECT coalesce(max(id), 0)::text AS id FROM nzbn_change_events')
    ).rows[0]!.id;
    const endpoint = receiver.endpoint();
    const watchlist = await createWatchlist(t, { pushEndpoint: endpoint, nzbns: [E] });
    const acknowledged: string[] = [];
    const refused: string[] = [];
    const statuses = new Map<number, number>();
    const tally = (response: LightMyRequestResponse) => {
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      if (response.statusCode === 503) expect503InDialect(response);
      else expect(response.statusCode, response.body).toBeLessThan(300);
    };
    const client = async (n: number) => {
      for (let i = 0; i < 90; i++) {
        const kind = (i + n) % 3;
        if (kind === 0) tally(await t.call('GET', `/entities?search-term=limited&page-size=5&page=${i % 4}`));
        else if (kind === 1) tally(await t.call('GET', `/watchlists/${watchlist.watchlistId}`));
        else {
          const url = `https://w${n}-${i}-${randomBytes(3).toString('hex')}.example.nz`;
          // The published body and answer of POST websites: an array, 200 with the list.
          const response = await t.call('POST', `/entities/${E}/websites`, {
            token: t.owner.token,
            payload: [{ url }],
          });
          tally(response);
          (response.statusCode === 200 ? acknowledged : refused).push(url);
        }
      }
    };
    const load = Promise.all([0, 1, 2, 3].map(client));
    const answered = () => [...statuses.values()].reduce((a, b) => a + b, 0);
    const terminated = await terminateDuringLoad(t.gateway.urls, load, answered);
    // The gateway serves again without a restart.
    await vi.waitFor(
      async () => expect((await t.call('GET', '/entities?search-term=limited')).statusCode).toBe(200),
      { timeout: 5_000, interval: 100 },
    );

    const tried = [...statuses.values()].reduce((a, b) => a + b, 0);
    console.log(
      `terminated ${terminated} backends during ${tried} requests: ${JSON.stringify(Object.fromEntries(statuses))}, ` +
        `writes acknowledged ${acknowledged.length}, refused ${refused.length}`,
    );
    expect(terminated).toBeGreaterThan(0);
    expect(statuses.get(503) ?? 0).toBeGreaterThan(0);
    expect(acknowledged.length).toBeGreaterThan(0);

    // Nothing acknowledged is lost; nothing is half-written: every website on the entity has its change
    // event and every change event its website.
    const present = await t.call('GET', `/entities/${E}`, { token: t.owner.token });
    const urls = new Set<string>(present.json().websites.map((w: { url: string }) => w.url));
    for (const url of acknowledged) expect(urls.has(url), url).toBe(true);
    const events = await sandbox.query<{ url: string }>(
      `SELECT new_value->>'url' AS url FROM nzbn_change_events WHERE nzbn = $1 AND new_value->>'url' IS NOT NULL`,
      [E],
    );
    const evented = new Set(events.rows.map((row) => row.url));
    const ours = (url: string) => /^https:\/\/w\d-/.test(url);
    expect([...urls].filter(ours).sort()).toEqual([...evented].filter(ours).sort());

    // Background jobs resumed: every change event of the watched entity is pushed, once, in order.
    const recorded = await sandbox.query<{ id: string }>(
      'SELECT e.id::text AS id FROM nzbn_change_events e WHERE e.nzbn = $1 AND e.id > $2 ORDER BY e.id',
      [E, since],
    );
    const deliveries = () =>
      receiver.on(new URL(endpoint).pathname).map((d) => ({
        event: JSON.parse(d.body).changeEventId as string,
        id: String(d.headers['webhook-id']),
      }));
    // At least once, in order: the first delivery of each change follows the register's order and
    // misses none. A delivery whose mark died with its connection is sent again, with the same
    // webhook-id (receivers deduplicate on it); never one change under two ids or two under one. A
    // lease held by a worker number whose connection was ended is free once its lock is gone; the
    // worker comes back under a new number within a second or so.
    const firstsOf = () => [...new Set(deliveries().map((d) => d.event))];
    await vi.waitFor(
      async () => {
        await jobs.settle();
        expect(firstsOf()).toEqual(recorded.rows.map((row) => row.id));
      },
      { timeout: 20_000, interval: 250 },
    );
    const firsts = firstsOf();
    const idOf = new Map<string, string>();
    for (const { event, id } of deliveries()) {
      expect(idOf.get(event) ?? id, `change ${event}`).toBe(id);
      idOf.set(event, id);
    }
    expect(new Set(idOf.values()).size).toBe(idOf.size);
    console.log(
      `pushed ${firsts.length} changes in ${deliveries().length} deliveries (repeats keep their webhook-id)`,
    );
  }, 120_000);
});

describe('statement timeout and an exhausted pool', () => {
  let t: NzbnTest;

  beforeAll(async () => {
    t = await nzbnTest({
      env: {
        RSG_DB_POOL_SIZE: '2',
        RSG_DB_ACQUIRE_TIMEOUT_MS: '200',
        // Long enough for two held writes to reach the lock and the refused read to be made on a loaded
        // machine before the held ones time out.
        RSG_DB_STATEMENT_TIMEOUT_MS: '10000',
      },
    });
    await t.grant(t.owner.userId, E);
  });
  afterAll(() => t?.close());

  /** Holds the entity's row lock in a transaction of its own until `release` is called. */
  async function lockEntity() {
    const client = new pg.Client({ connectionString: t.gateway.urls.sandbox });
    client.on('error', () => {});
    await client.connect();
    await client.query('BEGIN');
    await client.query('SELECT 1 FROM nzbn_entities WHERE nzbn = $1 FOR UPDATE', [E]);
    return async () => {
      await client.query('ROLLBACK');
      await client.end();
    };
  }

  const websites = async () =>
    (await t.call('GET', `/entities/${E}`, { token: t.owner.token })).json().websites.length as number;
  const waitingOnLock = async (count: number) =>
    vi.waitFor(async () => {
      const result = await t.gateway.runtime.gateway.pool.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'`,
        [databaseName(t.gateway.urls.sandbox)],
      );
      expect(result.rowCount).toBeGreaterThanOrEqual(count);
    }, 8_000);

  it('a write that outlasts the statement timeout is 503 in the dialect, nothing written', async () => {
    const before = await websites();
    const release = await lockEntity();
    try {
      const response = await t.call('POST', `/entities/${E}/websites`, {
        token: t.owner.token,
        payload: [{ url: 'https://timed-out.example.nz' }],
      });
      expect503InDialect(response);
    } finally {
      await release();
    }
    expect(await websites()).toBe(before);
    const after = await t.call('POST', `/entities/${E}/websites`, {
      token: t.owner.token,
      payload: [{ url: 'https://after-timeout.example.nz' }],
    });
    expect(after.statusCode, after.body).toBe(200);
  });

  it('every connection busy: the next request is 503 after the acquire timeout, not queued without bound', async () => {
    const release = await lockEntity();
    const held = [0, 1].map((i) =>
      t.call('POST', `/entities/${E}/websites`, {
        token: t.owner.token,
        payload: [{ url: `https://held-${i}.example.nz` }],
      }),
    );
    try {
      await waitingOnLock(2);
      const refused = await t.call('GET', '/entities?search-term=limited');
      expect503InDialect(refused);
    } finally {
      await release();
    }
    for (const response of await Promise.all(held)) expect(response.statusCode, response.body).toBe(200);
    expect((await t.call('GET', '/entities?search-term=limited')).statusCode).toBe(200);
  });
});
