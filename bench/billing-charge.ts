import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { importJWK, SignJWT } from 'jose';
import type { Runtime } from '../src/runtime.ts';
import { checkoutLoader, median, productionPayer, recordResults } from './support.ts';

/**
 * What charging a fee adds to a fee-bearing call (≤ 1 ms at p99). The call: creating a
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
 *
 * `BENCH_BASELINE=<folder>` (a copy of the project from before a change, with a `node_modules`): its
 * gateway too, on scratch databases of its own migrated by its own code, in this process, charging on and
 * off, in the same rounds (four contenders, the order rotating call by call): what the change did to
 * charging's cost, measured at the same moments.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 1_000);
const WARMUP = 200;
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 200);

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * One checkout's gateway (this one, or BENCH_BASELINE's) on scratch databases of its own: an app with
 * charging on and one with charging off over the same runtime, the production register seeded, a caller
 * ready; `call` makes one organisation part beyond the entity's second.
 */
async function gatewayOf(root: string, stem: string) {
  const load = checkoutLoader(root);
  const { buildApp } = await load<typeof import('../src/app.ts')>('src/app.ts');
  const { loadConfig } = await load<typeof import('../src/config.ts')>('src/config.ts');
  const { grantAuthority } = await load<typeof import('../src/identity/operations/authorities.ts')>(
    'src/identity/operations/authorities.ts',
    'src/identity/authorities.ts',
  );
  const scopes = await load<typeof import('../src/identity/domain/scopes.ts')>(
    'src/identity/domain/scopes.ts',
    'src/identity/oauth/scopes.ts',
  );
  const keys = await load<typeof import('../src/identity/operations/signing-keys.ts')>(
    'src/identity/operations/signing-keys.ts',
    'src/identity/oauth/signing-keys.ts',
  );
  const { SIGNING_ALG } = await load<typeof import('../src/identity/domain/signing-keys.ts')>(
    'src/identity/domain/signing-keys.ts',
    'src/identity/oauth/signing-keys.ts',
  );
  const { openRuntime } = await load<typeof import('../src/runtime.ts')>('src/runtime.ts');
  const { nzbnService } = await load<typeof import('../src/services/nzbn/index.ts')>(
    'src/services/nzbn/index.ts',
  );
  const { benchDatabases } = await load<typeof import('./support.ts')>('bench/support.ts');
  const databases = await benchDatabases(stem);
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
  const payer = await productionPayer(root, runtime, 'production-nzbn', 'bench-org');
  const user = { id: payer.userId };
  const primaryKey = payer.key;
  for (const nzbn of entities) {
    await grantAuthority(
      gateway,
      { environment: 'production', service: 'nzbn', kind: 'entity', id: nzbn },
      { userId: user.id },
    );
  }
  const { privateKeys } = await keys.loadSigningKeys(runtime.gateway.pool, 0);
  const token = await mintToken(runtime, user.id, privateKeys[0]!, SIGNING_ALG, scopes);
  const headers = { 'Ocp-Apim-Subscription-Key': primaryKey, authorization: `Bearer ${token}` };
  let next = 0;
  const call = async (app: FastifyInstance): Promise<number> => {
    const nzbn = entities[next++ % entities.length]!;
    const started = process.hrtime.bigint();
    const response = await app.inject({
      method: 'POST',
      url: `/gateway/nzbn/v5/entities/${nzbn}/organisation-parts`,
      headers,
      payload: {
        termsAndConditionsAccepted: true,
        organisationPart: { name: 'Bench Part', function: 'PHYSICAL_LOCATION' },
      },
    });
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    if (response.statusCode !== 201) throw new Error(`${response.statusCode} ${response.body.slice(0, 300)}`);
    return elapsed;
  };
  // Two free parts on each entity first: every measured call is fee-bearing.
  for (let i = 0; i < entities.length * 2; i++) await call(apps.off);
  return {
    label: databases.label,
    entities: entities.length,
    on: () => call(apps.on),
    off: () => call(apps.off),
    production: production.pool,
    fees: async () =>
      (await production.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM fee_records')).rows[0]!.n,
    async close() {
      await apps.on.close();
      await apps.off.close();
      await runtime.close();
      await databases.release();
    },
  };
}

type Contender = 'on' | 'off' | 'baseline on' | 'baseline off';

async function main(): Promise<void> {
  const current = await gatewayOf(path.resolve(here, '..'), 'billing');
  const baselineRoot = process.env.BENCH_BASELINE;
  const baseline = baselineRoot ? await gatewayOf(path.resolve(baselineRoot), 'billing_base') : undefined;
  try {
    const contenders: Partial<Record<Contender, () => Promise<number>>> = {
      on: current.on,
      off: current.off,
      ...(baseline ? { 'baseline on': baseline.on, 'baseline off': baseline.off } : {}),
    };
    const names = Object.keys(contenders) as Contender[];
    for (let i = 0; i < WARMUP; i++) for (const name of names) await contenders[name]!();
    const rounds: Partial<Record<Contender, number[]>>[] = [];
    // What one database round trip costs at the same moments (charging makes one: the fee's INSERT).
    const roundTrips: number[] = [];
    const roundTrip = async () => {
      const started = process.hrtime.bigint();
      await current.production.query('SELECT 1');
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    const loadAtStart = loadavg()[0]!.toFixed(1);
    for (let round = 0; round < ROUNDS; round++) {
      // Call by call, the order rotating: every contender meets the same moments of a drifting machine.
      const result: Partial<Record<Contender, number[]>> = {};
      for (const name of names) result[name] = [];
      const before = await current.fees();
      const baselineBefore = await baseline?.fees();
      for (let i = 0; i < CALLS; i++) {
        for (let j = 0; j < names.length; j++) {
          const name = names[(i + round + j) % names.length]!;
          result[name]!.push(await contenders[name]!());
        }
        roundTrips.push(await roundTrip());
      }
      const added = (await current.fees()) - before;
      if (added !== CALLS)
        throw new Error(
          `round ${round + 1}: ${added} fees for ${CALLS} charged calls (and as many uncharged)`,
        );
      if (baseline && (await baseline.fees()) - baselineBefore! !== CALLS)
        throw new Error(`round ${round + 1}: the baseline's fees are not one per charged call`);
      rounds.push(result);
      const line = (name: Contender) => {
        const sorted = [...result[name]!].sort((a, b) => a - b);
        return `${name} p50 ${quantile(sorted, 0.5).toFixed(3)} p99 ${quantile(sorted, 0.99).toFixed(3)} ms`;
      };
      process.stdout.write(`round ${round + 1}: ${names.map(line).join('; ')}\n`);
    }
    const per = (name: Contender, q: number) =>
      rounds.map((r) =>
        quantile(
          [...r[name]!].sort((a, b) => a - b),
          q,
        ),
      );
    const addedBy = (on: Contender, off: Contender, q: number) =>
      rounds.map((_, i) => per(on, q)[i]! - per(off, q)[i]!);
    const p99Added = addedBy('on', 'off', 0.99);
    const summary = {
      onP50: median(per('on', 0.5)),
      offP50: median(per('off', 0.5)),
      onP99: median(per('on', 0.99)),
      offP99: median(per('off', 0.99)),
      p50Added: median(addedBy('on', 'off', 0.5)),
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
    const load = loadavg()[0]!.toFixed(1);
    const ms = (n: number) => `${n.toFixed(3)} ms`;
    const baselineRows = baseline
      ? `
| baseline checkout (\`BENCH_BASELINE\`), charging on | ${ms(median(per('baseline on', 0.5)))} | ${ms(median(per('baseline on', 0.99)))} |
| baseline checkout, charging off | ${ms(median(per('baseline off', 0.5)))} | ${ms(median(per('baseline off', 0.99)))} |
| added by the baseline's charging (median of per-round differences) | ${ms(median(addedBy('baseline on', 'baseline off', 0.5)))} | ${ms(median(addedBy('baseline on', 'baseline off', 0.99)))} |`
      : '';
    const baselineNote = baseline
      ? ` The baseline checkout runs the same call on scratch databases of its own, migrated by its own code, in the same process and rounds (four contenders, the order rotating call by call); per-round p50 added by its charging: ${addedBy(
          'baseline on',
          'baseline off',
          0.5,
        )
          .map((n) => n.toFixed(3))
          .join(', ')} ms, by this checkout's: ${addedBy('on', 'off', 0.5)
          .map((n) => n.toFixed(3))
          .join(', ')} ms.`
      : '';
    const markdown = `## Fees: what charging adds to a fee-bearing call (\`npm run bench:billing-charge\`)

${new Date().toISOString().slice(0, 10)}, ${current.label}, ${ROUNDS} rounds × ${CALLS} calls per contender, alternating call by call (the order rotating too), one call at a time, inside the server (\`inject\`). The call: \`POST /gateway/nzbn/v5/entities/{nzbn}/organisation-parts\` in production (key, three-legged token, business authority), each a part beyond the entity's second over ${current.entities} entities. Charging on: the fee is charged through \`context.fees\` in the creating transaction (the payer from the process's payer cache; one statement: the month end's barrier, the authority FOR SHARE, the INSERT); every round checked one ledger row per call. Baseline: the same call with charging off (\`RSG_FEES=off\`), same runtime and databases.

| | p50 | p99 |
|---|---|---|
| charging on | ${ms(summary.onP50)} | ${ms(summary.onP99)} |
| charging off (baseline) | ${ms(summary.offP50)} | ${ms(summary.offP99)} |
| added by charging (median of per-round differences) | ${ms(summary.p50Added)} | **${ms(summary.p99Added)}** |${baselineRows}

Per-round p99 added: ${p99Added.map((n) => n.toFixed(3)).join(', ')} ms. Goal ≤ 1 ms at p99: **${verdict}**.${baselineNote}
Charging costs one database round trip (the INSERT with the barrier and the authority check; the payer comes from memory once kept): a \`SELECT 1\` round trip, timed between the calls, took p50 ${ms(quantile(trips, 0.5))}, p99 ${ms(quantile(trips, 0.99))} in this run (load average ${loadAtStart} at the start and ${load} at the end, on ${cpus().length} cores).`;
    process.stdout.write(`\n${markdown}\n`);
    if (process.env.BENCH_RECORD !== '0') await recordResults('bench:billing-charge', markdown);
  } finally {
    await current.close();
    await baseline?.close();
  }
}

/** A three-legged access token as the authorization server issues it (signed with its current key). */
async function mintToken(
  runtime: Runtime,
  userId: string,
  jwk: Awaited<
    ReturnType<typeof import('../src/identity/operations/signing-keys.ts').loadSigningKeys>
  >['privateKeys'][number],
  alg: string,
  scopes: typeof import('../src/identity/domain/scopes.ts'),
): Promise<string> {
  const key = await importJWK(jwk, alg);
  const base = runtime.config.oauth.resourceBase;
  return new SignJWT({
    client_id: 'bench-client',
    scope: `openid ${scopes.defaultScope(base, 'production')}`,
  })
    .setProtectedHeader({ alg, kid: jwk.kid! })
    .setIssuer(runtime.issuer)
    .setAudience(scopes.resourceFor(base, 'production'))
    .setSubject(userId)
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(key);
}

await main();
