import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createSubscription } from '../src/gateway/operations/subscriptions.ts';
import { updateProduct } from '../src/gateway/store/products.ts';
import { grantAuthority } from '../src/identity/operations/authorities.ts';
import { addOrganisation } from '../src/identity/operations/organisations.ts';
import { addUser } from '../src/identity/operations/users.ts';
import { addMember } from '../src/identity/store/memberships.ts';
import { dropDatabase, ensureDatabase } from '../src/platform/db/pool.ts';
import { withDatabase } from '../src/platform/db/urls.ts';
import { setClock } from '../src/platform/environment-clocks.ts';
import { openRuntime } from '../src/runtime.ts';
import { withIsinCheckDigit } from '../src/services/disclose/domain/isin.ts';
import { seedDisclose } from '../src/services/disclose/sandbox/seed.ts';
import type { DocumentFiles } from '../src/services/disclose/store/document-files.ts';
import { recordResults } from './support.ts';

/**
 * The offers register's refused holdings filings, over the network (127.0.0.1), and the memory they
 * leave: rounds of ~6 MB filings that are refused (without `x-organisation`, refused before the body is
 * read; with authority but a period not yet ended, refused after the body is stream-parsed), with the
 * process's RSS and V8 heap measured before, after each kind, and after an idle spell with full
 * collections. Ratios against the baseline taken in the same run. Run with --expose-gc.
 *
 * BENCH_FILINGS (default 100) filings of each kind, BENCH_PARALLEL (default 10) at a time, BENCH_IDLE_MS
 * (default 10,000) of idle. DATABASE_URL names the PostgreSQL server; fresh databases are made and dropped.
 */
const server = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const FILINGS = Number(process.env.BENCH_FILINGS ?? 100);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 10);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 10_000);
const log = (line: string) => process.stderr.write(`${line}\n`);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const stem = `rsgb_${randomBytes(4).toString('hex')}`;
const urls = {
  gateway: withDatabase(server, `${stem}_gateway`),
  sandbox: withDatabase(server, `${stem}_sandbox`),
  production: withDatabase(server, `${stem}_production`),
};
for (const url of Object.values(urls)) await ensureDatabase(url);
process.env.RSG_DISCLOSE_DOCUMENTS_DIR = await mkdtemp(path.join(tmpdir(), 'rsg-bench-refusals-'));
const config = loadConfig({ LOG_LEVEL: 'silent', RSG_SANDBOX_ACTIVITY_PER_HOUR: '0', RSG_JOBS: 'off' });
const runtime = await openRuntime(config, { urls, embedded: undefined }, { clockMode: 'virtual' });
const app = await buildApp(runtime, { logger: false });

interface Memory {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
}
const settle = async (): Promise<Memory> => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const { rss, heapTotal, heapUsed, external } = process.memoryUsage();
  return { rss, heapTotal, heapUsed, external };
};
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** One PUT of `body` (a Buffer shared by every call: the client holds one copy), its status once answered. */
function put(port: number, url: string, headers: Record<string, string>, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'PUT',
        path: url,
        agent: false,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(body.length) },
      },
      (response) => {
        answered = true;
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
        response.once('error', () => resolve(response.statusCode ?? 0));
      },
    );
    // A refusal may close the connection while the body is still being sent: the answer has come.
    request.on('error', (error) => (answered ? undefined : reject(error)));
    request.end(body);
  });
}

try {
  const pool = runtime.gateway.pool;
  await setClock(pool, 'sandbox', '2026-05-20T00:00:00Z');
  await runtime.clocks.reload();
  const user = await addUser(pool, { email: `${stem}@example.test` });
  const { primaryKey } = await createSubscription(pool, {
    userId: user.id,
    productId: 'sandbox-disclose',
    state: 'active',
  });
  await updateProduct(pool, 'sandbox-disclose', { rateLimitPerMinute: 1_000_000, quota: null });
  const organisation = await addOrganisation(pool, {
    environment: 'sandbox',
    identifier: 'bench',
    name: 'B',
  });
  await addMember(pool, organisation.id, user.id, 'owner');
  const discard: DocumentFiles = { put: async () => {}, read: async () => undefined };
  await seedDisclose(
    {
      database: runtime.environments.sandbox,
      scale: 'small',
      clock: runtime.clocks.for('sandbox'),
      log: () => {},
      identity: {
        grantOperatorsAuthority: async () => {},
        async grantOperatorsOrganisationAuthority(service, kind, id) {
          await grantAuthority(
            pool,
            { environment: 'sandbox', service, kind, id },
            { organisationId: organisation.id },
          );
          return organisation.identifier;
        },
      },
    },
    {
      files: discard,
      organisations: {
        count: 40,
        organisation: (i) => ({ name: `Company ${i}`, nzbn: String(9_429_000_000_000 + i) }),
      },
      schemes: 2,
      standaloneOffers: 1,
    },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  const port = address.port;
  const base = '/sandbox/companies-office/disclose-register/v1';
  const fund = '/offer/OFR10001/fund/FND10001';
  const key = { 'Ocp-Apim-Subscription-Key': primaryKey };
  const etag = (
    await app.inject({ method: 'GET', url: `${base}${fund}`, headers: { ...key, 'x-organisation': 'bench' } })
  ).headers.etag as string;
  // About 6 MB of valid holdings for a period that has not ended (2030): refused after it is read.
  const count = 36_000;
  const body = Buffer.from(
    JSON.stringify({
      periodEndDate: '2030-03-31',
      holdings: Array.from({ length: count }, (_, i) => ({
        assetName: `Holding ${i}`,
        assetType: i % 3 ? 'INTERNATIONAL_EQUITIES' : 'NEW_ZEALAND_FIXED_INTEREST',
        isin: withIsinCheckDigit(`NZ${String(100_000_000 + i)}`),
        value: 1000 + i,
        percentageOfFund: 100 / count,
        currency: 'NZD',
      })),
    }),
  );
  const kinds = {
    'without x-organisation': { headers: key, status: 400 },
    'with authority, period not ended': {
      headers: { ...key, 'x-organisation': 'bench', 'if-match': etag },
      status: 400,
    },
  };
  const url = `${base}${fund}/submit-fph-compliance`;
  const round = async (headers: Record<string, string>, expected: number, filings: number) => {
    for (let done = 0; done < filings; done += PARALLEL) {
      const statuses = await Promise.all(
        Array.from({ length: Math.min(PARALLEL, filings - done) }, () => put(port, url, headers, body)),
      );
      const wrong = statuses.find((s) => s !== expected);
      if (wrong !== undefined) throw new Error(`a refused filing answered ${wrong}, not ${expected}`);
    }
  };
  // Warm up every path, then the baseline.
  for (const kind of Object.values(kinds)) await round(kind.headers, kind.status, PARALLEL);
  const baseline = await settle();
  const rows: string[] = [];
  const row = (what: string, m: Memory) =>
    rows.push(
      `| ${what} | ${mib(m.rss)} (×${(m.rss / baseline.rss).toFixed(2)}) | ${mib(m.heapUsed)} (×${(m.heapUsed / baseline.heapUsed).toFixed(2)}) | ${mib(m.heapTotal)} | ${mib(m.external)} |`,
    );
  row('baseline (after warming up)', baseline);
  for (const [name, kind] of Object.entries(kinds)) {
    const t0 = performance.now();
    await round(kind.headers, kind.status, FILINGS);
    const elapsed = performance.now() - t0;
    const after = await settle();
    row(`after ${FILINGS} filings ${name} (${(elapsed / 1000).toFixed(1)} s)`, after);
    log(`${name}: RSS ${mib(after.rss)} MiB, heap ${mib(after.heapUsed)} MiB`);
  }
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  row(`after ${IDLE_MS / 1000} s idle`, await settle());
  const table = `## Refused holdings filings (\`npm run bench:disclose-refusals\`)

${FILINGS} refused filings of ${mib(body.length)} MiB of each kind, ${PARALLEL} at a time over 127.0.0.1, one run,
${new Date().toISOString().slice(0, 10)}; memory after three full collections (MiB; ratio to the baseline of the same run).

| when | RSS | V8 heap used | V8 heap total | external |
|---|---|---|---|---|
${rows.join('\n')}`;
  process.stdout.write(`${table}\n`);
  if (process.env.BENCH_RECORD !== '0') await recordResults('disclose-refusals', table);
} finally {
  await app.close();
  await runtime.close();
  for (const url of Object.values(urls)) await dropDatabase(url);
}
