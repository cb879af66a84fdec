import type { FastifyPluginAsync } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createSubscription } from '../../src/gateway/operations/subscriptions.ts';
import type { ServiceContext } from '../../src/gateway/service-context.ts';
import { updateProduct } from '../../src/gateway/store/products.ts';
import { addUser } from '../../src/identity/operations/users.ts';
import { openRuntime } from '../../src/runtime.ts';
import { SERVICES } from '../../src/services/registry.ts';
import { FIXED_ANSWER } from '../fixed-answer.ts';

/**
 * The same answer through the whole gateway: request id, key lookup, sliding-window rate limit and
 * quota check, usage counting, metrics. The database URLs come from the parent (RSG_BENCH_URLS).
 */
const urls = JSON.parse(process.env.RSG_BENCH_URLS ?? '{}');
const config = loadConfig({ ...process.env, LOG_LEVEL: 'warn' });
const runtime = await openRuntime(config, { urls, embedded: undefined });
const pool = runtime.gateway.pool;
// A limit the benchmark cannot reach, so every call is checked and none refused.
await updateProduct(pool, 'sandbox-nzbn', {
  rateLimitPerMinute: 100_000_000,
  quota: { calls: 1_000_000_000, periodSeconds: 86_400 },
});
const user = await addUser(pool, { email: `bench-${Date.now()}@example.test` });
const { primaryKey } = await createSubscription(pool, {
  userId: user.id,
  productId: 'sandbox-nzbn',
  state: 'active',
});

const fixed: FastifyPluginAsync<ServiceContext> = async (app) => {
  app.get('/fixed', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(FIXED_ANSWER),
  );
};
const services = SERVICES.map((service) => (service.id === 'nzbn' ? { ...service, routes: fixed } : service));
// With the logger on, as `rsg start` runs it (its lines go nowhere: the level is warn, and request
// logging is off below debug), so that the per-request logger costs here what it costs in production.
const app = await buildApp(runtime, { services, logStream: pino.destination('/dev/null') });
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0, key: primaryKey, limits: runtime.limits.kind })}\n`,
);
// With RSG_BENCH_PROFILE_DIR set, SIGUSR2 starts a CPU profile and the next SIGUSR2 writes it there
// (`profile-<n>.cpuprofile`), so a driver can profile chosen windows of a long run (gateway-decay.ts).
const profileDir = process.env.RSG_BENCH_PROFILE_DIR;
if (profileDir) {
  const inspector = await import('node:inspector/promises');
  const { writeFile } = await import('node:fs/promises');
  const session = new inspector.Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  let running = false;
  let written = 0;
  process.on('SIGUSR2', async () => {
    if (!running) {
      running = true;
      await session.post('Profiler.start');
      return;
    }
    running = false;
    const { profile } = await session.post('Profiler.stop');
    await writeFile(`${profileDir}/profile-${++written}.cpuprofile`, JSON.stringify(profile));
    process.stdout.write(`profile ${written} written\n`);
  });
}
// With node's --expose-gc, SIGHUP runs the collection V8's memory reducer runs after a quiet spell (a
// full one that reduces memory: maps no longer in use are not retained), so a driver can bring one
// about at a chosen moment instead of waiting for the reducer (gateway-decay.ts).
const collect = (globalThis as { gc?: (options: object) => void }).gc;
if (collect) process.on('SIGHUP', () => collect({ type: 'major', execution: 'sync', flavor: 'last-resort' }));
process.on('SIGTERM', async () => {
  await app.close();
  await runtime.close();
  process.exit(0);
});
