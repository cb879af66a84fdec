import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invariantReport, invariantsHold, runInvariants } from '../../../src/services/invariants.ts';
import { iponzService } from '../../../src/services/iponz/index.ts';
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
    // The search's type filters each find marks.
    const { rows } = await sandbox().pool.query<{ mark_type: string }>(
      `SELECT DISTINCT mark_type FROM iponz_cases WHERE kind = 'trademark' ORDER BY mark_type`,
    );
    expect(rows.map((r) => r.mark_type)).toEqual(['Colour', 'Combined', 'Image', 'Shape', 'Sound', 'Word']);
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
});
