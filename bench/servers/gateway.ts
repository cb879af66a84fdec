import pino from 'pino';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openRuntime } from '../../src/runtime.ts';
import { benchSubscription, FIXED_SERVICES } from '../gateway-app.ts';

/**
 * The same answer through the whole gateway (gateway-app.ts), over HTTP. The database URLs come from the
 * parent (RSG_BENCH_URLS).
 */
const urls = JSON.parse(process.env.RSG_BENCH_URLS ?? '{}');
const config = loadConfig({ ...process.env, LOG_LEVEL: 'warn' });
const runtime = await openRuntime(config, { urls, embedded: undefined });
const primaryKey = await benchSubscription(runtime);
// With the logger on, as `rsg start` runs it (its lines go nowhere: the level is warn, and request
// logging is off below debug), so that the per-request logger costs here what it costs in production.
const app = await buildApp(runtime, { services: FIXED_SERVICES, logStream: pino.destination('/dev/null') });
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
