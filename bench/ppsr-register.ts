import { randomBytes, randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { approveAuthority, requestAuthority } from '../src/billing/store/authorities.ts';
import { loadConfig } from '../src/config.ts';
import { updateProduct } from '../src/gateway/products.ts';
import { createSubscription } from '../src/gateway/subscriptions.ts';
import { addMember, addOrganisation } from '../src/identity/organisations.ts';
import { addUser } from '../src/identity/users.ts';
import { openRuntime } from '../src/runtime.ts';
import { benchDatabases, median, recordResults } from './support.ts';

/**
 * Secured interests register registrations end to end (issue 13: ≥ 1,000 a second): `POST
 * /gateway/ppsr/v2/financing-statements` in production with a key of an organisation holding an approved
 * direct debit authority, inside the server (`inject`: the whole gateway and service, no sockets):
 * validation, the transaction's arrival, the statement with its version and search keys, the fee, the
 * verification statement queued, the transaction completed — every call its own request id. Baseline, in
 * the same rounds: `GET /financing-statements/{registrationNumber}` of the same gateway (a read of one
 * statement), so the ratio says what a registration costs against the cheapest call of the register.
 * BENCH_SECONDS per contender and round with BENCH_CONCURRENCY calls in flight, rounds interleaved, which
 * goes first alternating; medians of the per-round rates. Each round also sends 100 concurrent
 * repeats of one request id and checks they made exactly one registration and one fee.
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

async function main(): Promise<void> {
  const databases = await benchDatabases('ppsr_register');
  const config = {
    ...loadConfig({ ...process.env, LOG_LEVEL: 'silent', RSG_JOBS: 'off', RSG_PPSR_USER_RATE_LIMIT: '0' }),
    jobs: false,
  };
  const runtime = await openRuntime(config, databases.setup, { migrate: false });
  const app: FastifyInstance = await buildApp(runtime, { logger: false, processMetrics: false });
  try {
    const gateway = runtime.gateway.pool;
    const production = runtime.environments.production.pool;
    const user = await addUser(gateway, { email: `bench-${randomBytes(4).toString('hex')}@example.test` });
    const organisation = await addOrganisation(gateway, {
      environment: 'production',
      identifier: 'bench-ppsr',
      name: 'Bench Lender',
    });
    await addMember(gateway, organisation.id, user.id, 'owner');
    const requested = await requestAuthority(production, 'production', {
      organisationId: organisation.id,
      accountName: 'Bench Ltd',
      accountNumber: '12-3140-0123456-00',
      now: new Date(),
    });
    await approveAuthority(production, requested.id, { now: new Date() });
    await updateProduct(gateway, 'production-ppsr', { rateLimitPerMinute: 100_000_000, quota: null });
    const { primaryKey } = await createSubscription(gateway, {
      userId: user.id,
      productId: 'production-ppsr',
      state: 'active',
    });
    const headers = { 'Ocp-Apim-Subscription-Key': primaryKey, 'content-type': 'application/json' };
    const register = async (requestId = randomUUID()) => {
      const response = await app.inject({
        method: 'POST',
        url: '/gateway/ppsr/v2/financing-statements',
        headers: { ...headers, 'api-business-govt-nz-Request-Id': requestId },
        payload: body,
      });
      if (response.statusCode !== 201)
        throw new Error(`${response.statusCode} ${response.body.slice(0, 300)}`);
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
      if (response.statusCode !== 200)
        throw new Error(`${response.statusCode} ${response.body.slice(0, 300)}`);
    };
    const contenders = { register: () => register().then(() => {}), read };
    const rate = async (call: () => Promise<void>) => {
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
      return done / SECONDS;
    };
    const count = async (sql: string, params: unknown[] = []) =>
      (await production.query<{ n: number }>(sql, params)).rows[0]!.n;
    const rounds: { register: number; read: number }[] = [];
    await rate(contenders.register);
    await rate(contenders.read);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['register', 'read'] as const) : (['read', 'register'] as const);
      const result = { register: 0, read: 0 };
      const before = await count('SELECT count(*)::int AS n FROM fee_records');
      const statementsBefore = await count('SELECT count(*)::int AS n FROM ppsr_financing_statements');
      for (const name of order) result[name] = await rate(contenders[name]);
      const added =
        (await count('SELECT count(*)::int AS n FROM ppsr_financing_statements')) - statementsBefore;
      const fees = (await count('SELECT count(*)::int AS n FROM fee_records')) - before;
      if (added !== fees) throw new Error(`round ${round}: ${added} registrations but ${fees} fees`);
      // 100 concurrent repeats of one request id: one registration, one fee.
      const id = randomUUID();
      const repeated = new Set(await Promise.all(Array.from({ length: 100 }, () => register(id))));
      const feesOfId = await count('SELECT count(*)::int AS n FROM fee_records WHERE request_id = $1', [id]);
      if (repeated.size !== 1 || feesOfId !== 1)
        throw new Error(`round ${round}: repeats made ${repeated.size} registrations, ${feesOfId} fees`);
      rounds.push(result);
      console.log(
        `round ${round + 1}: register ${result.register.toFixed(0)}/s, read ${result.read.toFixed(0)}/s`,
      );
    }
    const registerRate = median(rounds.map((r) => r.register));
    const readRate = median(rounds.map((r) => r.read));
    const ratio = median(rounds.map((r) => r.register / r.read));
    const markdown = [
      `Rounds: ${ROUNDS} × ${SECONDS} s per contender, ${CONCURRENCY} calls in flight, inside the server (inject), ${databases.label}.`,
      '',
      '| contender | median rate | |',
      '|---|---|---|',
      `| registration (PPSR_17, production, fee and verification statement) | ${registerRate.toFixed(0)}/s | goal ≥ 1,000/s: ${registerRate >= 1000 ? 'met' : 'NOT met'} |`,
      `| read of one statement (PPSR_01), baseline | ${readRate.toFixed(0)}/s | |`,
      `| registration ÷ read (median of per-round ratios) | ${ratio.toFixed(2)} | |`,
      '',
      'Every round: registrations = fees; 100 concurrent repeats of one request id made one registration and one fee.',
      `Load average ${loadavg()
        .map((n) => n.toFixed(1))
        .join(' / ')} (1 / 5 / 15 min) at the end, on ${cpus().length} cores.`,
    ].join('\n');
    console.log(markdown);
    if (process.env.BENCH_RECORD !== '0') await recordResults('ppsr-register', markdown);
  } finally {
    await app.close();
    await runtime.close();
    await databases.release();
  }
}

await main();
