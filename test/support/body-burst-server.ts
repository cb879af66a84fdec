/**
 * A gateway in a process of its own, for test/gateway/body-limits.test.ts: it listens on 127.0.0.1 (a
 * free port), sends `{ port, key }` (an operator's sandbox key) over IPC, then answers `rss` messages
 * with its memory use (`process.memoryUsage()`) after a full garbage collection, and the highest RSS seen since the last
 * such message (sampled every 20 ms). `close` ends it. The databases (already created) come in
 * RSG_TEST_URLS as JSON.
 */
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createSubscription } from '../../src/gateway/operations/subscriptions.ts';
import { addUser } from '../../src/identity/operations/users.ts';
import type { DatabaseUrls } from '../../src/platform/db/urls.ts';
import { openRuntime } from '../../src/runtime.ts';

const urls = JSON.parse(process.env.RSG_TEST_URLS ?? '') as DatabaseUrls;
const config = loadConfig({
  LOG_LEVEL: 'silent',
  RSG_SANDBOX_ACTIVITY_PER_HOUR: '0',
  RSG_JOBS: 'off',
  // runtime.ts's TEST_SERVER_SECRET (not imported: that module needs vitest).
  RSG_SERVER_SECRET: 'test-server-secret-not-for-any-deployment',
});
const runtime = await openRuntime(config, { urls, embedded: undefined }, { clockMode: 'virtual' });
const app = await buildApp(runtime, { logger: false });
const user = await addUser(runtime.gateway.pool, { email: 'burst@example.test', isOperator: true });
const { primaryKey: key } = await createSubscription(runtime.gateway.pool, {
  userId: user.id,
  productId: 'sandbox-nzbn',
  state: 'active',
});
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
if (!address || typeof address === 'string') throw new Error('no port');

let peak = 0;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 20);

const collect = async () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  // Two rounds with a turn of the event loop between them: buffers freed by the first are returned.
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
};

process.on('message', async (message: string) => {
  if (message === 'rss') {
    await collect();
    const usage = process.memoryUsage();
    process.send!({ ...usage, peak: Math.max(peak, usage.rss) });
    peak = 0;
  } else if (message === 'close') {
    clearInterval(sampler);
    await app.close();
    await runtime.close();
    process.exit(0);
  }
});
process.send!({ port: address.port, key });
