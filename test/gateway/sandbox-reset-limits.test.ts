import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateProduct } from '../../src/gateway/store/products.ts';
import { freePort } from '../support/ports.ts';
import { redisServerBinary, TestRedis } from '../support/redis-server.ts';
import { subscriber, type TestGateway, testGateway } from '../support/runtime.ts';

/**
 * A sandbox reset forgets the sandbox's rate-limit and quota counts — in every process's memory, and on
 * Redis for all of them — and no production count: a sandbox key refused for its rate before the reset
 * is let through after it, a production key is still refused.
 */
function limitsCase(store: 'memory' | 'redis') {
  let gateway: TestGateway;
  let redis: TestRedis | undefined;
  let keys: { sandbox: string; production: string; operator: string };

  beforeAll(async () => {
    if (store === 'redis') {
      redis = new TestRedis(await freePort());
      await redis.start();
    }
    gateway = await testGateway({ env: { REDIS_URL: redis?.url ?? '' } });
    expect(gateway.runtime.limits.kind).toBe(store);
    await gateway.runtime.sandboxStates.keepSeeded('small');
    const pool = gateway.runtime.gateway.pool;
    for (const product of ['sandbox-nzbn', 'production-nzbn']) {
      await updateProduct(pool, product, { rateLimitPerMinute: 2 });
    }
    keys = {
      sandbox: (await subscriber(gateway, 'sandbox-nzbn')).primaryKey,
      production: (await subscriber(gateway, 'production-nzbn')).primaryKey,
      operator: (await subscriber(gateway, 'sandbox-nzbn', { operator: true })).primaryKey,
    };
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await redis?.stop();
  });

  const call = (environment: 'sandbox' | 'gateway', key: string) =>
    gateway.app.inject({
      url: `/${environment}/nzbn/v5/entities/9429000000000`,
      headers: { 'ocp-apim-subscription-key': key },
    });

  it(`${store}: the sandbox's counts go, production's stay`, async () => {
    for (const [environment, key] of [
      ['sandbox', keys.sandbox],
      ['gateway', keys.production],
    ] as const) {
      for (let i = 0; i < 2; i++) expect((await call(environment, key)).statusCode).not.toBe(429);
      expect((await call(environment, key)).statusCode).toBe(429);
    }
    const reset = await gateway.app.inject({
      method: 'POST',
      url: '/sandbox/admin/reset',
      headers: { 'ocp-apim-subscription-key': keys.operator },
    });
    expect(reset.statusCode, reset.body).toBe(200);
    expect((await call('sandbox', keys.sandbox)).statusCode).not.toBe(429);
    expect((await call('gateway', keys.production)).statusCode).toBe(429);
  });

  // A reseed takes as long as a seed: once, not again on Redis, with a seed's time to finish.
  it.runIf(store === 'memory')(
    'the HTTP reset takes the CLI’s scale and reseed, and names a wrong one',
    async () => {
      const reset = (query: string) =>
        gateway.app.inject({
          method: 'POST',
          url: `/sandbox/admin/reset${query}`,
          headers: { 'ocp-apim-subscription-key': keys.operator },
        });
      const reseeded = await reset('?scale=small&reseed=true');
      expect(reseeded.statusCode, reseeded.body).toBe(200);
      expect(reseeded.json()).toMatchObject({ state: 'seed:small', seeded: true });
      const again = await reset('?scale=small');
      expect(again.json()).toMatchObject({ state: 'seed:small', seeded: false });
      for (const query of ['?scale=huge', '?reseed=perhaps']) {
        const refused = await reset(query);
        expect(refused.statusCode, query).toBe(400);
        expect(refused.body).toMatch(/scale|reseed/);
      }
    },
    // A small seed of all five registers: 16 s on an idle machine, past 30 s on a loaded one.
    180_000,
  );
}

describe('sandbox reset and rate limits in memory', () => limitsCase('memory'));
describe.runIf(redisServerBinary)('sandbox reset and rate limits on Redis', () => limitsCase('redis'));
