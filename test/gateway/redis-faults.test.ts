import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { updateProduct } from '../../src/gateway/store/products.ts';
import { PortalClient, uniqueEmail } from '../portal/support/api.ts';
import { servicesWithEcho } from '../support/echo-service.ts';
import { freePort, redisServerBinary, TestRedis } from '../support/redis-server.ts';
import { subscriber, type TestGateway, testGateway } from '../support/runtime.ts';

/**
 * Policy under test (README "Operations"): with REDIS_URL, Redis going away never takes a request down.
 * Each gateway process counts rate limits and quotas alone during the outage (logged once, shown by
 * rsg_redis_up 0 and rsg_rate_limit_fallback_total), and counts exactly on Redis again once it is back.
 * Two gateways (two processes of one deployment) share the databases and the test's own redis-server.
 */
describe.skipIf(!redisServerBinary)('gateway when Redis goes away (own redis-server)', () => {
  const rateUrl = '/sandbox/nzbn/v5/echo'; // 5 calls a minute
  const quotaUrl = '/sandbox/tenancy-services/market-rent/v2/echo'; // 3 calls per 5 minutes
  let redis: TestRedis;
  let gateways: TestGateway[];
  let operatorKey: string;
  const warned = new Set<string>();
  const logged: { level: 'warn' | 'info'; message: string }[] = [];

  beforeAll(async () => {
    redis = new TestRedis(await freePort());
    await redis.start();
    const options = {
      // A generous bound: a loaded test machine must not turn a slow answer into an outage.
      env: { REDIS_URL: redis.url, RSG_REDIS_TIMEOUT_MS: '1000' },
      app: { services: servicesWithEcho(['nzbn', 'market-rent']) },
    };
    const first = await testGateway(options);
    const second = await testGateway({ ...options, urls: first.urls });
    gateways = [first, second];
    // /metrics on the public port answers an operator's key only.
    operatorKey = (await subscriber(first, 'sandbox-ppsr', { operator: true })).primaryKey;
    const pool = first.runtime.gateway.pool;
    await updateProduct(pool, 'sandbox-nzbn', { rateLimitPerMinute: 5, quota: null });
    await updateProduct(pool, 'sandbox-market-rent', {
      rateLimitPerMinute: 100,
      quota: { calls: 3, periodSeconds: 300 },
    });
    // Log lines about Redis, from either gateway (apps built without a logger share one no-op logger).
    for (const log of new Set(gateways.map((g) => g.app.log))) {
      for (const level of ['warn', 'info'] as const) {
        vi.spyOn(log, level).mockImplementation(((...args: unknown[]) => {
          const message = args.find((a) => typeof a === 'string') ?? '';
          if (/Redis/.test(message)) logged.push({ level, message });
          if (level === 'warn') warned.add(message);
        }) as never);
      }
    }
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    const [first, second] = gateways ?? [];
    await second?.close();
    await first?.close();
    await redis?.stop();
  });

  const call = (gateway: TestGateway, url: string, key: string) =>
    gateway.app.inject({ method: 'GET', url, headers: { 'Ocp-Apim-Subscription-Key': key } });

  /** `n` concurrent calls on each gateway; tried, answered by status, lost (no answer or 5xx). */
  async function drive(url: string, key: string, n: number) {
    const settled = await Promise.allSettled(
      gateways.flatMap((gateway) => Array.from({ length: n }, () => call(gateway, url, key))),
    );
    const statuses = settled.map((s) => (s.status === 'fulfilled' ? s.value.statusCode : 0));
    const perGateway = gateways.map(
      (_, i) => statuses.slice(i * n, (i + 1) * n).filter((s) => s === 200).length,
    );
    return {
      tried: statuses.length,
      ok: statuses.filter((s) => s === 200).length,
      refused: statuses.filter((s) => s === 429 || s === 403).length,
      lost: statuses.filter((s) => s === 0 || s >= 500).length,
      perGateway,
    };
  }

  async function metric(gateway: TestGateway, name: string): Promise<number> {
    const text = (
      await gateway.app.inject({ url: '/metrics', headers: { 'Ocp-Apim-Subscription-Key': operatorKey } })
    ).body;
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return Number(line?.split(' ')[1]);
  }

  async function fallbackTotal(): Promise<number> {
    let total = 0;
    for (const gateway of gateways) total += await metric(gateway, 'rsg_rate_limit_fallback_total');
    return total;
  }

  /** Counting is on Redis in both gateways, and exact across them. */
  async function exactOnRedis() {
    await vi.waitFor(
      async () => {
        for (const gateway of gateways) expect(await metric(gateway, 'rsg_redis_up')).toBe(1);
      },
      { timeout: 15_000, interval: 100 },
    );
    const before = await fallbackTotal();
    const { primaryKey } = await subscriber(gateways[0]!, 'sandbox-nzbn');
    expect(await drive(rateUrl, primaryKey, 8)).toMatchObject({ tried: 16, ok: 5, refused: 11, lost: 0 });
    expect(await fallbackTotal()).toBe(before);
  }

  for (const [name, end] of [
    ['killed (SIGKILL)', () => redis.kill('SIGKILL')],
    ['shut down (SHUTDOWN)', () => redis.shutdown()],
  ] as const) {
    it(`Redis ${name}: no request lost, limits per process, one warning, metrics; exact again when back`, async () => {
      await exactOnRedis();
      const warnings = logged.filter((l) => l.level === 'warn').length;
      const rate = await subscriber(gateways[0]!, 'sandbox-nzbn');
      const quota = await subscriber(gateways[0]!, 'sandbox-market-rent');
      const signInEmail = uniqueEmail();
      const before = await fallbackTotal();

      await end();
      // Straight away, without waiting for the gateways to notice.
      const rated = await drive(rateUrl, rate.primaryKey, 12);
      expect(rated).toEqual({ tried: 24, ok: 10, refused: 14, lost: 0, perGateway: [5, 5] });
      const quoted = await drive(quotaUrl, quota.primaryKey, 5);
      expect(quoted).toEqual({ tried: 10, ok: 6, refused: 4, lost: 0, perGateway: [3, 3] });
      // The portal's sign-in throttle (10 tries per 15 minutes) holds in this process too.
      const client = new PortalClient(gateways[0]!.app);
      const signIns: number[] = [];
      for (let i = 0; i < 11; i++) {
        const attempt = await client.submit('/portal/signin', '/portal/signin', {
          email: signInEmail,
          password: 'not the password',
        });
        signIns.push(attempt.statusCode);
      }
      expect(signIns).toEqual([...Array(10).fill(401), 429]);
      console.log(
        `Redis ${name}: tried ${rated.tried + quoted.tried + signIns.length}, refused ${rated.refused + quoted.refused + 1}, lost ${rated.lost + quoted.lost}`,
      );

      for (const gateway of gateways) expect(await metric(gateway, 'rsg_redis_up')).toBe(0);
      expect(await fallbackTotal()).toBe(before + 24 + 10 + 11);
      // One warning per gateway for the whole outage, however many requests fell in it.
      expect(logged.filter((l) => l.level === 'warn').length - warnings).toBe(2);
      expect([...warned].some((m) => /Redis is unreachable/.test(m))).toBe(true);

      const backs = logged.filter((l) => l.level === 'info').length;
      await redis.start();
      await exactOnRedis();
      expect(logged.filter((l) => l.level === 'info').length - backs).toBe(2);
      expect(logged.at(-1)?.message).toMatch(/Redis is back/);
    });
  }

  it('Redis stops answering (SIGSTOP): calls on the open connection time out and are decided locally', async () => {
    await exactOnRedis();
    const rate = await subscriber(gateways[0]!, 'sandbox-nzbn');
    const before = await fallbackTotal();
    redis.pause();
    try {
      // The connection still looks healthy: these calls reach Redis and get no answer within
      // RSG_REDIS_TIMEOUT_MS, and must still be answered.
      const rated = await drive(rateUrl, rate.primaryKey, 12);
      expect(rated).toEqual({ tried: 24, ok: 10, refused: 14, lost: 0, perGateway: [5, 5] });
      for (const gateway of gateways) expect(await metric(gateway, 'rsg_redis_up')).toBe(0);
      expect(await fallbackTotal()).toBe(before + 24);
    } finally {
      redis.resume();
    }
    await exactOnRedis();
  });

  it('readiness is not tied to Redis: /readyz stays ready while it is away', async () => {
    await redis.kill('SIGKILL');
    try {
      for (const gateway of gateways) {
        const ready = await gateway.app.inject({ url: '/readyz' });
        expect(ready.statusCode).toBe(200);
      }
    } finally {
      await redis.start();
    }
    await exactOnRedis();
  });
});
