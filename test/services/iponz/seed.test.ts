import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCase, generateClient, PLANS } from '../../../src/services/iponz/sandbox/generator.ts';
import { seedIponz } from '../../../src/services/iponz/sandbox/seed.ts';
import { seedNzbn } from '../../../src/services/nzbn/sandbox/seed.ts';
import { businessNumberRegister } from '../../../src/services/nzbn/store/business-numbers.ts';
import { type TestGateway, testGateway } from '../../support/runtime.ts';

/**
 * The sandbox generator: deterministic by index, a mix of statuses by age, business clients from the
 * business number register (same names and numbers) when it was seeded first, a second seed a no-op.
 */
let gateway: TestGateway;
const pool = () => gateway.runtime.environments.sandbox.pool;
const context = () => ({
  database: gateway.runtime.environments.sandbox,
  scale: 'small' as const,
  clock: gateway.runtime.clocks.for('sandbox'),
  log: () => {},
  identity: { grantOperatorsAuthority: async () => {} },
  registers: { businessNumbers: businessNumberRegister(gateway.runtime.environments.sandbox) },
});

beforeAll(async () => {
  gateway = await testGateway();
  await seedNzbn(context(), { entities: 1_000, chunkSize: 1_000, threads: 0 });
}, 120_000);
afterAll(async () => gateway?.close());

describe('the generator', () => {
  it('is the same for the same index and today', () => {
    expect(generateClient(150)).toEqual(generateClient(150));
    expect(generateCase('trademark', 321, '2026-06-15', 600, 600)).toEqual(
      generateCase('trademark', 321, '2026-06-15', 600, 600),
    );
    expect(generateCase('patent', 321, '2026-06-15', 600, 600)).not.toEqual(
      generateCase('patent', 322, '2026-06-15', 600, 600),
    );
  });

  it('makes the real mix: every kind with several statuses, PCT patents, registered and pending cases', () => {
    const today = '2026-06-15';
    for (const kind of ['patent', 'trademark', 'design'] as const) {
      const cases = Array.from({ length: 2_000 }, (_, i) => generateCase(kind, 100 + i, today, 600, 2_000));
      const statuses = new Set(cases.map((c) => c.status));
      expect(statuses.size, kind).toBeGreaterThanOrEqual(5);
      for (const c of cases) {
        expect(c.applicationDate <= today).toBe(true);
        if (c.registrationDate) expect(c.registrationDate >= c.applicationDate).toBe(true);
        expect(c.history[0]!.statusDate).toBe(c.applicationDate);
        expect(c.statusDate >= c.applicationDate && c.statusDate <= today).toBe(true);
      }
      // Changes spread over the years, not heaped on today.
      expect(cases.filter((c) => c.statusDate === today).length).toBeLessThan(cases.length * 0.02);
      if (kind === 'patent') {
        const pct = cases.filter((c) => c.internationalApplicationNumber !== null).length / cases.length;
        expect(pct).toBeGreaterThan(0.4);
        expect(pct).toBeLessThan(0.8);
      }
    }
  });
});

describe('the seed', () => {
  it('draws business clients from the business number register, and a second seed changes nothing', async () => {
    const first = await seedIponz(context());
    expect(first).toContain('businesses from the business number register: yes');
    const { rows } = await pool().query<{ same: string; businesses: string }>(
      `SELECT count(*) FILTER (WHERE e.entity_name = c.name) AS same, count(*) AS businesses
       FROM iponz_clients c JOIN nzbn_entities e USING (nzbn)`,
    );
    expect(Number(rows[0]!.businesses)).toBeGreaterThan(100);
    expect(rows[0]!.same).toBe(rows[0]!.businesses);
    const counts = await pool().query(
      `SELECT (SELECT count(*) FROM iponz_clients) AS c, (SELECT count(*) FROM iponz_cases) AS k`,
    );
    expect(Number(counts.rows[0].c)).toBe(8 + PLANS.small.clients);
    const second = await seedIponz(context());
    expect(second).toContain('already seeded');
  });
});
