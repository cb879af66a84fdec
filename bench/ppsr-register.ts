import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { median, productionPayer, recordResults } from './support.ts';

/**
 * Secured interests register registrations end to end (≥ 1,000 a second): `POST
 * /gateway/ppsr/v2/financing-statements` in production with a key of an organisation holding an approved
 * direct debit authority, inside the server (`inject`: the whole gateway and service, no sockets):
 * validation, the transaction's arrival, the statement with its version and search keys, the fee, the
 * verification statement queued, the transaction completed — every call its own request id. Baseline, in
 * the same rounds: `GET /financing-statements/{registrationNumber}` of the same gateway (a read of one
 * statement), so the ratio says what a registration costs against the cheapest call of the register.
 * BENCH_SECONDS per contender and round with BENCH_CONCURRENCY calls in flight, rounds interleaved, which
 * goes first alternating; medians of the per-round rates. Each round also sends 100 concurrent
 * repeats of one request id and checks they made exactly one registration and one fee.
 *
 * `BENCH_BASELINE=<folder>` (a copy of the project from before a change, e.g. `git archive <commit>`,
 * with a `node_modules`): its gateway, on scratch databases of its own migrated by its own code, in this
 * process, registering in the same rounds (a third contender, the order rotating round by round), so a
 * change is measured against what it replaced under the same load. Each contender's CPU per call is
 * shown: this process's, and the PostgreSQL backends' of its databases (from /proc, when the server runs
 * on this machine).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

const body = JSON.stringify({
  debtors: [{ debtorType: 'person', firstName: 'Bench', lastName: 'Debtor', dateOfBirth: '1980-01-01' }],
  securedParties: [{ name: 'Bench Lender', email: 'lender@bench.example' }],
  collaterals: [
    {
      collateralType: 'GOODS_MOTOR_VEHICLES',
      motorVehicles: [{ make: 'Toyota', model: 'Hilux', year: 2020, registrationPlate: 'BEN123' }],
    },
  ],
});

const here = path.dirname(fileURLToPath(import.meta.url));

type Measured = { rate: number; nodeUs: number; pgUs: number | undefined };

/** One checkout's gateway on its own scratch databases, ready to register and read. */
async function gatewayOf(root: string, stem: string) {
  const load = <T>(file: string): Promise<T> => import(path.join(root, file));
  const { buildApp } = await load<typeof import('../src/app.ts')>('src/app.ts');
  const { loadConfig } = await load<typeof import('../src/config.ts')>('src/config.ts');
  const { openRuntime } = await load<typeof import('../src/runtime.ts')>('src/runtime.ts');
  const { benchDatabases } = await load<typeof import('./support.ts')>('bench/support.ts');
  const databases = await benchDatabases(stem);
  const config = {
    ...loadConfig({ ...process.env, LOG_LEVEL: 'silent', RSG_JOBS: 'off', RSG_PPSR_USER_RATE_LIMIT: '0' }),
    jobs: false,
  };
  const runtime = await openRuntime(config, databases.setup, { migrate: false });
  const app = await buildApp(runtime, { logger: false, processMetrics: false });
  const production = runtime.environments.production.pool;
  const payer = await productionPayer(root, runtime, 'production-ppsr', 'bench-ppsr');
  const headers = { 'Ocp-Apim-Subscription-Key': payer.key, 'content-type': 'application/json' };
  const register = async (requestId = randomUUID()) => {
    const response = await app.inject({
      method: 'POST',
      url: '/gateway/ppsr/v2/financing-statements',
      headers: { ...headers, 'api-business-govt-nz-Request-Id': requestId },
      payload: body,
    });
    if (response.statusCode !== 201) throw new Error(`${response.statusCode} ${response.body.slice(0, 300)}`);
    return response.json().registrationNumber as string;
  };
  const numbers: string[] = [];
  for (let i = 0; i < 200; i++) numbers.push(await register());
  let next = 0;
  const read = async () => {
    const response = await app.inject({
      method: 'GET',
      url: `/gateway/ppsr/v2/financing-statements/${numbers[next++ % numbers.length]}`,
      headers,
    });
    if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${response.body.slice(0, 300)}`);
  };
  const databaseNames = [runtime.urls.production, runtime.urls.gateway].map((url) =>
    decodeURIComponent(new URL(url).pathname.slice(1)),
  );
  const count = async (sql: string, params: unknown[] = []) =>
    (await production.query<{ n: number }>(sql, params)).rows[0]!.n;
  return {
    label: databases.label,
    production,
    register,
    read,
    databaseNames,
    /** Registrations and fees agree; 100 concurrent repeats of one request id make one of each. */
    async check(round: number, before: { statements: number; fees: number }) {
      const statements =
        (await count('SELECT count(*)::int AS n FROM ppsr_financing_statements')) - before.statements;
      const fees = (await count('SELECT count(*)::int AS n FROM fee_records')) - before.fees;
      if (statements !== fees)
        throw new Error(`${stem} round ${round}: ${statements} registrations but ${fees} fees`);
      const id = randomUUID();
      const repeated = new Set(await Promise.all(Array.from({ length: 100 }, () => register(id))));
      const feesOfId = await count('SELECT count(*)::int AS n FROM fee_records WHERE request_id = $1', [id]);
      if (repeated.size !== 1 || feesOfId !== 1)
        throw new Error(
          `${stem} round ${round}: repeats made ${repeated.size} registrations, ${feesOfId} fees`,
        );
    },
    async counts() {
      return {
        statements: await count('SELECT count(*)::int AS n FROM ppsr_financing_statements'),
        fees: await count('SELECT count(*)::int AS n FROM fee_records'),
      };
    },
    async close() {
      await app.close();
      await runtime.close();
      await databases.release();
    },
  };
}

/** CPU ticks (10 ms) of the PostgreSQL backends serving these databases; undefined if /proc cannot tell. */
async function backendTicks(pool: pg.Pool, names: string[]): Promise<Map<number, number> | undefined> {
  const pids = await pool.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = ANY($1::text[])',
    [names],
  );
  const ticks = new Map<number, number>();
  for (const { pid } of pids.rows) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      return undefined;
    }
  }
  return ticks;
}

/** BENCH_SECONDS of `call` with BENCH_CONCURRENCY in flight: the rate, and CPU per call. */
async function rate(call: () => Promise<unknown>, pool: pg.Pool, names: string[]): Promise<Measured> {
  const ticksBefore = await backendTicks(pool, names);
  const cpuBefore = process.cpuUsage();
  const until = performance.now() + SECONDS * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        await call();
        done++;
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  const ticksAfter = await backendTicks(pool, names);
  let pgTicks: number | undefined;
  if (ticksBefore && ticksAfter) {
    pgTicks = 0;
    for (const [pid, after] of ticksAfter) pgTicks += after - (ticksBefore.get(pid) ?? 0);
  }
  return {
    rate: done / SECONDS,
    nodeUs: (cpu.user + cpu.system) / done,
    pgUs: pgTicks === undefined ? undefined : (pgTicks * 10_000) / done,
  };
}

async function main(): Promise<void> {
  const current = await gatewayOf(path.resolve(here, '..'), 'ppsr_register');
  const baselineRoot = process.env.BENCH_BASELINE;
  const baseline = baselineRoot
    ? await gatewayOf(path.resolve(baselineRoot), 'ppsr_register_base')
    : undefined;
  try {
    const contenders: Record<string, () => Promise<Measured>> = {
      register: () => rate(current.register, current.production, current.databaseNames),
      read: () => rate(current.read, current.production, current.databaseNames),
      ...(baseline
        ? {
            'register (baseline)': () => rate(baseline.register, baseline.production, baseline.databaseNames),
          }
        : {}),
    };
    const names = Object.keys(contenders);
    for (const name of names) await contenders[name]!();
    const rounds: Record<string, Measured>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = names.map((_, i) => names[(i + round) % names.length]!);
      const result: Record<string, Measured> = {};
      const before = await current.counts();
      const baselineBefore = await baseline?.counts();
      for (const name of order) result[name] = await contenders[name]!();
      await current.check(round, before);
      if (baseline) await baseline.check(round, baselineBefore!);
      rounds.push(result);
      console.log(
        `round ${round + 1}: ${names.map((n) => `${n} ${result[n]!.rate.toFixed(0)}/s`).join(', ')}`,
      );
    }
    const med = (name: string, pick: (m: Measured) => number) => median(rounds.map((r) => pick(r[name]!)));
    const registerRate = med('register', (m) => m.rate);
    const ratio = median(rounds.map((r) => r.register!.rate / r.read!.rate));
    const cpuOf = (name: string) => {
      const pg = rounds.every((r) => r[name]!.pgUs !== undefined) ? med(name, (m) => m.pgUs!) : undefined;
      return `${med(name, (m) => m.nodeUs).toFixed(0)} µs | ${pg === undefined ? 'n/a' : `${pg.toFixed(0)} µs`}`;
    };
    const commit = await commitProbe(current.production);
    const rows = [
      `| registration (PPSR_17, production, fee and verification statement) | ${registerRate.toFixed(0)}/s | ${cpuOf('register')} | goal ≥ 1,000/s: ${registerRate >= 1000 ? 'met' : 'NOT met'} |`,
      `| read of one statement (PPSR_01), baseline | ${med('read', (m) => m.rate).toFixed(0)}/s | ${cpuOf('read')} | |`,
      `| registration ÷ read (median of per-round ratios) | ${ratio.toFixed(2)} | | | |`,
    ];
    if (baseline) {
      rows.push(
        `| registration, the baseline checkout (\`BENCH_BASELINE\`) | ${med('register (baseline)', (m) => m.rate).toFixed(0)}/s | ${cpuOf('register (baseline)')} | |`,
        `| registration ÷ the baseline's (median of per-round ratios) | ${median(rounds.map((r) => r.register!.rate / r['register (baseline)']!.rate)).toFixed(2)} | | | |`,
      );
    }
    const markdown = [
      '## Secured interests register: registrations end to end (`npm run bench:ppsr-register`)',
      '',
      `${new Date().toISOString().slice(0, 10)}. Rounds: ${ROUNDS} × ${SECONDS} s per contender, ${CONCURRENCY} calls in flight, inside the server (inject), ${current.label}; the order of the contenders rotates round by round.`,
      '',
      "| contender | median rate | Node CPU per call | PostgreSQL backends' CPU per call | |",
      '|---|---|---|---|---|',
      ...rows,
      '',
      'Every round, for each gateway: registrations = fees; 100 concurrent repeats of one request id made one registration and one fee.',
      '',
      `Commit: one INSERT transaction at a time on the same server took p50 ${commit.on.toFixed(3)} ms with the server's setting (synchronous_commit ${commit.setting}) and ${commit.off.toFixed(3)} ms with synchronous_commit off for that transaction (a probe only: registrations run with the server's settings).`,
      `Load average ${loadavg()
        .map((n) => n.toFixed(1))
        .join(' / ')} (1 / 5 / 15 min) at the end, on ${cpus().length} cores.`,
    ].join('\n');
    console.log(markdown);
    if (process.env.BENCH_RECORD !== '0') await recordResults('ppsr-register', markdown);
  } finally {
    await current.close();
    await baseline?.close();
  }
}

/**
 * What a commit's WAL flush costs on this server: 200 one-row INSERT transactions one at a time with the
 * server's setting, against as many with `SET LOCAL synchronous_commit = off`, alternating; medians, ms.
 */
async function commitProbe(pool: pg.Pool): Promise<{ on: number; off: number; setting: string }> {
  const setting = (await pool.query<{ s: string }>("SELECT current_setting('synchronous_commit') AS s"))
    .rows[0]!.s;
  await pool.query('CREATE TABLE IF NOT EXISTS bench_commit_probe (at timestamptz)');
  const times = { on: [] as number[], off: [] as number[] };
  const client = await pool.connect();
  try {
    for (let i = 0; i < 400; i++) {
      const off = i % 2 === 1;
      const started = performance.now();
      await client.query('BEGIN');
      // As many statements either way: the server's own setting, or off.
      await client.query(`SET LOCAL synchronous_commit = ${off ? 'off' : setting}`);
      await client.query('INSERT INTO bench_commit_probe VALUES (now())');
      await client.query('COMMIT');
      times[off ? 'off' : 'on'].push(performance.now() - started);
    }
  } finally {
    client.release();
  }
  await pool.query('DROP TABLE bench_commit_probe');
  return { on: median(times.on), off: median(times.off), setting };
}

await main();
