import cluster from 'node:cluster';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createSubscription } from '../../src/gateway/operations/subscriptions.ts';
import { updateProduct } from '../../src/gateway/store/products.ts';
import { addUser } from '../../src/identity/operations/users.ts';
import { openDatabase } from '../../src/platform/db/pool.ts';
import { openRuntime } from '../../src/runtime.ts';

/**
 * The whole gateway with the real business number service, on databases the parent has migrated and
 * seeded (RSG_BENCH_URLS). With RSG_BENCH_WORKERS=N it serves the port from N processes, as
 * `rsg start --workers N` does. Prints its port and a sandbox key as one JSON line.
 */
const urls = JSON.parse(process.env.RSG_BENCH_URLS ?? '{}');
const workers = Number(process.env.RSG_BENCH_WORKERS ?? 1);

async function serve(): Promise<number> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'warn' });
  const runtime = await openRuntime(config, { urls, embedded: undefined }, { migrate: false });
  const app = await buildApp(runtime, { logger: false });
  await app.listen({ host: '127.0.0.1', port: Number(process.env.RSG_BENCH_PORT ?? 0) });
  process.on('SIGTERM', async () => {
    await app.close();
    await runtime.close();
    process.exit(0);
  });
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

if (cluster.isPrimary) {
  const gateway = openDatabase(urls.gateway, 2);
  // A limit the benchmark cannot reach, so every call is checked and none refused.
  await updateProduct(gateway.pool, 'sandbox-nzbn', {
    rateLimitPerMinute: 100_000_000,
    quota: { calls: 1_000_000_000, periodSeconds: 86_400 },
  });
  const user = await addUser(gateway.pool, { email: `bench-nzbn-${Date.now()}-${process.pid}@example.test` });
  const { primaryKey } = await createSubscription(gateway.pool, {
    userId: user.id,
    productId: 'sandbox-nzbn',
    state: 'active',
  });
  await gateway.close();
  if (workers <= 1) {
    const port = await serve();
    process.stdout.write(`${JSON.stringify({ port, key: primaryKey })}\n`);
  } else {
    let listening = 0;
    cluster.on('listening', (_worker, address) => {
      if (++listening === workers)
        process.stdout.write(`${JSON.stringify({ port: address.port, key: primaryKey })}\n`);
    });
    for (let i = 0; i < workers; i++) cluster.fork();
    process.on('SIGTERM', () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
      setTimeout(() => process.exit(0), 500);
    });
  }
} else {
  await serve();
}
