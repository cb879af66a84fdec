import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { updateProduct } from '../src/gateway/products.ts';
import { createSubscription } from '../src/gateway/subscriptions.ts';
import { addUser } from '../src/identity/users.ts';
import { openRuntime } from '../src/runtime.ts';

/**
 * The whole gateway with the real IP office service, for bench/iponz.ts: one process, a sandbox key
 * with limits the benchmark cannot reach. Prints {port, key, pid} once listening.
 */
const urls = JSON.parse(process.env.RSG_BENCH_URLS ?? '{}');
const config = loadConfig({ ...process.env, LOG_LEVEL: 'warn' });
const runtime = await openRuntime(config, { urls, embedded: undefined });
const pool = runtime.gateway.pool;
await updateProduct(pool, 'sandbox-iponz', {
  rateLimitPerMinute: 100_000_000,
  quota: { calls: 1_000_000_000, periodSeconds: 86_400 },
});
const user = await addUser(pool, { email: `bench-${Date.now()}-${process.pid}@example.test` });
const { primaryKey } = await createSubscription(pool, {
  userId: user.id,
  productId: 'sandbox-iponz',
  state: 'active',
});
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
