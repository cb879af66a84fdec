import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { importJWK, SignJWT } from 'jose';
import { buildApp } from '../src/app.ts';
import { approveAuthority, requestAuthority } from '../src/billing/store/authorities.ts';
import { loadConfig } from '../src/config.ts';
import { updateProduct } from '../src/gateway/products.ts';
import { createSubscription } from '../src/gateway/subscriptions.ts';
import { grantAuthority } from '../src/identity/authorities.ts';
import { defaultScope, resourceFor } from '../src/identity/oauth/scopes.ts';
import { loadSigningKeys, SIGNING_ALG } from '../src/identity/oauth/signing-keys.ts';
import { addMember, addOrganisation } from '../src/identity/organisations.ts';
import { addUser } from '../src/identity/users.ts';
import { openRuntime, type Runtime } from '../src/runtime.ts';
import { nzbnService } from '../src/services/nzbn/index.ts';
import { benchDatabases, median, recordResults } from './support.ts';

/**
 * What charging a fee adds to a fee-bearing call (issue 12: ≤ 1 ms at p99). The call: creating a
 * business number register organisation part beyond the entity's second in production
 * (`POST /gateway/nzbn/v5/entities/{nzbn}/organisation-parts`, key and three-legged token, inside the
 * server with `inject`), whose fee `NZBN_ORGANISATION_PART` is charged through `context.fees` in the
 * creating transaction (the payer, from the payer cache once kept; one statement with the month end's
 * barrier, the authority check locked FOR SHARE and the INSERT).
 * Baseline: the same call on a second app over the same runtime and databases with charging off
 * (`RSG_FEES=off`: `charge` returns at once). Each round makes BENCH_CALLS calls of each, one at a time,
 * alternating call by call (which goes first alternates too), spread over BENCH_ENTITIES entities that
 * already have two parts; p50 and p99 per round, medians over the rounds. Every round checks each answer
 * is 201 and that the ledger gained exactly one fee per charged call and none for the baseline.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 1_000);
const WARMUP = 200;
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 200);

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function main(): Promise<void> {
  const databases = await benchDatabases('billing');
  const config = { ...loadConfig({ ...process.env, LOG_LEVEL: 'silent', RSG_JOBS: 'off' }), jobs: false };
  const runtime = await openRuntime(config, databases.setup, { migrate: false });
  const off: Runtime = {
    ...runtime,
    config: { ...runtime.config, fees: { ...runtime.config.fees, enabled: false } },
  };
  const apps = {
    on: await buildApp(runtime, { logger: false, processMetrics: false }),
    off: await buildApp(off, { logger: false, processMetrics: false }),
  };
  try {
    const gateway = runtime.gateway.pool;
    const production = runtime.environments.production;
    // The production register: the small sandbox generator's entities, generated into production.
    await nzbnService.seed!({
      database: production,
      scale: 'small',
      clock: runtime.clocks.for('production'),
      log: () => {},
      identity: { grantOperatorsAuthority: async () => {} },
    });
    const entities = (
      await production.pool.query<{ nzbn: string }>(
        `SELECT nzbn FROM nzbn_entities WHERE origin = 'generated' ORDER BY nzbn LIMIT $1`,
        [ENTITIES],
      )
    ).rows.map((row) => row.nzbn);
    // A user of a production organisation with an approved direct debit authority, a production key
    // (limits lifted), business authority over the entities, and a three-legged token.
    const user = await addUser(gateway, { email: `bench-${randomBytes(4).toString('hex')}@example.test` });
    const organisation = await addOrganisation(gateway, {
      environment: 'production',
      identifier: 'bench-org',
      name: 'Bench',
    });
    await addMember(gateway, organisation.id, user.id, 'owner');
    const requested = await requestAuthority(production.pool, 'production', {
      organisationId: organisation.id,
      accountName: 'Bench Ltd',
      accountNumber: '12-3140-0123456-00',
      now: new Date(),
    });
    await approveAuthority(production.pool, requested.id, { now: new Date() });
    await updateProduct(gateway, 'production-nzbn', { rateLimitPerMinute: 10_000_000, quota: null });
    const { primaryKey } = await createSubscription(gateway, {
      userId: user.id,
      productId: 'production-nzbn',
      state: 'active',
    });
    for (const nzbn of entities) {
      await grantAuthority(
        gateway,
        { environment: 'production', service: 'nzbn', kind: 'entity', id: nzbn },
        { userId: user.id },
      );
    }
    const token = await mintToken(runtime, user.id);
    const headers = { 'Ocp-Apim-Subscription-Key': primaryKey, authorization: `Bearer ${token}` };
    let next = 0;
    const call = async (app: FastifyInstance): Promise<number> => {
      const nzbn = entities[next++ % entities.length]!;
      const started = process.hrtime.bigint();
      const response = await app.inject({
        method: 'POST',
        url: `/gateway/nzbn/v5/entities/${nzbn}/organisation-parts`,
        headers,
        payload: { name: 'Bench Part', function: 'Dispatch' },
      });
      const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
      if (response.statusCode !== 201)
        throw new Error(`${response.statusCode} ${response.body.slice(0, 300)}`);
      return elapsed;
    };
    // Two free parts on each entity first: every measured call is fee-bearing.
    for (let i = 0; i < entities.length * 2; i++) await call(apps.off);
    for (let i = 0; i < WARMUP; i++) {
      await call(apps.on);
      await call(apps.off);
    }
    const fees = async () =>
      (await production.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM fee_records')).rows[0]!.n;
    const rounds: { on: number[]; off: number[] }[] = [];
    // What one database round trip costs at the same moments (charging makes one: the fee's INSERT).
    const roundTrips: number[] = [];
    const roundTrip = async () => {
      const started = process.hrtime.bigint();
      await production.pool.query('SELECT 1');
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    const loadAtStart = (await import('node:os')).loadavg()[0]!.toFixed(1);
    for (let round = 0; round < ROUNDS; round++) {
      // Call by call, alternating which goes first: both meet the same moment of a drifting machine.
      const result = { on: [] as number[], off: [] as number[] };
      const before = await fees();
      for (let i = 0; i < CALLS; i++) {
        const order: ('on' | 'off')[] = (i + round) % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
        for (const contender of order) result[contender].push(await call(apps[contender]));
        roundTrips.push(await roundTrip());
      }
      const added = (await fees()) - before;
      if (added !== CALLS)
        throw new Error(
          `round ${round + 1}: ${added} fees for ${CALLS} charged calls (and as many uncharged)`,
        );
      rounds.push(result);
      const line = (name: 'on' | 'off') => {
        const sorted = [...result[name]].sort((a, b) => a - b);
        return `${name} p50 ${quantile(sorted, 0.5).toFixed(3)} p99 ${quantile(sorted, 0.99).toFixed(3)} ms`;
      };
      process.stdout.write(`round ${round + 1}: ${line('on')}; ${line('off')}\n`);
    }
    const per = (name: 'on' | 'off', q: number) =>
      rounds.map((r) =>
        quantile(
          [...r[name]].sort((a, b) => a - b),
          q,
        ),
      );
    const p99Added = rounds.map((_, i) => per('on', 0.99)[i]! - per('off', 0.99)[i]!);
    const p50Added = rounds.map((_, i) => per('on', 0.5)[i]! - per('off', 0.5)[i]!);
    const summary = {
      onP50: median(per('on', 0.5)),
      offP50: median(per('off', 0.5)),
      onP99: median(per('on', 0.99)),
      offP99: median(per('off', 0.99)),
      p50Added: median(p50Added),
      p99Added: median(p99Added),
    };
    const trips = [...roundTrips].sort((a, b) => a - b);
    // A p99 over a few hundred calls moves by tens of ms from round to round on a shared machine: when
    // the rounds disagree by more than the goal, the comparison cannot tell 1 ms, and says so.
    const spread = Math.max(...p99Added) - Math.min(...p99Added);
    const verdict =
      spread > 1
        ? `not resolved on this machine: the per-round p99 differences spread over ${spread.toFixed(1)} ms, more than the goal; the median is ${summary.p99Added.toFixed(3)} ms`
        : summary.p99Added <= 1
          ? 'met'
          : 'not met';
    const load = (await import('node:os')).loadavg()[0]!.toFixed(1);
    const ms = (n: number) => `${n.toFixed(3)} ms`;
    const markdown = `## Fees: what charging adds to a fee-bearing call (\`npm run bench:billing-charge\`)

${new Date().toISOString().slice(0, 10)}, ${databases.label}, ${ROUNDS} rounds × ${CALLS} calls per contender, alternating call by call (which goes first alternating too), one call at a time, inside the server (\`inject\`). The call: \`POST /gateway/nzbn/v5/entities/{nzbn}/organisation-parts\` in production (key, three-legged token, business authority), each a part beyond the entity's second over ${entities.length} entities. Charging on: the fee is charged through \`context.fees\` in the creating transaction (the payer from the process's payer cache; one statement: the month end's barrier, the authority FOR SHARE, the INSERT); every round checked one ledger row per call. Baseline: the same call with charging off (\`RSG_FEES=off\`), same runtime and databases.

| | p50 | p99 |
|---|---|---|
| charging on | ${ms(summary.onP50)} | ${ms(summary.onP99)} |
| charging off (baseline) | ${ms(summary.offP50)} | ${ms(summary.offP99)} |
| added by charging (median of per-round differences) | ${ms(summary.p50Added)} | **${ms(summary.p99Added)}** |

Per-round p99 added: ${p99Added.map((n) => n.toFixed(3)).join(', ')} ms. Goal ≤ 1 ms at p99: **${verdict}**.
Charging costs one database round trip (the INSERT with the barrier and the authority check; the payer comes from memory once kept): a \`SELECT 1\` round trip, timed between the calls, took p50 ${ms(quantile(trips, 0.5))}, p99 ${ms(quantile(trips, 0.99))} in this run (load average ${loadAtStart} at the start and ${load} at the end, on ${(await import('node:os')).cpus().length} cores).`;
    process.stdout.write(`\n${markdown}\n`);
    if (process.env.BENCH_RECORD !== '0') await recordResults('bench:billing-charge', markdown);
  } finally {
    await apps.on.close();
    await apps.off.close();
    await runtime.close();
    await databases.release();
  }
}

/** A three-legged access token as the authorization server issues it (signed with its current key). */
async function mintToken(runtime: Runtime, userId: string): Promise<string> {
  const { privateKeys } = await loadSigningKeys(runtime.gateway.pool, 0);
  const jwk = privateKeys[0]!;
  const key = await importJWK(jwk, SIGNING_ALG);
  const base = runtime.config.oauth.resourceBase;
  return new SignJWT({ client_id: 'bench-client', scope: `openid ${defaultScope(base, 'production')}` })
    .setProtectedHeader({ alg: SIGNING_ALG, kid: jwk.kid! })
    .setIssuer(runtime.issuer)
    .setAudience(resourceFor(base, 'production'))
    .setSubject(userId)
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(key);
}

await main();
