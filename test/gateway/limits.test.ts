import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateProduct } from '../../src/gateway/store/products.ts';
import { servicesWithEcho } from '../support/echo-service.ts';
import { subscriber, type TestGateway, testGateway } from '../support/runtime.ts';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway({ app: { services: servicesWithEcho(['nzbn', 'market-rent', 'iponz']) } });
  const pool = gateway.runtime.gateway.pool;
  await updateProduct(pool, 'sandbox-nzbn', { rateLimitPerMinute: 5, quota: null });
  await updateProduct(pool, 'sandbox-market-rent', {
    rateLimitPerMinute: 100,
    quota: { calls: 3, periodSeconds: 300 },
  });
});
afterAll(() => gateway?.close());

const call = (target: TestGateway, url: string, key: string) =>
  target.app.inject({ method: 'GET', url, headers: { 'Ocp-Apim-Subscription-Key': key } });

describe('rate limit', () => {
  it('the 6th call in a minute under a limit of 5 → 429 with Retry-After and the API Management body', async () => {
    const { primaryKey, secondaryKey } = await subscriber(gateway, 'sandbox-nzbn');
    for (let i = 0; i < 5; i++)
      expect((await call(gateway, '/sandbox/nzbn/v5/echo', primaryKey)).statusCode).toBe(200);
    const refused = await call(gateway, '/sandbox/nzbn/v5/echo', primaryKey);
    expect(refused.statusCode).toBe(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.json()).toEqual({
      statusCode: 429,
      message: `Rate limit is exceeded. Try again in ${retryAfter} seconds.`,
    });
    // The limit is per subscription: the secondary key shares it.
    expect((await call(gateway, '/sandbox/nzbn/v5/echo', secondaryKey)).statusCode).toBe(429);
  });

  it('each subscription has its own window', async () => {
    const first = await subscriber(gateway, 'sandbox-nzbn');
    const second = await subscriber(gateway, 'sandbox-nzbn');
    for (let i = 0; i < 5; i++) await call(gateway, '/sandbox/nzbn/v5/echo', first.primaryKey);
    expect((await call(gateway, '/sandbox/nzbn/v5/echo', first.primaryKey)).statusCode).toBe(429);
    expect((await call(gateway, '/sandbox/nzbn/v5/echo', second.primaryKey)).statusCode).toBe(200);
  });
});

describe('quota', () => {
  it('past the quota → 403 with Retry-After and the replenish time', async () => {
    const { primaryKey } = await subscriber(gateway, 'sandbox-market-rent');
    const url = '/sandbox/tenancy-services/market-rent/v2/echo';
    for (let i = 0; i < 3; i++) expect((await call(gateway, url, primaryKey)).statusCode).toBe(200);
    const refused = await call(gateway, url, primaryKey);
    expect(refused.statusCode).toBe(403);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(300);
    expect(refused.json().statusCode).toBe(403);
    expect(refused.json().message).toMatch(
      /^Out of call volume quota\. Quota will be replenished in 00:0[0-5]:\d\d\.$/,
    );
  });
});

describe.runIf(process.env.REDIS_URL)('two app instances sharing Redis', () => {
  it('enforce one limit together', async () => {
    const second = await testGateway({
      urls: gateway.urls,
      app: { services: servicesWithEcho(['nzbn', 'market-rent', 'iponz']) },
    });
    try {
      await updateProduct(gateway.runtime.gateway.pool, 'sandbox-iponz', {
        rateLimitPerMinute: 8,
        quota: null,
      });
      const { primaryKey } = await subscriber(gateway, 'sandbox-iponz');
      const url = '/sandbox/iponz/v5/echo';
      const statuses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          call(i % 2 ? gateway : second, url, primaryKey).then((r) => r.statusCode),
        ),
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(8);
      expect(statuses.filter((s) => s === 429)).toHaveLength(12);
    } finally {
      await second.app.close();
      await second.runtime.close();
    }
  });
});
