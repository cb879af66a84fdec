import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type LimitRequest,
  type LimitStore,
  MemoryLimitStore,
  RedisLimitStore,
} from '../../../src/platform/limits/index.ts';

/**
 * A shared sliding log (`LimitRequest.shared`): a second log several keys count in, checked in the
 * same step as the key's own (the gateway's per-user limit across a user's subscriptions). The call
 * must fit both; an allowed call is counted in both, a refused one in neither.
 */
const minute = 60_000;
const call = (key: string, keyLimit: number, user: string, userLimit: number): LimitRequest => ({
  key,
  rate: { limit: keyLimit, windowMs: minute },
  shared: { key: user, limit: userLimit, windowMs: minute },
});

describe('shared log in memory', () => {
  it('counts the calls of every key that shares it, and refuses the (N+1)th with the shared flag', () => {
    let now = 1_000_000;
    const store = new MemoryLimitStore(() => now);
    for (const key of ['a', 'b', 'a']) {
      expect(store.checkSync(call(key, 100, 'u', 3))).toEqual({ allowed: true });
      now += 1000; // calls at 0 s, 1 s, 2 s
    }
    expect(store.checkSync(call('c', 100, 'u', 3))).toEqual({
      allowed: false,
      reason: 'rate',
      retryAfterMs: 57_000,
      shared: true,
    });
    // Another shared log is untouched, through the same keys.
    expect(store.checkSync(call('a', 100, 'v', 3))).toEqual({ allowed: true });
    now = 1_000_000 + minute; // the first call leaves the window
    expect(store.checkSync(call('b', 100, 'u', 3))).toEqual({ allowed: true });
    expect(store.checkSync(call('b', 100, 'u', 3))).toMatchObject({ allowed: false, shared: true });
  });

  it("a call the shared log refuses does not spend the key's own limit", () => {
    const store = new MemoryLimitStore(() => 0);
    for (let i = 0; i < 2; i++) expect(store.checkSync(call('a', 5, 'u', 2)).allowed).toBe(true);
    for (let i = 0; i < 10; i++) expect(store.checkSync(call('a', 5, 'u', 2)).allowed).toBe(false);
    // Key a has spent 2 of its 5: three more fit under another shared log, then the key's own refusal.
    for (let i = 0; i < 3; i++) expect(store.checkSync(call('a', 5, 'v', 100)).allowed).toBe(true);
    expect(store.checkSync(call('a', 5, 'v', 100))).toEqual({
      allowed: false,
      reason: 'rate',
      retryAfterMs: minute,
    });
  });

  it("a call the key's limit refuses does not spend the shared log", () => {
    const store = new MemoryLimitStore(() => 0);
    expect(store.checkSync(call('a', 1, 'u', 3)).allowed).toBe(true);
    for (let i = 0; i < 10; i++) {
      const refused = store.checkSync(call('a', 1, 'u', 3));
      expect(refused).toEqual({ allowed: false, reason: 'rate', retryAfterMs: minute });
    }
    // The shared log holds one call: two more fit through another key.
    for (let i = 0; i < 2; i++) expect(store.checkSync(call('b', 10, 'u', 3)).allowed).toBe(true);
    expect(store.checkSync(call('b', 10, 'u', 3))).toMatchObject({ allowed: false, shared: true });
  });

  it('with both logs full, Retry-After is the later of the two', () => {
    let now = 0;
    const store = new MemoryLimitStore(() => now);
    expect(store.checkSync(call('a', 1, 'u', 100)).allowed).toBe(true); // key a full from 0 s
    now = 10_000;
    for (let i = 0; i < 3; i++) expect(store.checkSync(call('b', 100, 'u', 4)).allowed).toBe(true);
    // u: 0 s, 10 s, 10 s, 10 s — full; a full until 60 s, u until 60 s too (its oldest is 0 s).
    now = 20_000;
    expect(store.checkSync(call('a', 1, 'u', 4))).toEqual({
      allowed: false,
      reason: 'rate',
      retryAfterMs: 40_000,
      shared: true,
    });
    // Past 60 s, key a and u each have room again (u: the 0 s call left).
    now = 60_000;
    expect(store.checkSync(call('a', 1, 'u', 4)).allowed).toBe(true);
    // Now key a is full until 120 s, and u (10 s ×3, 60 s) until 70 s: the key's wait is the later.
    now = 65_000;
    expect(store.checkSync(call('a', 1, 'u', 4))).toEqual({
      allowed: false,
      reason: 'rate',
      retryAfterMs: 55_000,
      shared: true,
    });
  });

  it('a quota refusal spends neither log', () => {
    const store = new MemoryLimitStore(() => 5000);
    const request = (user: string, userLimit: number): LimitRequest => ({
      ...call('q', 100, user, userLimit),
      quota: { limit: 2, periodMs: 3_600_000 },
    });
    for (let i = 0; i < 2; i++) expect(store.checkSync(request('u', 3)).allowed).toBe(true);
    for (let i = 0; i < 5; i++) expect(store.checkSync(request('u', 3))).toMatchObject({ reason: 'quota' });
    // u holds two calls, so one more fits through another key.
    expect(store.checkSync(call('other', 100, 'u', 3)).allowed).toBe(true);
    expect(store.checkSync(call('other', 100, 'u', 3)).allowed).toBe(false);
  });

  it('keeps a longer window whole while shorter ones sweep the store', () => {
    let now = 0;
    const store = new MemoryLimitStore(() => now);
    const login = { key: 'login', rate: { limit: 2, windowMs: 15 * minute } };
    store.checkSync(call('k', 1000, 'u', 1000)); // the first call, with a one-minute window
    expect(store.checkSync(login).allowed).toBe(true);
    expect(store.checkSync(login).allowed).toBe(true);
    // Two minutes of one-minute traffic (each sweep drops logs idle for the longest window only).
    for (now = 1000; now <= 2 * minute; now += 10_000) store.checkSync(call('k', 1000, 'u', 1000));
    expect(store.checkSync(login)).toMatchObject({ allowed: false, reason: 'rate' });
    now = 15 * minute + 1;
    expect(store.checkSync(login).allowed).toBe(true);
  });
});

describe.runIf(process.env.REDIS_URL)('shared log in Redis', () => {
  /** Two stores on one Redis and one prefix: two gateway processes of one deployment. */
  async function withPair(work: (stores: LimitStore[]) => Promise<void>) {
    const prefix = `rsg-test-${randomBytes(4).toString('hex')}:`;
    const stores = [
      new RedisLimitStore(process.env.REDIS_URL!, prefix),
      new RedisLimitStore(process.env.REDIS_URL!, prefix),
    ];
    try {
      await work(stores);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  }

  it('is exact across keys and stores under concurrency', async () => {
    await withPair(async ([a, b]) => {
      const outcomes = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? a! : b!).check(call(`key-${i % 4}`, 100, 'u', 7))),
      );
      expect(outcomes.filter((o) => o.allowed)).toHaveLength(7);
      const refused = outcomes.filter((o) => !o.allowed);
      expect(refused).toHaveLength(33);
      for (const outcome of refused) {
        expect(outcome).toMatchObject({ allowed: false, reason: 'rate', shared: true });
        if (!outcome.allowed) {
          expect(outcome.retryAfterMs).toBeGreaterThan(0);
          expect(outcome.retryAfterMs).toBeLessThanOrEqual(minute);
        }
      }
    });
  });

  it('counts an allowed call in both logs and a refused one in neither', async () => {
    await withPair(async ([a, b]) => {
      // Key k1 (3 a minute) refuses 2 of 5; the user's log holds 3 of its 10.
      const first = await Promise.all(Array.from({ length: 5 }, () => a!.check(call('k1', 3, 'u', 10))));
      expect(first.filter((o) => o.allowed)).toHaveLength(3);
      expect(first.filter((o) => !o.allowed && !o.shared)).toHaveLength(2);
      // So seven more fit through key k2; the rest are the user's refusals.
      const second = await Promise.all(Array.from({ length: 12 }, () => b!.check(call('k2', 100, 'u', 10))));
      expect(second.filter((o) => o.allowed)).toHaveLength(7);
      expect(second.filter((o) => !o.allowed && o.shared)).toHaveLength(5);
      // Key k2's own log holds only its 7 allowed calls: 93 more fit under another user.
      const third = await Promise.all(Array.from({ length: 95 }, () => a!.check(call('k2', 100, 'v', 1000))));
      expect(third.filter((o) => o.allowed)).toHaveLength(93);
    });
  });

  it('a call without a shared log is decided as before, beside shared ones on the same key', async () => {
    await withPair(async ([a, b]) => {
      const plain = { key: 'p', rate: { limit: 4, windowMs: minute } };
      expect((await a!.check(plain)).allowed).toBe(true);
      expect((await b!.check(call('p', 4, 'u', 2))).allowed).toBe(true);
      expect((await a!.check(call('p', 4, 'u', 2))).allowed).toBe(true);
      expect(await b!.check(call('p', 4, 'u', 2))).toMatchObject({ allowed: false, shared: true });
      expect((await a!.check(plain)).allowed).toBe(true);
      expect(await b!.check(plain)).toMatchObject({ allowed: false, reason: 'rate' });
      expect(await a!.check(plain)).not.toHaveProperty('shared');
    });
  });
});
