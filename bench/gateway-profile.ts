import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { measureLoad } from './load.ts';
import { benchDatabases, startServer, stopServer } from './support.ts';

/**
 * A CPU profile of the gateway answering `bench:gateway`'s fixed JSON under load, for reading with
 * `cpuprofile-top.ts`:
 *
 *   node --import tsx bench/gateway-profile.ts [seconds=10] [folder=<tmp>/rsg-gateway-prof] [gateway|fastify|bare]
 *   node --import tsx bench/cpuprofile-top.ts <folder>/CPU.….cpuprofile 40
 *
 * The gateway runs in its own process under `node --cpu-prof` (written when it exits); the load comes
 * from wrk when installed, else autocannon (see load.ts), after a short warm-up outside the profile's
 * interesting part.
 */
const seconds = Number(process.argv[2] ?? 10);
const which = (process.argv[4] ?? 'gateway') as 'gateway' | 'fastify' | 'bare';
const folder = path.resolve(process.argv[3] ?? path.join(process.env.TMPDIR ?? '/tmp', 'rsg-gateway-prof'));
await mkdir(folder, { recursive: true });
const databases = await benchDatabases('gateway_profile', { migrate: false });
const gateway = await startServer<{ port: number; key?: string }>(`bench/servers/${which}.ts`, {
  RSG_BENCH_URLS: JSON.stringify(databases.setup.urls),
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${folder}`.trim(),
});
try {
  const target = {
    name: 'gateway',
    url: `http://127.0.0.1:${gateway.info.port}/sandbox/nzbn/v5/fixed`,
    headers: (gateway.info.key ? { 'Ocp-Apim-Subscription-Key': gateway.info.key } : {}) as Record<
      string,
      string
    >,
  };
  await measureLoad(target, 2);
  const result = await measureLoad(target, seconds);
  process.stdout.write(`${result.rps.toFixed(0)} req/s; profile in ${folder}\n`);
} finally {
  await stopServer(gateway.child);
  await databases.release();
}
