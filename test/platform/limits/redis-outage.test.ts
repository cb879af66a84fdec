import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type LimitEvent,
  type LimitOutcome,
  type LimitRequest,
  RedisLimitStore,
} from '../../../src/platform/limits/index.ts';
import { freePort, redisServerBinary, TestRedis } from '../../support/redis-server.ts';

/**
 * The rate-limit store with its own redis-server, stopped and started under it: every decision is still
 * made (never an error, never a hang), limits hold per process during the outage, and counting returns
 * to Redis, exact across processes, once it is back.
 */
describe.skipIf(!redisServerBinary)('Redis rate-limit store when Redis goes away (own redis-server)', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = new TestRedis(await freePort());
    await redis.start();
  });
  afterAll(() => redis?.stop());

  const rate = { limit: 5, windowMs: 60_000 };
  const request = (key: string): LimitRequest => ({ key, rate });

  /** Two stores on one Redis and one prefix: two gateway processes of one deployment. */
  function pair(options = {}) {
    const prefix = `rsg-outage-${randomBytes(4).toString('hex')}:`;
    const stores = [
      new RedisLimitStore(redis.url, prefix, options),
      new RedisLimitStore(redis.url, prefix, options),
    ];
    const events: LimitEvent[][] = stores.map(() => []);
    for (const [i, store] of stores.entries()) store.watch((event) => events[i]!.push(event));
    return { stores, events, close: () => Promise.all(stores.map((store) => store.close())) };
  }

  /** `n` concurrent checks on each store; every one must come back with a decision. */
  async function drive(stores: RedisLimitStore[], key: string, n: number) {
    const settled = await Promise.allSettled(
      stores.flatMap((store) => Array.from({ length: n }, () => store.check(request(key)))),
    );
    const lost = settled.filter((s) => s.status === 'rejected').length;
    const outcomes = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const perStore = stores.map(
      (_, i) => outcomes.slice(i * n, (i + 1) * n).filter((o: LimitOutcome) => o.allowed).length,
    );
    return { tried: settled.length, lost, allowed: outcomes.filter((o) => o.allowed).length, perStore };
  }

  async function exactAcross(stores: RedisLimitStore[]) {
    await vi.waitFor(() => expect(stores.map((s) => s.health().redis)).toEqual(['up', 'up']), {
      timeout: 15_000,
      interval: 50,
    });
    const before = stores.map((s) => s.health().localDecisions);
    const result = await drive(stores, `exact-${randomBytes(3).toString('hex')}`, 10);
    expect(result).toMatchObject({ tried: 20, lost: 0, allowed: 5 });
    // Decided on Redis, not here.
    expect(stores.map((s) => s.health().localDecisions)).toEqual(before);
  }

  const faults = [
    { name: 'SIGKILL', options: {}, end: () => redis.kill('SIGKILL'), restore: () => redis.start() },
    { name: 'SHUTDOWN', options: {}, end: () => redis.shutdown(), restore: () => redis.start() },
    // Stopped, not gone: the connection looks open, calls get no answer; each costs one bounded wait
    // until the store gives up on the connection, then decisions are local at once.
    {
      name: 'SIGSTOP',
      options: { commandTimeoutMs: 1000 }, // generous: a loaded machine must not fake an outage
      end: async () => redis.pause(),
      restore: async () => redis.resume(),
    },
  ];

  for (const { name, options, end, restore } of faults) {
    it(`${name}: every check still decided, per process during the outage, exact on Redis again after`, async () => {
      const { stores, events, close } = pair(options);
      try {
        await exactAcross(stores);

        await end();
        try {
          // No waiting for the stores to notice: calls racing the outage must be decided too.
          const outage = await drive(stores, `outage-${name}`, 12);
          expect(outage).toEqual({ tried: 24, lost: 0, allowed: 10, perStore: [5, 5] });
          const more = await drive(stores, `outage-${name}`, 3);
          expect(more).toMatchObject({ tried: 6, lost: 0, allowed: 0 });
          for (const store of stores) {
            expect(store.health()).toEqual({ redis: 'down', localDecisions: 15 });
          }
          // Once per outage, however many decisions fell in it (and however many reconnections failed).
          expect(events).toEqual([
            [{ state: 'down', error: expect.any(String) }],
            [{ state: 'down', error: expect.any(String) }],
          ]);
        } finally {
          await restore();
        }

        await exactAcross(stores);
        expect(events.map((list) => list.map((e) => e.state))).toEqual([
          ['down', 'up'],
          ['down', 'up'],
        ]);
      } finally {
        await close();
      }
    });
  }

  it('Redis absent at start: the store starts local, says so once, and moves to Redis when it appears', async () => {
    const absent = new TestRedis(await freePort());
    const store = new RedisLimitStore(absent.url, 'rsg-absent:', { maxReconnectDelayMs: 200 });
    const events: LimitEvent[] = [];
    try {
      await store.ready();
      store.watch((event) => events.push(event));
      expect(store.health().redis).toBe('down');
      const outcomes = await Promise.all(Array.from({ length: 7 }, () => store.check(request('start'))));
      expect(outcomes.filter((o) => o.allowed)).toHaveLength(5);
      expect(events).toEqual([{ state: 'down', error: expect.stringContaining('ECONNREFUSED') }]);
      await absent.start();
      await vi.waitFor(() => expect(store.health().redis).toBe('up'), { timeout: 15_000, interval: 50 });
      expect(events.map((e) => e.state)).toEqual(['down', 'up']);
      // Counted on Redis from now on: a fresh window there.
      const onRedis = await Promise.all(Array.from({ length: 7 }, () => store.check(request('start'))));
      expect(onRedis.filter((o) => o.allowed)).toHaveLength(5);
      expect(store.health().localDecisions).toBe(7);
    } finally {
      await store.close();
      await absent.stop();
    }
  });
});
