import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createSubscription } from '../../src/gateway/operations/subscriptions.ts';
import { updateProduct } from '../../src/gateway/store/products.ts';
import { addUser } from '../../src/identity/operations/users.ts';
import { openRuntime } from '../../src/runtime.ts';
import { SERVICES } from '../../src/services/registry.ts';

/**
 * The whole gateway with every real service, in one process, on databases the parent has made
 * (RSG_BENCH_URLS), and a sandbox key to the service RSG_BENCH_SERVICE names (`iponz`, `market-rent`)
 * with limits the benchmark cannot reach. Prints {port, key, pid} once listening. For bench/iponz.ts
 * and bench/market-rent.ts.
 */
const service = process.env.RSG_BENCH_SERVICE ?? '';
if (!SERVICES.some((known) => known.id === service)) {
  throw new Error(`RSG_BENCH_SERVICE must name a service (${SERVICES.map((s) => s.id).join(', ')})`);
}
const productId = `sandbox-${service}`;
const urls = JSON.parse(process.env.RSG_BENCH_URLS ?? '{}');
const config = loadConfig({ ...process.env, LOG_LEVEL: 'warn' });
const runtime = await openRuntime(config, { urls, embedded: undefined });
const pool = runtime.gateway.pool;
await updateProduct(pool, productId, {
  rateLimitPerMinute: 100_000_000,
  quota: { calls: 1_000_000_000, periodSeconds: 86_400 },
});
const user = await addUser(pool, { email: `bench-${Date.now()}-${process.pid}@example.test` });
const { primaryKey } = await createSubscription(pool, { userId: user.id, productId, state: 'active' });
const app = await buildApp(runtime, { logger: false });
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0, key: primaryKey, pid: process.pid })}\n`,
);
process.on('SIGTERM', async () => {
  await app.close();
  await runtime.close();
  process.exit(0);
});
