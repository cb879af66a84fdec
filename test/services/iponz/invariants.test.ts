import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invariantReport, invariantsHold, runInvariants } from '../../../src/services/invariants.ts';
import { iponzService } from '../../../src/services/iponz/index.ts';
import { TimedStatuses } from '../../../src/services/iponz/jobs/timed-statuses.ts';
import { IPONZ_INVARIANTS } from '../../../src/services/iponz/sandbox/invariants.ts';
import { seedIponz } from '../../../src/services/iponz/sandbox/seed.ts';
import { seedNzbn } from '../../../src/services/nzbn/sandbox/seed.ts';
import { businessNumberRegister } from '../../../src/services/nzbn/store/business-numbers.ts';
import { rsg } from '../../support/cli.ts';
import { type TestGateway, testGateway } from '../../support/runtime.ts';

/**
 * The rules of the generated register (sandbox/invariants.ts) on the small seed: every rule the
 * definition registers holds, and `rsg sandbox check` reports one broken by hand.
 */
let gateway: TestGateway;
const sandbox = () => gateway.runtime.environments.sandbox;
const context = () => ({
  database: sandbox(),
  clock: gateway.runtime.clocks.for('sandbox'),
  registers: { businessNumbers: businessNumberRegister(sandbox()) },
});
const identity = { grantOperatorsAuthority: async () => {} };

beforeAll(async () => {
  gateway = await testGateway();
  // Business clients are the business number register's companies, as `rsg seed` makes them.
  await seedNzbn({ ...context(), scale: 'small', log: () => {}, identity }, { entities: 2000, threads: 0 });
  await seedIponz({ ...context(), scale: 'small', log: () => {}, identity });
}, 180_000);
afterAll(async () => gateway?.close());

describe('the sandbox’s invariants', () => {
  it('every rule the definition registers holds on the small register', async () => {
    const results = await runInvariants([iponzService], context);
    expect(results.map((r) => r.id)).toEqual(IPONZ_INVARIANTS.map((i) => i.id));
    expect(invariantsHold(results), invariantReport(results)).toBe(true);
    // The fixed cases of one status each that no term allows (an expired design and patent, a mark past
    // its expiry date) are the rule's named exceptions, found breaking it.
    const expiry = results.find((r) => r.id === 'status-within-expiry')!;
    expect(expiry.excepted.map((b) => b.record).sort()).toEqual(['1000005', '400006', '500009']);
    const { rows: businesses } = await sandbox().pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM iponz_clients WHERE nzbn IS NOT NULL',
    );
    expect(businesses[0]!.n).toBeGreaterThan(100);
    // Companies abroad are clients too (not in the business number register); the fixed clients that are
    // businesses here, named for their search cases, are the named exceptions to having a number.
    const { rows: abroad } = await sandbox().pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM iponz_client_addresses WHERE address_type = 'physical' AND country_code <> 'NZ'`,
    );
    expect(abroad[0]!.n).toBeGreaterThan(30);
    const numbered = results.find((r) => r.id === 'nz-clients-in-business-register')!;
    expect(numbered.excepted.map((b) => b.record).sort()).toEqual([
      '100000',
      '100001',
      '100002',
      '100003',
      '100005',
      '100006',
    ]);
    // The search's type filters each find marks.
    const { rows } = await sandbox().pool.query<{ mark_type: string }>(
      `SELECT DISTINCT mark_type FROM iponz_cases WHERE kind = 'trademark' ORDER BY mark_type`,
    );
    expect(rows.map((r) => r.mark_type)).toEqual(['Colour', 'Combined', 'Image', 'Shape', 'Sound', 'Word']);
  });

  it('names a company abroad with a New Zealand company’s number, and a business here without one', async () => {
    const pool = sandbox().pool;
    const abroad = (
      await pool.query<{ client_id: number }>(
        `SELECT c.client_id FROM iponz_clients c JOIN iponz_client_addresses a USING (client_id)
          WHERE a.address_type = 'physical' AND a.country_code <> 'NZ' ORDER BY c.client_id LIMIT 1`,
      )
    ).rows[0]!.client_id;
    const here = (
      await pool.query<{ client_id: number; nzbn: string }>(
        `SELECT client_id, nzbn FROM iponz_clients WHERE nzbn IS NOT NULL ORDER BY client_id LIMIT 1`,
      )
    ).rows[0]!;
    await pool.query('UPDATE iponz_clients SET nzbn = $2 WHERE client_id = $1', [abroad, here.nzbn]);
    await pool.query('UPDATE iponz_clients SET nzbn = NULL WHERE client_id = $1', [here.client_id]);
    try {
      const results = await runInvariants([iponzService], context);
      const breaks = (id: string) => results.find((r) => r.id === id)!.breaks;
      expect(breaks('overseas-clients-not-in-business-register').map((b) => b.record)).toEqual([
        String(abroad),
      ]);
      expect(breaks('overseas-clients-not-in-business-register')[0]!.detail).toContain(
        'not an overseas company',
      );
      expect(breaks('nz-clients-in-business-register').map((b) => b.record)).toEqual([
        String(here.client_id),
      ]);
    } finally {
      await pool.query('UPDATE iponz_clients SET nzbn = NULL WHERE client_id = $1', [abroad]);
      await pool.query('UPDATE iponz_clients SET nzbn = $2 WHERE client_id = $1', [
        here.client_id,
        here.nzbn,
      ]);
    }
  });

  it('`rsg sandbox check` names a Granted status dated after the grant', async () => {
    const pool = sandbox().pool;
    const { rows } = await pool.query<{ case_number: number }>(
      `SELECT case_number FROM iponz_cases WHERE kind = 'patent' AND status = 'Granted' AND case_number >= 100
        ORDER BY case_number LIMIT 1`,
    );
    const broken = rows[0]!.case_number;
    const ok = await rsg(['sandbox', 'check', '--service', 'iponz'], { urls: gateway.urls });
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain('✓ iponz/dates-in-order: ok.');
    await pool.query(
      `UPDATE iponz_status_history SET status_date = status_date + 30
        WHERE kind = 'patent' AND case_number = $1 AND status = 'Granted'`,
      [broken],
    );
    try {
      const failed = await rsg(['sandbox', 'check', '--service', 'iponz', '--json'], { urls: gateway.urls });
      expect(failed.code).toBe(1);
      const dates = (JSON.parse(failed.stdout) as { id: string; breaks: { record: string }[] }[]).find(
        (r) => r.id === 'dates-in-order',
      )!;
      expect(dates.breaks.map((b) => b.record)).toEqual([String(broken)]);
    } finally {
      await pool.query(
        `UPDATE iponz_status_history SET status_date = status_date - 30
          WHERE kind = 'patent' AND case_number = $1 AND status = 'Granted'`,
        [broken],
      );
    }
  });

  it('holds client addresses to real places; names one moved to another town’s suburb', async () => {
    const pool = sandbox().pool;
    const rule = async () =>
      (await runInvariants([iponzService], context)).find((r) => r.id === 'addresses-real')!;
    const held = await rule();
    expect(held.breaks).toEqual([]);
    // The fixed clients' addresses are the client search's test cases, without postcodes: named exceptions.
    expect([...new Set(held.excepted.map((b) => b.record))].sort()).toEqual([
      '100000',
      '100001',
      '100002',
      '100003',
      '100004',
      '100005',
      '100007',
    ]);
    const { rows } = await pool.query<{ client_id: number; line3: string; city: string }>(
      `SELECT client_id, line3, city FROM iponz_client_addresses
        WHERE client_id > 100100 AND address_type = 'physical' AND line3 IS NOT NULL AND city <> 'Dunedin'
        ORDER BY client_id LIMIT 1`,
    );
    const moved = rows[0]!;
    await pool.query(
      `UPDATE iponz_client_addresses SET city = 'Dunedin' WHERE client_id = $1 AND address_type = 'physical'`,
      [moved.client_id],
    );
    try {
      const named = await rule();
      expect(named.breaks).toEqual([
        {
          record: String(moved.client_id),
          detail: `physical address: ${moved.line3} is no suburb of Dunedin`,
        },
      ]);
    } finally {
      await pool.query(
        `UPDATE iponz_client_addresses SET city = $2 WHERE client_id = $1 AND address_type = 'physical'`,
        [moved.client_id, moved.city],
      );
    }
  });

  it('names a case time has moved that does not show it, and the daily pass puts it right', async () => {
    const pool = sandbox().pool;
    const { rows } = await pool.query<{ case_number: number }>(
      `SELECT case_number FROM iponz_cases WHERE kind = 'patent' AND status = 'Granted' AND case_number >= 500100
        ORDER BY case_number LIMIT 1`,
    );
    const overdue = rows[0]!.case_number;
    // Its term counted from 21 years earlier: past its end, still shown Granted.
    await pool.query(
      `UPDATE iponz_cases SET term_date = term_date - interval '21 years' WHERE kind = 'patent' AND case_number = $1`,
      [overdue],
    );
    const rule = async () =>
      (await runInvariants([iponzService], context)).find((r) => r.id === 'statuses-up-to-date')!;
    const named = await rule();
    expect(named.breaks.map((b) => b.record)).toEqual([String(overdue)]);
    expect(named.breaks[0]!.detail).toMatch(/^Granted, but (Expired|Lapsed) since \d{4}-\d{2}-\d{2}$/);
    const moved = await new TimedStatuses(sandbox(), gateway.runtime.clocks.for('sandbox')).run(true);
    expect(moved).toBe(1);
    expect((await rule()).breaks).toEqual([]);
  });
});
