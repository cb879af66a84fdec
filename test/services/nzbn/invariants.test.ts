import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invariantReport, invariantsHold, runInvariants } from '../../../src/services/invariants.ts';
import type { Entity } from '../../../src/services/nzbn/domain/schema.ts';
import { nzbnService } from '../../../src/services/nzbn/index.ts';
import { simulateActivity } from '../../../src/services/nzbn/sandbox/activity.ts';
import { NZBN_INVARIANTS } from '../../../src/services/nzbn/sandbox/invariants.ts';
import { seedNzbn } from '../../../src/services/nzbn/sandbox/seed.ts';
import { rsg } from '../../support/cli.ts';
import { type TestGateway, testGateway } from '../../support/runtime.ts';

/**
 * The rules of the generated register (sandbox/invariants.ts) on the small seed: every rule the
 * definition registers holds, still after the simulated register activity (activity.ts) has run a
 * while, and `rsg sandbox check` reports an entity broken by hand.
 */
let gateway: TestGateway;
const sandbox = () => gateway.runtime.environments.sandbox;
const context = () => ({ database: sandbox(), clock: gateway.runtime.clocks.for('sandbox') });

beforeAll(async () => {
  gateway = await testGateway();
  await seedNzbn(
    { ...context(), scale: 'small', log: () => {}, identity: { grantOperatorsAuthority: async () => {} } },
    { threads: 0 },
  );
}, 300_000);
afterAll(async () => gateway?.close());

describe('the business number register sandbox’s invariants', () => {
  it('every rule the definition registers holds on the small register', async () => {
    const results = await runInvariants([nzbnService], context);
    expect(results.map((r) => r.id)).toEqual(NZBN_INVARIANTS.map((i) => i.id));
    expect(invariantsHold(results), invariantReport(results, 10)).toBe(true);
  }, 300_000);

  it('every rule still holds after a simulated fortnight of register activity', async () => {
    const pool = sandbox().pool;
    const now = gateway.runtime.clocks.for('sandbox').now().getTime();
    const HOUR = 3_600_000;
    // The first run only places the cursor; then two weeks at a brisk rate, a day a run.
    await simulateActivity(pool, new Date(now - 14 * 24 * HOUR), { ratePerHour: 0 });
    const byKind: Record<string, number> = {};
    for (let day = 13; day >= 0; day--) {
      const result = await simulateActivity(pool, new Date(now - day * 24 * HOUR), { ratePerHour: 12 });
      for (const [kind, count] of Object.entries(result.byKind)) byKind[kind] = (byKind[kind] ?? 0) + count;
    }
    expect(byKind.ENTITY_STATUS).toBeGreaterThan(20);
    expect(byKind.NEW).toBeGreaterThan(20);
    // A company put into liquidation has its liquidator from that moment, in the one change.
    const liquidated = (
      await pool.query<{ nzbn: string; at: Date; document: string }>(
        `SELECT c.nzbn, c.change_date AS at, e.document::text AS document
           FROM nzbn_change_events c JOIN nzbn_entities e USING (nzbn)
          WHERE c.change_event_type = 'ENTITY_STATUS' AND c.new_value ->> 'entityStatusCode' = '60'
            AND e.status_code = '60' ORDER BY c.id LIMIT 1`,
      )
    ).rows[0]!;
    const events = await pool.query('SELECT 1 FROM nzbn_change_events WHERE nzbn = $1 AND change_date = $2', [
      liquidated.nzbn,
      liquidated.at,
    ]);
    expect(events.rowCount).toBe(1);
    const roles = (JSON.parse(liquidated.document) as Entity).roles;
    expect(roles.filter((r) => r.roleType === 'Liquidator' && r.roleStatus === 'ACTIVE')).toHaveLength(1);
    const results = await runInvariants([nzbnService], context);
    expect(invariantsHold(results), invariantReport(results, 10)).toBe(true);
  }, 300_000);

  it('`rsg sandbox check` names a live company without roles, and number and status columns unlike their documents', async () => {
    const pool = sandbox().pool;
    const company = (
      await pool.query<{ nzbn: string }>(
        `SELECT nzbn FROM nzbn_entities WHERE origin = 'fixture' AND type_code = 'LTD' AND status_code = '50'
          ORDER BY nzbn LIMIT 1`,
      )
    ).rows[0]!.nzbn;
    const generated = (
      await pool.query<{ nzbn: string; id: string }>(
        `SELECT nzbn, source_register_unique_id AS id FROM nzbn_entities
          WHERE origin = 'generated' AND source_register_unique_id IS NOT NULL ORDER BY nzbn LIMIT 1`,
      )
    ).rows[0]!;
    // An entity the simulated activity registered is judged too (a client's own registrations are not).
    const simulated = (
      await pool.query<{ nzbn: string }>(
        'SELECT nzbn FROM nzbn_sandbox_activity_entities ORDER BY nzbn LIMIT 1',
      )
    ).rows[0]!.nzbn;
    const ok = await rsg(['sandbox', 'check', '--service', 'nzbn'], { urls: gateway.urls });
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain('✓ nzbn/roles-follow-type: ok.');
    await pool.query(
      `UPDATE nzbn_entities SET document = jsonb_set(document::jsonb, '{roles}', '[]')::json, version = version + 1
        WHERE nzbn = $1`,
      [company],
    );
    await pool.query(`UPDATE nzbn_entities SET source_register_unique_id = NULL WHERE nzbn = $1`, [
      generated.nzbn,
    ]);
    await pool.query(`UPDATE nzbn_entities SET status_code = '80' WHERE nzbn = $1`, [simulated]);
    const failed = await rsg(['sandbox', 'check', '--service', 'nzbn', '--json'], { urls: gateway.urls });
    expect(failed.code).toBe(1);
    const results = JSON.parse(failed.stdout) as {
      id: string;
      breaks: { record: string; detail: string }[];
    }[];
    const breaks = (id: string) => results.find((r) => r.id === id)!.breaks;
    expect(breaks('roles-follow-type').map((b) => b.record)).toEqual([company]);
    expect(breaks('roles-follow-type')[0]!.detail).toContain('without an active Director');
    expect(breaks('source-register-follows-type').map((b) => b.record)).toEqual(
      [generated.nzbn, simulated].sort(),
    );
  }, 300_000);
});
