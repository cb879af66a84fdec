import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { updateProduct } from '../../src/gateway/store/products.ts';
import { withTransaction } from '../../src/platform/db/pool.ts';
import { freezeClock, readClock } from '../../src/platform/environment-clocks.ts';
import { sendMail } from '../../src/platform/mail.ts';
import { grantExampleEntity, recorderAccess, recorderUser } from '../../src/portal/examples/access.ts';
import { RECORDED_AT, type RecordedExamples, recordExamples } from '../../src/portal/examples/record.ts';
import { seedSandbox } from '../../src/runtime.ts';
import { ENTITY_CHANNEL } from '../../src/services/nzbn/store/entity-cache.ts';
import { importInto } from '../services/market-rent/support/api.ts';
import { databaseFingerprint } from '../support/fingerprint.ts';
import { subscriber, type TestGateway, testGateway } from '../support/runtime.ts';

/**
 * The sandbox as a test tool (platform/sandbox/): a reset after writes in every register gives the
 * seeded sandbox back, table for table, with every key still valid and production untouched; a
 * snapshot restored after the clock moved brings the clock back; requests running through a reset,
 * in the process that resets and in another on the same databases, are answered from the old state,
 * the new one, or 503 with Retry-After, never 500; only an operator's sandbox key reaches the routes.
 */
let t: TestGateway;
/** A second process on the same databases, which answers 503 at once while the sandbox is held. */
let other: TestGateway;
let operatorKey: string;
let plainKey: string;
let productionOperatorKey: string;
let access: ReturnType<typeof recorderAccess>;
/** The seeded sandbox database, table by table. */
let seeded: Record<string, string>;
let firstPass: RecordedExamples;

const NZBN = '/sandbox/nzbn/v5';
const MARKET_RENT = '/sandbox/tenancy-services/market-rent/v2';

const sandboxPool = () => t.runtime.environments.sandbox.pool;
const admin = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, key = operatorKey, body?: unknown) =>
  t.app.inject({
    method,
    url: `/sandbox/admin${path}`,
    headers: {
      'ocp-apim-subscription-key': key,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

const sandboxMail = async () =>
  (
    await t.runtime.gateway.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM mail_outbox WHERE environment = 'sandbox'",
    )
  ).rows[0]!.n;

/** The business number register's view of identity's users, organisations and authorities. */
const IDENTITY_VIEWS = /^nzbn [A-Z]+ \/(users|organisations|authorities)\b/;

/**
 * Each operation's recorded answer (`<service> <operation>` → its JSON), with what is drawn at random
 * or numbered across the whole recording masked: UUIDs, organisation identifiers, webhook secrets and
 * signatures. What the recording's order numbers differently (identity's rows made by a first pass
 * shift the numbering) then compares operation by operation.
 */
function byOperation(recorded: RecordedExamples): Map<string, string> {
  const answers = new Map<string, string>();
  for (const [service, { answers: byName, missing }] of Object.entries(recorded)) {
    for (const [name, answer] of Object.entries({ ...byName, ...missing })) {
      const text = JSON.stringify(answer)
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, 'UUID')
        .replace(/org-[0-9a-f]{12}/g, 'ORG')
        .replace(/whsec_[A-Za-z0-9+/=_-]+/g, 'SECRET')
        .replace(/signature=[A-Za-z0-9_-]+/g, 'signature=S');
      answers.set(`${service} ${name}`, text);
    }
  }
  return answers;
}

beforeAll(async () => {
  t = await testGateway({ clockMode: 'virtual' });
  // Both processes up before the seed: what a process does with the data when it starts (the secured
  // interests register brings PIN verifiers under the current server key) is done to an empty sandbox.
  other = await testGateway({
    urls: t.urls,
    clockMode: 'virtual',
    env: { RSG_SANDBOX_RESET_WAIT_MS: '0' },
  });
  const pool = t.runtime.gateway.pool;
  // The clock frozen, as the response-example recorder runs: every answer that shows "now" repeats.
  await freezeClock(pool, 'sandbox', RECORDED_AT);
  await t.runtime.clocks.reload();
  const user = await recorderUser(pool);
  await seedSandbox(t.urls, 'small');
  // The first seed of this sandbox, kept as its seeded state (what `rsg start` does on a first start).
  expect(await t.runtime.sandboxStates.keepSeeded('small')).toBe(true);
  seeded = await databaseFingerprint(sandboxPool());
  await grantExampleEntity(t.app, pool, user, t.runtime.services, t.runtime.clocks.for('sandbox'));
  access = recorderAccess(t.app, pool, user);
  operatorKey = (await subscriber(t, 'sandbox-nzbn', { operator: true })).primaryKey;
  plainKey = (await subscriber(t, 'sandbox-nzbn')).primaryKey;
  productionOperatorKey = (await subscriber(t, 'production-nzbn', { operator: true })).primaryKey;
}, 300_000);

afterAll(async () => {
  await other?.close();
  await t?.close();
});

describe('sandbox reset', () => {
  it('after writes in every register gives the seeded sandbox back, keys valid, production untouched', async () => {
    const production = await databaseFingerprint(t.runtime.environments.production.pool);
    // Every operation of every register, reads first and then the writes with the documents' examples.
    firstPass = await recordExamples(t.app, t.runtime.services, access);
    // The rental statistics take bonds by import (their API only reads).
    await importInto(t, [{ id: 'RESET1', start: '2026-01-05', sa2: 308900, bedrooms: 2, rent: 450 }]);
    const written = await databaseFingerprint(sandboxPool());
    for (const prefix of ['nzbn_', 'market_rent_', 'iponz_', 'ppsr_', 'disclose_']) {
      const changed = Object.keys(seeded).filter(
        (table) => table.startsWith(prefix) && seeded[table] !== written[table],
      );
      expect(changed.length, `a write in the register of ${prefix}*`).toBeGreaterThan(0);
    }
    // Whatever else happened since: every table emptied, the clock moved, mail sent from the sandbox.
    // (As a replica would: the ledger's own triggers refuse to let issued invoices go.)
    const tables = Object.keys(seeded).filter((name) => !name.startsWith('sequence '));
    await withTransaction(sandboxPool(), async (tx) => {
      await tx.query('SET LOCAL session_replication_role = replica');
      await tx.query(`TRUNCATE ${tables.map((name) => `"${name}"`).join(', ')} CASCADE`);
    });
    await admin('POST', '/clock/advance', operatorKey, { duration: '45d' });
    await sendMail(
      { pool: t.runtime.gateway.pool, from: 'sandbox@example.test', environment: 'sandbox' },
      { to: 'someone@example.test', subject: 'sent from the sandbox', text: 'x' },
    );
    await sendMail(
      { pool: t.runtime.gateway.pool, from: 'gateway@example.test' },
      { to: 'someone@example.test', subject: 'the gateway’s own', text: 'x' },
    );
    expect(await sandboxMail()).toBeGreaterThan(0);

    const reset = await admin('POST', '/reset');
    expect(reset.statusCode, reset.body).toBe(200);
    expect(reset.json()).toMatchObject({
      state: 'seed:small',
      seeded: false,
      clock: { now: RECORDED_AT, frozen: true },
    });

    expect(await databaseFingerprint(sandboxPool())).toEqual(seeded);
    expect(await databaseFingerprint(t.runtime.environments.production.pool)).toEqual(production);
    expect(await sandboxMail()).toBe(0);
    const own = await t.runtime.gateway.pool.query(
      "SELECT 1 FROM mail_outbox WHERE environment IS NULL AND subject = 'the gateway’s own'",
    );
    expect(own.rowCount).toBe(1);
    expect(t.runtime.clocks.for('sandbox').now().toISOString()).toBe(RECORDED_AT);
    expect(other.runtime.clocks.for('sandbox').now().toISOString()).toBe(RECORDED_AT);
    // Keys made before the reset still work, in both processes.
    for (const gateway of [t, other]) {
      const answer = await gateway.app.inject({
        url: `${NZBN}/entities?search-term=limited`,
        headers: { 'ocp-apim-subscription-key': plainKey },
      });
      expect(answer.statusCode).toBe(200);
    }
    // The same operations answer as they did on the seeded sandbox: no cache kept what the writes made.
    const secondPass = await recordExamples(t.app, t.runtime.services, access);
    // Identity survives a reset (docs/operations.md): the business number register's view of it (its
    // users, organisations and authorities) shows what the first pass made there; every other answer
    // is the seeded sandbox's again.
    const first = byOperation(firstPass);
    const second = byOperation(secondPass);
    expect([...second.keys()]).toEqual([...first.keys()]);
    const differing = [...first]
      .filter(([name, answer]) => second.get(name) !== answer)
      .map(([name]) => name);
    expect(differing.filter((name) => !IDENTITY_VIEWS.test(name))).toEqual([]);
  }, 300_000);

  it('answers requests running through it from the old state, the new one, or 503, never 500', async () => {
    await updateProduct(t.runtime.gateway.pool, 'sandbox-nzbn', { rateLimitPerMinute: 1_000_000 });
    const read = (gateway: TestGateway) =>
      gateway.app.inject({
        url: `${NZBN}/entities/${nzbn}`,
        headers: { 'ocp-apim-subscription-key': plainKey },
      });
    // An entity deleted from the database (with the register's change notice, so that neither process
    // makes it from the generator any more): 404 until the reset, 200 after.
    const { rows } = await sandboxPool().query<{ nzbn: string }>(
      "SELECT nzbn FROM nzbn_entities WHERE origin = 'generated' ORDER BY seed_index DESC LIMIT 1",
    );
    const nzbn = rows[0]!.nzbn;
    await withTransaction(sandboxPool(), async (tx) => {
      await tx.query('DELETE FROM nzbn_entities WHERE nzbn = $1', [nzbn]);
      await tx.query('SELECT pg_notify($1, $2)', [ENTITY_CHANNEL, `${nzbn} deleted-by-test`]);
    });
    await vi.waitFor(async () => {
      for (const gateway of [t, other]) expect((await read(gateway)).statusCode).toBe(404);
    });

    const answers: { process: string; answer: LightMyRequestResponse }[] = [];
    let resetting = true;
    // Each client calls again a few milliseconds after an answer (in-process calls answered at once
    // would otherwise keep the event loop from the database's replies).
    const client = async (gateway: TestGateway, name: string) => {
      while (resetting) {
        answers.push({ process: name, answer: await read(gateway) });
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
    };
    const clients = [t, t, other, other].map((gateway, i) => client(gateway, i < 2 ? 'resetting' : 'other'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const reset = await admin('POST', '/reset');
    // A little longer, so the last answers come from the reset sandbox.
    await new Promise((resolve) => setTimeout(resolve, 100));
    resetting = false;
    await Promise.all(clients);
    expect(reset.statusCode, reset.body).toBe(200);

    const statuses = new Map<string, number>();
    for (const { process, answer } of answers) {
      const status = answer.statusCode;
      statuses.set(`${process} ${status}`, (statuses.get(`${process} ${status}`) ?? 0) + 1);
      expect([200, 404, 503], answer.body).toContain(status);
      if (status === 200) expect(answer.json().nzbn).toBe(nzbn);
      if (status === 404) expect(answer.json()).toMatchObject({ status: '404' });
      if (status === 503) {
        expect(answer.headers['retry-after']).toMatch(/^\d+$/);
        // The register's own error dialect.
        expect(answer.json()).toMatchObject({ status: '503', errorCode: 'service-unavailable' });
      }
    }
    // Old state, then new: once a process answered from the reset sandbox it never answers 404 again.
    for (const name of ['resetting', 'other']) {
      const mine = answers.filter((a) => a.process === name).map((a) => a.answer.statusCode);
      const firstNew = mine.indexOf(200);
      expect(firstNew, `${name}: ${[...statuses]}`).toBeGreaterThanOrEqual(0);
      expect(mine.slice(firstNew).filter((status) => status === 404)).toEqual([]);
    }
    // The process that reset held its requests until the sandbox was back; the other (no wait) answered
    // those that came meanwhile at once with a 503.
    expect(statuses.get('resetting 503') ?? 0, `${[...statuses]}`).toBe(0);
    expect(statuses.get('other 503') ?? 0, `${[...statuses]}`).toBeGreaterThan(0);
    for (const gateway of [t, other]) expect((await read(gateway)).statusCode).toBe(200);
    expect(await databaseFingerprint(sandboxPool())).toEqual(seeded);
  }, 120_000);
});

describe('readiness during a reset', () => {
  it('a process holding its sandbox for a reset is still ready: its sandbox requests wait', async () => {
    await t.runtime.sandbox.pause('readiness');
    try {
      const ready = await t.app.inject({ url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toMatchObject({ status: 'ready', databases: { sandbox: 'resetting' } });
    } finally {
      await t.runtime.sandbox.resume('readiness');
    }
    expect((await t.app.inject({ url: '/readyz' })).json()).toMatchObject({ databases: { sandbox: 'ok' } });
  });
});

describe('sandbox snapshots', () => {
  it('a snapshot restored after the clock moved brings the clock and the data back', async () => {
    const kept = await admin('PUT', '/snapshots/before-the-move');
    expect(kept.statusCode, kept.body).toBe(200);
    expect(kept.json()).toMatchObject({ name: 'before-the-move', clockAt: RECORDED_AT, clockFrozen: true });
    const atSnapshot = await databaseFingerprint(sandboxPool());

    const moved = await admin('POST', '/clock/advance', operatorKey, { duration: '30d' });
    expect(moved.json().now).not.toBe(RECORDED_AT);
    await importInto(t, [{ id: 'SNAP1', start: '2026-01-06', sa2: 308900, bedrooms: 3, rent: 990 }]);
    expect(await databaseFingerprint(sandboxPool())).not.toEqual(atSnapshot);

    const restored = await admin('POST', '/snapshots/before-the-move/restore');
    expect(restored.statusCode, restored.body).toBe(200);
    expect(restored.json()).toMatchObject({ state: 'before-the-move', clock: { now: RECORDED_AT } });
    expect((await readClock(t.runtime.gateway.pool, 'sandbox')).now.toISOString()).toBe(RECORDED_AT);
    // Another process hears of the restored clock through the change feed: soon, not at once.
    for (const gateway of [t, other]) {
      await vi.waitFor(
        () => expect(gateway.runtime.clocks.for('sandbox').now().toISOString()).toBe(RECORDED_AT),
        { timeout: 30_000, interval: 50 },
      );
    }
    expect(await databaseFingerprint(sandboxPool())).toEqual(atSnapshot);

    const listed = await admin('GET', '/snapshots');
    expect(listed.json().snapshots.map((s: { name: string }) => s.name)).toContain('before-the-move');
  }, 120_000);

  it('drops cached rental statistics whose revision comes back with other data', async () => {
    const QUERY = 'period-ending=2026-01&num-months=1&area-definition=TA2019';
    const statistics = async () => {
      const answer = await t.app.inject({
        url: `${MARKET_RENT}/statistics?${QUERY}`,
        headers: { 'ocp-apim-subscription-key': (await subscriber(t, 'sandbox-market-rent')).primaryKey },
      });
      expect(answer.statusCode, answer.body).toBe(200);
      return answer.body;
    };
    const bonds = (rent: number, id: string) =>
      Array.from({ length: 8 }, (_, i) => ({
        id: `${id}${i}`,
        start: `2026-01-${String(i + 10).padStart(2, '0')}`,
        sa2: 308900,
        bedrooms: 2,
        rent: rent + i,
      }));
    await admin('POST', '/reset');
    await importInto(t, bonds(300, 'LOW'));
    const low = await statistics();
    expect((await admin('PUT', '/snapshots/low-rents')).statusCode).toBe(200);
    await admin('POST', '/reset');
    // The same revision as the snapshot's, other rents: cached by the process.
    await importInto(t, bonds(2000, 'HIGH'));
    const high = await statistics();
    expect(high).not.toBe(low);
    expect((await admin('POST', '/snapshots/low-rents/restore')).statusCode).toBe(200);
    expect(await statistics()).toBe(low);
  }, 120_000);

  it('names: a wrong one is a 400 naming name, an unknown one a 404; delete forgets it', async () => {
    const wrong = await admin('PUT', `/snapshots/${encodeURIComponent('-not a name')}`);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ status: 400, errors: [{ field: 'name' }] });
    const unknown = await admin('POST', '/snapshots/never-kept/restore');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await admin('DELETE', '/snapshots/before-the-move')).statusCode).toBe(204);
    expect((await admin('DELETE', '/snapshots/before-the-move')).statusCode).toBe(404);
    expect((await admin('POST', '/snapshots/before-the-move/restore')).statusCode).toBe(404);
  });
});

describe('sandbox admin routes', () => {
  it('are refused to anyone but an operator with a sandbox key, and change nothing', async () => {
    const before = await databaseFingerprint(sandboxPool());
    const snapshots = (await admin('GET', '/snapshots')).json();
    const calls: [method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string][] = [
      ['POST', '/reset'],
      ['GET', '/snapshots'],
      ['PUT', '/snapshots/intruder'],
      ['POST', '/snapshots/low-rents/restore'],
      ['DELETE', '/snapshots/low-rents'],
    ];
    for (const [method, path] of calls) {
      const none = await t.app.inject({ method, url: `/sandbox/admin${path}` });
      expect(none.statusCode).toBe(401);
      expect((await admin(method, path, productionOperatorKey)).statusCode).toBe(401);
      const subscriberOnly = await admin(method, path, plainKey);
      expect(subscriberOnly.statusCode).toBe(403);
      expect(subscriberOnly.json()).toMatchObject({ type: 'about:blank#not-operator' });
    }
    expect((await admin('GET', '/snapshots')).json()).toEqual(snapshots);
    expect(await databaseFingerprint(sandboxPool())).toEqual(before);
  });
});
