import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubscription } from '../../../src/gateway/operations/subscriptions.ts';
import { type TestGateway, testGateway } from '../../support/runtime.ts';
import { BASE, type PpsrTest, ppsrTest } from './support/api.ts';

/**
 * The published "rate limited per user per minute" on the secured interests register (the gateway's
 * per-user limit, test/gateway/user-limit.test.ts covers the capability itself): one user's calls count
 * together across their keys and, with Redis, across processes; the product's per-key limit still applies.
 */
let test: PpsrTest;
let second: TestGateway | undefined;
const LIMIT = 3;
beforeAll(async () => {
  test = await ppsrTest({ env: { RSG_PPSR_USER_RATE_LIMIT: String(LIMIT) } });
}, 120_000);
afterAll(async () => {
  await second?.close();
  await test?.close();
});

const read = (gateway: TestGateway, key: string, token: string) =>
  gateway.app.inject({
    method: 'GET',
    url: `${BASE}/customer-organisation`,
    headers: { 'ocp-apim-subscription-key': key, authorization: `Bearer ${token}` },
  });

describe('per user per minute', () => {
  it('states the limit in the OpenAPI document', async () => {
    const document = (await test.gateway.app.inject({ method: 'GET', url: `${BASE}/openapi.json` })).json();
    expect(JSON.stringify(document)).toContain('x-user-rate-limit');
  });

  it(`counts one user's calls across two keys (${LIMIT} a minute) and across processes`, async () => {
    const other = await createSubscription(test.gateway.runtime.gateway.pool, {
      userId: test.user.userId,
      productId: 'sandbox-ppsr',
      state: 'active',
    });
    const keys = [test.key, other.primaryKey];
    const first = await read(test.gateway, keys[0]!, test.user.token);
    expect(first.statusCode, first.body).toBe(200);
    expect((await read(test.gateway, keys[1]!, test.user.token)).statusCode).toBe(200);
    let gateway = test.gateway;
    if (process.env.REDIS_URL) {
      // A second process on the same databases and Redis counts the same user.
      second = await testGateway({
        urls: test.gateway.urls,
        env: { RSG_PPSR_USER_RATE_LIMIT: String(LIMIT) },
      });
      gateway = second;
    }
    expect((await read(gateway, keys[1]!, test.user.token)).statusCode).toBe(200);
    const refused = await read(gateway, keys[0]!, test.user.token);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      statusCode: 429,
      message: expect.stringMatching(/^Rate limit is exceeded\. Try again in \d+ seconds\.$/),
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });
});
