import os from 'node:os';
import autocannon from 'autocannon';
import { benchDatabases, median, recordResults, startServer, stopServer } from './support.ts';

/**
 * Gateway overhead: the same fixed JSON from (a) a bare node:http server, the ceiling, and (b) through
 * the gateway with a real key check, rate limit and quota. The two run in their own processes and are
 * measured interleaved, round by round, so drift in the machine's speed hits both alike.
 * Goal: throughput ≥ 50% of the ceiling; p99 at a fixed moderate rate at most 1 ms above the ceiling's.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 32;
const FIXED_RATE = 2000; // requests per second, for the latency comparison

const LABELS = {
  ceiling: 'bare node:http (ceiling)',
  fastify: 'Fastify alone, one route (reference)',
  gateway: 'through the gateway (key, rate limit, quota, usage, metrics)',
};

interface Sample {
  rps: number;
  p50: number;
  p99: number;
}

async function measure(url: string, headers: Record<string, string>, rate?: number): Promise<Sample> {
  const result = await autocannon({
    url,
    headers,
    connections: rate ? 8 : CONNECTIONS,
    duration: SECONDS,
    ...(rate ? { overallRate: rate } : {}),
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

const databases = await benchDatabases('gateway', { migrate: false });
const { setup } = databases;

const bare = await startServer<{ port: number }>('bench/servers/bare.ts');
const framework = await startServer<{ port: number }>('bench/servers/fastify.ts');
const gateway = await startServer<{ port: number; key: string; limits: string }>('bench/servers/gateway.ts', {
  RSG_BENCH_URLS: JSON.stringify(setup.urls),
});
const contenders = {
  ceiling: { url: `http://127.0.0.1:${bare.info.port}/sandbox/nzbn/v5/fixed`, headers: {} },
  fastify: { url: `http://127.0.0.1:${framework.info.port}/sandbox/nzbn/v5/fixed`, headers: {} },
  gateway: {
    url: `http://127.0.0.1:${gateway.info.port}/sandbox/nzbn/v5/fixed`,
    headers: { 'Ocp-Apim-Subscription-Key': gateway.info.key },
  },
};

try {
  // Warm both (JIT, key cache, connection pools) before measuring.
  for (const c of Object.values(contenders))
    await autocannon({ url: c.url, headers: c.headers, connections: 8, duration: 2 });
  const load: Record<string, Sample[]> = { ceiling: [], fastify: [], gateway: [] };
  const paced: Record<string, Sample[]> = { ceiling: [], fastify: [], gateway: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order =
      round % 2 ? (['gateway', 'fastify', 'ceiling'] as const) : (['ceiling', 'fastify', 'gateway'] as const);
    for (const name of order) load[name]!.push(await measure(contenders[name].url, contenders[name].headers));
    for (const name of order)
      paced[name]!.push(await measure(contenders[name].url, contenders[name].headers, FIXED_RATE));
    process.stdout.write(
      `round ${round + 1}: rps ceiling ${load.ceiling!.at(-1)!.rps.toFixed(0)} fastify ${load.fastify!.at(-1)!.rps.toFixed(0)} gateway ${load.gateway!.at(-1)!.rps.toFixed(0)}; ` +
        `p99 at ${FIXED_RATE}/s ceiling ${paced.ceiling!.at(-1)!.p99} ms gateway ${paced.gateway!.at(-1)!.p99} ms\n`,
    );
  }
  const stat = (samples: Sample[], key: keyof Sample) => median(samples.map((s) => s[key]));
  const ratios = load.gateway!.map((g, i) => g.rps / load.ceiling![i]!.rps);
  const p99Added = paced.gateway!.map((g, i) => g.p99 - paced.ceiling![i]!.p99);
  const throughputRatio = median(ratios);
  const addedP99 = median(p99Added);
  const lines = [
    `## Gateway overhead (\`npm run bench:gateway\`)`,
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}; ` +
      `${ROUNDS} interleaved rounds of ${SECONDS} s each; limits store: ${gateway.info.limits}; database: ${databases.label}.`,
    '',
    '| contender | req/s (median, 32 connections) | p50 ms | p99 ms | p50 ms at 2,000 req/s | p99 ms at 2,000 req/s |',
    '|---|---|---|---|---|---|',
    ...(['ceiling', 'fastify', 'gateway'] as const).map(
      (name) =>
        `| ${LABELS[name]} | ${stat(load[name]!, 'rps').toFixed(0)} | ${stat(load[name]!, 'p50')} | ${stat(load[name]!, 'p99')} | ${stat(paced[name]!, 'p50')} | ${stat(paced[name]!, 'p99')} |`,
    ),
    '',
    `- Throughput ratio gateway / ceiling (median of per-round ratios): **${(throughputRatio * 100).toFixed(1)}%** (goal ≥ 50%) — ${throughputRatio >= 0.5 ? 'met' : 'NOT met'}.`,
    `- p99 added at 2,000 req/s (median of per-round differences): **${addedP99.toFixed(2)} ms** (goal ≤ 1 ms) — ${addedP99 <= 1 ? 'met' : 'NOT met'}. autocannon reports latencies in whole milliseconds, so this resolves to 1 ms.`,
    `- Fastify alone keeps ${(median(load.fastify!.map((f, i) => f.rps / load.ceiling![i]!.rps)) * 100).toFixed(1)}% of the ceiling: the rest of the gap is the gateway's own work.`,
    `- Per-round throughput ratios: ${ratios.map((r) => `${(r * 100).toFixed(1)}%`).join(', ')}.`,
  ];
  process.stdout.write(`\n${lines.join('\n')}\n`);
  if (process.env.BENCH_RECORD !== '0') await recordResults('bench:gateway', lines.join('\n'));
} finally {
  await stopServer(gateway.child);
  await stopServer(bare.child);
  await stopServer(framework.child);
  await databases.release();
}
