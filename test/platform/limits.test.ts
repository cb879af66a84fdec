import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryLimitStore, RedisLimitStore } from '../../src/platform/limits/index.ts';

const rate = { limit: 5, windowMs: 60_000 };

describe('sliding-window rate limit in memory', () => {
  it('refuses the (N+1)th call in any 60-second window, and says when to retry', () => {
    let now = 1_000_000;
    const store = new MemoryLimitStore(() => now);
    for (let i = 0; i < 5; i++) {
      expect(store.checkSync({ key: 'k', rate })).toEqual({ allowed: true });
      now += 1000; // calls at 0 s, 1 s … 4 s
    }
    expect(store.checkSync({ key: 'k', rate })).toEqual({
      allowed: false,
      reason: 'rate',
      retryAfterMs: 55_000,
    });
    now = 1_000_000 + 59_999;
    expect(store.checkSync({ key: 'k', rate })).toMatchObject({ allowed: false, retryAfterMs: 1 });
    now = 1_000_000 + 60_000; // the first call leaves the window
    expect(store.checkSync({ key: 'k', rate })).toEqual({ allowed: true });
    expect(store.checkSync({ key: 'k', rate })).toMatchObject({ allowed: false, retryAfterMs: 1000 });
  });

  it('slides: a burst at the end of one window cannot be followed by a burst at the start of the next', () => {
    let now = 59_000;
    const store = new MemoryLimitStore(() => now);
    for (let i = 0; i < 5; i++) expect(store.checkSync({ key: 'k', rate }).allowed).toBe(true);
    now = 61_000; // a fixed window would have reset here
    expect(store.checkSync({ key: 'k', rate }).allowed).toBe(false);
  });

  it('keeps keys apart, and does not count refused calls', () => {
    let now = 0;
    const store = new MemoryLimitStore(() => now);
    for (let i = 0; i < 5; i++) store.checkSync({ key: 'a', rate });
    for (let i = 0; i < 10; i++) expect(store.checkSync({ key: 'a', rate }).allowed).toBe(false);
    expect(store.checkSync({ key: 'b', rate }).allowed).toBe(true);
    now = 60_001;
    for (let i = 0; i < 5; i++) expect(store.checkSync({ key: 'a', rate }).allowed).toBe(true);
  });

  it('counts every call of a busy millisecond, and lets them all go when that millisecond leaves the window (property, against a plain list)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 1, max: 40 }),
        (steps, limit) => {
          let now = 5_000;
          const window = { limit, windowMs: 50 };
          const store = new MemoryLimitStore(() => now);
          const allowed: number[] = [];
          for (const step of steps) {
            now += step; // often 0: several calls in one millisecond
            const inWindow = allowed.filter((t) => t > now - window.windowMs);
            const outcome = store.checkSync({ key: 'k', rate: window });
            if (inWindow.length < limit) {
              expect(outcome).toEqual({ allowed: true });
              allowed.push(now);
            } else {
              expect(outcome).toEqual({
                allowed: false,
                reason: 'rate',
                retryAfterMs: Math.min(...inWindow) + window.windowMs - now,
              });
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('quota: calls per fixed period, replenished at the period boundary', () => {
    let now = 3_600_000 * 10 + 1000;
    const store = new MemoryLimitStore(() => now);
    const request = {
      key: 'q',
      rate: { limit: 1000, windowMs: 60_000 },
      quota: { limit: 3, periodMs: 3_600_000 },
    };
    for (let i = 0; i < 3; i++) expect(store.checkSync(request).allowed).toBe(true);
    expect(store.checkSync(request)).toEqual({
      allowed: false,
      reason: 'quota',
      retryAfterMs: 3_600_000 - 1000,
    });
    now = 3_600_000 * 11;
    expect(store.checkSync(request).allowed).toBe(true);
  });
});

describe.runIf(process.env.REDIS_URL)('rate limit in Redis', () => {
  it('is exact across two stores (two processes) under concurrency', async () => {
    const prefix = `rsg-test-${randomBytes(4).toString('hex')}:`;
    const a = new RedisLimitStore(process.env.REDIS_URL!, prefix);
    const b = new RedisLimitStore(process.env.REDIS_URL!, prefix);
    try {
      const request = { key: 'shared', rate: { limit: 20, windowMs: 60_000 } };
      const outcomes = await Promise.all(
        Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).check(request)),
      );
      expect(outcomes.filter((o) => o.allowed)).toHaveLength(20);
      const refused = outcomes.find((o) => !o.allowed);
      expect(refused).toMatchObject({ allowed: false, reason: 'rate' });
      if (refused && !refused.allowed) {
        expect(refused.retryAfterMs).toBeGreaterThan(0);
        expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000);
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('quota is exact across stores', async () => {
    const prefix = `rsg-test-${randomBytes(4).toString('hex')}:`;
    const a = new RedisLimitStore(process.env.REDIS_URL!, prefix);
    const b = new RedisLimitStore(process.env.REDIS_URL!, prefix);
    try {
      const request = {
        key: 'q',
        rate: { limit: 1000, windowMs: 60_000 },
        quota: { limit: 7, periodMs: 86_400_000 },
      };
      const outcomes = await Promise.all(
        Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).check(request)),
      );
      expect(outcomes.filter((o) => o.allowed)).toHaveLength(7);
      expect(outcomes.filter((o) => !o.allowed && o.reason === 'quota')).toHaveLength(23);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
