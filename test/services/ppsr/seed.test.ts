import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invariantReport, invariantsHold, runInvariants } from '../../../src/services/invariants.ts';
import { businessNumberRegister } from '../../../src/services/nzbn/store/business-numbers.ts';
import { ppsrService } from '../../../src/services/ppsr/index.ts';
import { FIXTURE_PIN, FIXTURE_VIN, FIXTURES } from '../../../src/services/ppsr/sandbox/fixtures.ts';
import { PPSR_INVARIANTS } from '../../../src/services/ppsr/sandbox/invariants.ts';
import { STATEMENTS, seedPpsr } from '../../../src/services/ppsr/sandbox/seed.ts';
import { rsg } from '../../support/cli.ts';
import { type PpsrTest, ppsrTest } from './support/api.ts';

/**
 * The sandbox seed: the small register (company debtors from the sandbox business number register),
 * the fixed test cases found by their searches and changeable with their PIN, and a second seed that
 * changes nothing.
 */
let test: PpsrTest;
const seed = () =>
  seedPpsr({
    database: test.gateway.runtime.environments.sandbox,
    scale: 'small',
    clock: test.gateway.runtime.clocks.for('sandbox'),
    log: () => {},
    identity: { grantOperatorsAuthority: async () => {} },
    registers: { businessNumbers: businessNumberRegister(test.gateway.runtime.environments.sandbox) },
  });
beforeAll(async () => {
  test = await ppsrTest({ env: { RSG_PPSR_USER_RATE_LIMIT: '0' } });
  await seed();
}, 180_000);
afterAll(async () => test?.close());

const count = async (sql: string) =>
  Number((await test.gateway.runtime.environments.sandbox.pool.query(sql)).rows[0].n);

describe('the sandbox seed', () => {
  it('loads the small register and the fixtures, and a second seed changes nothing', async () => {
    const statements = await count('SELECT count(*) AS n FROM ppsr_financing_statements');
    expect(statements).toBe(STATEMENTS.small + FIXTURES.length);
    const versions = await count('SELECT count(*) AS n FROM ppsr_financing_statement_versions');
    expect(versions).toBeGreaterThan(statements);
    await seed();
    expect(await count('SELECT count(*) AS n FROM ppsr_financing_statements')).toBe(statements);
    expect(await count('SELECT count(*) AS n FROM ppsr_financing_statement_versions')).toBe(versions);
  });

  it('draws company debtors from the business number register, with the same names and numbers', async () => {
    const pool = test.gateway.runtime.environments.sandbox.pool;
    const mismatched = await pool.query(
      `SELECT d->>'nzbn' AS nzbn FROM ppsr_financing_statements s, jsonb_array_elements(s.document->'debtors') d
        WHERE d->>'nzbn' IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM nzbn_entities e WHERE e.nzbn = d->>'nzbn' AND e.entity_name = d->>'organisationName')
        LIMIT 5`,
    );
    expect(mismatched.rows).toEqual([]);
    expect(await count(`SELECT count(*) AS n FROM ppsr_search_keys WHERE kind = 'nzbn'`)).toBeGreaterThan(
      100,
    );
  });

  it('has every status among its statements, and fixtures found by VIN and changed with their PIN', async () => {
    const statuses = await test.gateway.runtime.environments.sandbox.pool.query<{
      discharged: boolean;
      expired: boolean;
    }>(
      `SELECT DISTINCT discharged_at IS NOT NULL AS discharged, expiry_date < now()::date AS expired FROM ppsr_financing_statements`,
    );
    expect(statuses.rows.length).toBeGreaterThanOrEqual(3);
    const found = await test.call('POST', '/financing-statements-search', {
      body: {
        searchBy: 'motorVehicle',
        legitimateSearchReason: 'yes',
        searchByMotorVehicle: { vin: FIXTURE_VIN },
      },
    });
    expect(
      found.json().financingStatements.map((s: { registrationNumber: string }) => s.registrationNumber),
    ).toEqual(['FIXC120000000000']);
    // The seed's statements belong to no organisation: their published PIN opens them.
    const expired = await test.call('GET', '/financing-statements/FIXEXPIRED000000', {
      headers: { 'financing-statement-pin': FIXTURE_PIN },
    });
    expect(expired.json().status).toBe('Expired');
    const renewed = await test.call('PUT', '/financing-statements/FIXC010000000000/renew', {
      body: {},
      headers: { 'financing-statement-pin': FIXTURE_PIN },
    });
    expect(renewed.statusCode, renewed.body).toBe(200);
  });

  it('keeps the register’s invariants, and `rsg sandbox check` reports one broken', async () => {
    const pool = test.gateway.runtime.environments.sandbox.pool;
    const results = await runInvariants([ppsrService], () => ({
      database: test.gateway.runtime.environments.sandbox,
      clock: test.gateway.runtime.clocks.for('sandbox'),
      registers: { businessNumbers: businessNumberRegister(test.gateway.runtime.environments.sandbox) },
    }));
    expect(results.map((r) => r.id)).toEqual(PPSR_INVARIANTS.map((i) => i.id));
    expect(invariantReport(results)).toMatch(/5 of 5 rules hold\n$/);
    expect(invariantsHold(results)).toBe(true);
    // The cross-register rule has company debtors to judge.
    const companies = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ppsr_financing_statement_versions v,
              jsonb_array_elements(v.document -> 'debtors') d WHERE d ->> 'nzbn' IS NOT NULL`,
    );
    expect(companies.rows[0]!.n).toBeGreaterThan(0);
    // And secured parties: the register's lenders, the same few across the generated statements.
    const lenders = await pool.query<{ name: string }>(
      `SELECT DISTINCT p ->> 'name' AS name FROM ppsr_financing_statements s,
              jsonb_array_elements(s.document -> 'securedParties') p
        WHERE s.registration_number NOT LIKE 'FIX%' ORDER BY 1`,
    );
    expect(lenders.rows.length).toBeGreaterThanOrEqual(5);
    expect(lenders.rows.length).toBeLessThanOrEqual(12);
    const secured = results.find((r) => r.id === 'secured-parties-in-business-register')!;
    expect(secured.excepted.map((b) => b.record)).toContain('FIXEXPIRED000000');
    const checked = await rsg(['sandbox', 'check', '--service', 'ppsr'], { urls: test.gateway.urls });
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    expect(checked.stdout).toContain('✓ ppsr/history-in-order: ok.');
    // A renewal dated before the registration it renews breaks the history's order.
    const { rows } = await pool.query<{ registration_number: string }>(
      `SELECT registration_number FROM ppsr_financing_statement_versions WHERE version = 2 AND change = 'Renewed'
        ORDER BY registration_number LIMIT 1`,
    );
    const broken = rows[0]!.registration_number;
    await pool.query(
      `UPDATE ppsr_financing_statement_versions SET changed_at = changed_at - interval '20 years'
        WHERE registration_number = $1 AND version = 2`,
      [broken],
    );
    try {
      const failed = await rsg(['sandbox', 'check', '--service', 'ppsr', '--json'], {
        urls: test.gateway.urls,
      });
      expect(failed.code).toBe(1);
      const order = (JSON.parse(failed.stdout) as { id: string; breaks: { record: string }[] }[]).find(
        (r) => r.id === 'history-in-order',
      )!;
      expect(order.breaks.map((b) => b.record)).toEqual([broken]);
    } finally {
      await pool.query(
        `UPDATE ppsr_financing_statement_versions SET changed_at = changed_at + interval '20 years'
          WHERE registration_number = $1 AND version = 2`,
        [broken],
      );
    }
  });
});
