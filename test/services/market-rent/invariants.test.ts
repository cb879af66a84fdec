import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invariantReport, invariantsHold, runInvariants } from '../../../src/services/invariants.ts';
import { marketRentService } from '../../../src/services/market-rent/index.ts';
import { MARKET_RENT_INVARIANTS } from '../../../src/services/market-rent/sandbox/invariants.ts';
import { seedMarketRent } from '../../../src/services/market-rent/sandbox/seed.ts';
import { rsg } from '../../support/cli.ts';
import type { TestGateway } from '../../support/runtime.ts';
import { marketRentGateway } from './support/api.ts';

/**
 * The rules of the generated register of bonds (sandbox/invariants.ts) on the small seed: every rule the
 * definition registers holds, and `rsg sandbox check` reports a bond broken by hand.
 */
let gateway: TestGateway;
const sandbox = () => gateway.runtime.environments.sandbox;
const context = () => ({ database: sandbox(), clock: gateway.runtime.clocks.for('sandbox') });

beforeAll(async () => {
  ({ gateway } = await marketRentGateway());
  await seedMarketRent({
    ...context(),
    scale: 'small',
    log: () => {},
    identity: { grantOperatorsAuthority: async () => {} },
  });
}, 180_000);
afterAll(async () => gateway?.close());

describe('the rental bonds sandbox’s invariants', () => {
  it('every rule the definition registers holds on the small register', async () => {
    const results = await runInvariants([marketRentService], context);
    expect(results.map((r) => r.id)).toEqual(MARKET_RENT_INVARIANTS.map((i) => i.id));
    expect(invariantsHold(results), invariantReport(results)).toBe(true);
  });

  it('`rsg sandbox check` names a bond of more than four weeks’ rent, and one in the sea', async () => {
    const pool = sandbox().pool;
    const { rows } = await pool.query<{ bond_id: string; bond_amount: number; sa2_code: number }>(
      `SELECT bond_id, bond_amount, sa2_code FROM market_rent_bonds ORDER BY bond_id LIMIT 1`,
    );
    const { bond_id: broken, bond_amount: amount, sa2_code: sa2 } = rows[0]!;
    const ok = await rsg(['sandbox', 'check', '--service', 'market-rent'], { urls: gateway.urls });
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain('✓ market-rent/bond-at-most-four-weeks: ok.');
    // 100300 is "Inlets Far North District".
    await pool.query(
      `UPDATE market_rent_bonds SET bond_amount = 5 * weekly_rent, sa2_code = 100300 WHERE bond_id = $1`,
      [broken],
    );
    try {
      const failed = await rsg(['sandbox', 'check', '--service', 'market-rent', '--json'], {
        urls: gateway.urls,
      });
      expect(failed.code).toBe(1);
      const results = JSON.parse(failed.stdout) as { id: string; breaks: { record: string }[] }[];
      const records = (id: string) => results.find((r) => r.id === id)!.breaks.map((b) => b.record);
      expect(records('bond-at-most-four-weeks')).toEqual([broken]);
      expect(records('areas-real')).toEqual(['100300']);
      // Changed behind the histograms' back: the month's counts no longer match its bonds' amounts.
      expect(records('histograms-count-bonds')).toHaveLength(1);
    } finally {
      await pool.query(`UPDATE market_rent_bonds SET bond_amount = $2, sa2_code = $3 WHERE bond_id = $1`, [
        broken,
        amount,
        sa2,
      ]);
    }
  });
});
