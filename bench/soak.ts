import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { benchDatabases, freePort, recordResults, root } from './support.ts';

/**
 * `npm run soak`: a mixed load (entity reads, searches, watchlist writes, rental statistics, OAuth token
 * grants) against a started gateway (`rsg start`, its own process) for SOAK_SECONDS (default 600), with
 * the gateway's RSS sampled every SOAK_SAMPLE_SECONDS (default 10). Reports the RSS trend (least-squares
 * slope, MB/min), the 5xx count (must be 0) and latency percentiles. Databases: DATABASE_URL's server
 * (scratch databases, dropped afterwards) or an embedded one. Load goes to 127.0.0.1 only.
 */
const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 8);
const RECORD = process.env.BENCH_RECORD !== '0';
const bin = path.join(root, 'bin/rsg.js');

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [bin, ...args], { env, timeout: 120_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`rsg ${args.join(' ')}: ${stderr}`)) : resolve(stdout),
    );
  });
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** Least-squares slope of y over x. */
export function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

interface Request {
  kind: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

function send(base: string, request: Request): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.request(
      `${base}${request.path}`,
      {
        method: request.method,
        agent,
        headers: {
          ...request.headers,
          ...(request.body ? { 'content-length': String(Buffer.byteLength(request.body)) } : {}),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            ms: performance.now() - started,
          }),
        );
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error('timed out')));
    req.on('error', () => resolve({ status: 0, body: '', ms: performance.now() - started }));
    req.end(request.body);
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0;

async function main(): Promise<void> {
  const databases = await benchDatabases('soak', { migrate: false });
  const { urls } = databases.setup;
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LOG_LEVEL: 'warn',
    DATABASE_URL: urls.gateway,
    SANDBOX_DATABASE_URL: urls.sandbox,
    PRODUCTION_DATABASE_URL: urls.production,
    RSG_SANDBOX_ACTIVITY_PER_HOUR: '600',
  };
  let gateway: ChildProcess | undefined;
  try {
    await cli(['migrate'], env);
    process.stderr.write('soak: seeding the sandbox (small scale) …\n');
    await cli(['seed'], env);
    await cli(['products', 'set', 'sandbox-nzbn', '--rate-limit', '10000000', '--no-quota'], env);
    await cli(['products', 'set', 'sandbox-market-rent', '--rate-limit', '10000000', '--no-quota'], env);
    const subscribe = async (product: string) =>
      (
        JSON.parse(
          await cli(
            ['subscriptions', 'create', '--user', 'admin@localhost', '--product', product, '--json'],
            env,
          ),
        ) as { primaryKey: string }
      ).primaryKey;
    const nzbnKey = await subscribe('sandbox-nzbn');
    const rentKey = await subscribe('sandbox-market-rent');
    const client = JSON.parse(
      await cli(
        [
          'oauth',
          'clients',
          'create',
          '--user',
          'admin@localhost',
          '--grant',
          'client_credentials',
          '--json',
        ],
        env,
      ),
    ) as { clientId: string; clientSecret: string };

    gateway = spawn(process.execPath, [bin, 'start', '--port', String(port)], {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      if ((await send(base, { kind: 'ready', method: 'GET', path: '/readyz' })).status === 200) break;
      if (i > 600 || gateway.exitCode !== null) throw new Error('the gateway did not get ready');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const pid = gateway.pid!;

    const nzbn = { 'Ocp-Apim-Subscription-Key': nzbnKey };
    const created: string[] = [];
    let n = 0;
    const next = (): Request => {
      const i = n++;
      switch (i % 10) {
        case 0:
        case 1:
        case 2:
          return {
            kind: 'read',
            method: 'GET',
            path: '/sandbox/nzbn/v5/entities/9429000001007',
            headers: nzbn,
          };
        case 3:
        case 4:
          return {
            kind: 'search',
            method: 'GET',
            path: `/sandbox/nzbn/v5/entities?search-term=${['sandbox', 'limited', 'trust', 'holdings'][i % 4]}&page-size=10`,
            headers: nzbn,
          };
        case 5: {
          // Writes that keep the database bounded: a watchlist is created, and an older one deleted.
          const old = created.length > 50 ? created.shift() : undefined;
          if (old)
            return {
              kind: 'write',
              method: 'DELETE',
              path: `/sandbox/nzbn/v5/watchlists/${old}`,
              headers: nzbn,
            };
          return {
            kind: 'write',
            method: 'POST',
            path: '/sandbox/nzbn/v5/watchlists',
            headers: { ...nzbn, 'content-type': 'application/json' },
            body: JSON.stringify({
              name: `soak ${i}`,
              channel: 'EMAIL',
              watchlistEmailAddresses: ['soak@example.test'],
              frequency: 'DAILY',
              nzbns: ['9429000001007'],
            }),
          };
        }
        case 6:
        case 7:
          return {
            kind: 'statistics',
            method: 'GET',
            path: `/sandbox/tenancy-services/market-rent/v2/statistics?period-ending=2026-06&num-months=${[6, 12][i % 2]}&area-definition=REGC2019`,
            headers: { 'Ocp-Apim-Subscription-Key': rentKey },
          };
        case 8:
          return {
            kind: 'token',
            method: 'POST',
            path: '/oauth2/token',
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
            },
            body: new URLSearchParams({
              grant_type: 'client_credentials',
              scope: 'https://api.business.govt.nz/sandbox/.default',
            }).toString(),
          };
        default:
          return {
            kind: 'watchlists',
            method: 'GET',
            path: '/sandbox/nzbn/v5/watchlists?page-size=10',
            headers: nzbn,
          };
      }
    };

    const latencies: number[] = [];
    const statuses = new Map<string, number>();
    let serverErrors = 0;
    const started = Date.now();
    const deadline = started + SECONDS * 1000;
    const samples: Array<[number, number]> = [[0, rssMb(pid)]];
    const sampler = setInterval(() => {
      const minutes = (Date.now() - started) / 60_000;
      samples.push([minutes, rssMb(pid)]);
      process.stderr.write(
        `soak: ${minutes.toFixed(1)} min, RSS ${samples.at(-1)![1].toFixed(1)} MB, ${latencies.length} requests, ${serverErrors} 5xx\n`,
      );
    }, SAMPLE_SECONDS * 1000);
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < deadline) {
          const request = next();
          const answer = await send(base, request);
          latencies.push(answer.ms);
          const key = `${request.kind} ${answer.status}`;
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
          if (answer.status >= 500 || answer.status === 0) serverErrors++;
          if (request.kind === 'write' && request.method === 'POST' && answer.status === 201) {
            created.push((JSON.parse(answer.body) as { watchlistId: string }).watchlistId);
          }
        }
      }),
    );
    clearInterval(sampler);
    samples.push([(Date.now() - started) / 60_000, rssMb(pid)]);
    // The first minute is warm-up (JIT, caches, pools): the trend is taken over the rest when there is one.
    const steady = samples.filter(([minutes]) => minutes >= 1);
    const trend = slope(steady.length >= 3 ? steady : samples);
    latencies.sort((a, b) => a - b);
    const elapsed = (Date.now() - started) / 1000;
    const lines = [
      '## Soak: mixed load against one gateway (`npm run soak`)',
      '',
      `${Math.round(elapsed)} s, ${CONCURRENCY} connections, mixed load (30% entity reads, 20% searches, ` +
        '10% watchlist writes, 20% rental statistics, 10% token grants, 10% watchlist lists); ' +
        `${databases.label}; Node ${process.version}, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} ` +
        `at the end (the machine is shared); ${new Date().toISOString().slice(0, 10)}`,
      '',
      '| figure | value |',
      '|---|---|',
      `| requests | ${latencies.length} (${Math.round(latencies.length / elapsed)}/s) |`,
      `| 5xx or failed | ${serverErrors} |`,
      `| latency p50 / p99 / max | ${percentile(latencies, 50).toFixed(1)} / ${percentile(latencies, 99).toFixed(1)} / ${latencies.at(-1)?.toFixed(1)} ms |`,
      `| RSS first / last / max | ${samples[0]![1].toFixed(1)} / ${samples.at(-1)![1].toFixed(1)} / ${Math.max(...samples.map(([, y]) => y)).toFixed(1)} MB |`,
      `| RSS slope (least squares, after the first minute) | ${trend.toFixed(3)} MB/min over ${samples.length} samples |`,
      `| statuses | ${[...statuses]
        .sort()
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')} |`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (RECORD && SECONDS >= 600) await recordResults('soak', lines.join('\n'));
    process.exitCode = serverErrors === 0 ? 0 : 1;
  } finally {
    if (gateway && gateway.exitCode === null) {
      const exited = new Promise((resolve) => gateway!.once('exit', resolve));
      gateway.kill('SIGTERM');
      await exited;
    }
    agent.destroy();
    await databases.release();
  }
}

await main();
