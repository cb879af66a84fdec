import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedContext } from '../../../src/services/contract.ts';
import { discloseService } from '../../../src/services/disclose/index.ts';
import { DISCLOSE_INVARIANTS } from '../../../src/services/disclose/sandbox/invariants.ts';
import { seedDisclose } from '../../../src/services/disclose/sandbox/seed.ts';
import { folderDocumentFiles } from '../../../src/services/disclose/store/document-files.ts';
import { invariantReport, invariantsHold, runInvariants } from '../../../src/services/invariants.ts';
import { seedNzbn } from '../../../src/services/nzbn/sandbox/seed.ts';
import { businessNumberRegister } from '../../../src/services/nzbn/store/business-numbers.ts';
import { type TestGateway, testGateway } from '../../support/runtime.ts';

/** The seed hook as `rsg seed` runs it: after the business number register, idempotent. */
let gateway: TestGateway;
let context: SeedContext;
const granted: string[] = [];
beforeAll(async () => {
  gateway = await testGateway();
  context = {
    database: gateway.runtime.environments.sandbox,
    registers: { businessNumbers: businessNumberRegister(gateway.runtime.environments.sandbox) },
    scale: 'small',
    clock: { now: () => new Date('2026-05-20T00:00:00Z') },
    log: () => {},
    identity: {
      grantOperatorsAuthority: async () => {},
      grantOperatorsOrganisationAuthority: async (_service, _kind, id) => {
        granted.push(id);
        return 'sandbox-operators';
      },
    },
  };
}, 120_000);
afterAll(() => gateway?.close());

describe('the seed hook', () => {
  it('skips with a message while the business number register has no companies', async () => {
    expect(await seedDisclose(context)).toMatch(/^skipped/);
  });

  it('draws managers from the business number register, grants the fixtures, and runs once', async () => {
    await seedNzbn({ ...context, identity: context.identity }, { entities: 500, chunkSize: 500, threads: 0 });
    const files = folderDocumentFiles(await mkdtemp(path.join(tmpdir(), 'rsg-disclose-seed-')));
    const summary = await seedDisclose(context, { files, schemes: 4, standaloneOffers: 2 });
    // The fixed scheme SCH10000 has two further offers.
    expect(summary).toMatch(/^4 schemes, 8 offers, \d+ funds; organisation sandbox-operators/);
    expect(granted).toEqual([
      'FND10001',
      'FND10002',
      'FND10003',
      'FND10004',
      'FND10005',
      'FND10006',
      'FND10007',
      'FND10008',
      'FND10009',
      'FND10010',
      'FND10011',
      'FND10012',
      'FND10013',
    ]);
    const pool = gateway.runtime.environments.sandbox.pool;
    const managers = await pool.query(
      `SELECT s.manager_nzbn, e.entity_name = s.manager_name AS same
         FROM disclose_schemes s LEFT JOIN nzbn_entities e ON e.nzbn = s.manager_nzbn`,
    );
    expect(managers.rows.every((r) => r.same === true)).toBe(true);
    expect(await seedDisclose(context, { files })).toBe('offers register already seeded');
  });

  it('keeps the register’s invariants, each fixed test case that breaks one named as its exception', async () => {
    const results = await runInvariants([discloseService], () => ({
      database: context.database,
      clock: context.clock,
      registers: context.registers,
    }));
    expect(results.map((r) => r.id)).toEqual(DISCLOSE_INVARIANTS.map((i) => i.id));
    const report = invariantReport(results);
    expect(invariantsHold(results), report).toBe(true);
    expect(report).toMatch(
      new RegExp(`${DISCLOSE_INVARIANTS.length} of ${DISCLOSE_INVARIANTS.length} rules hold\\n$`),
    );
    expect(results.find((r) => r.id === 'few-overdue')?.excepted.map((b) => b.record)).toEqual([
      'FND10001',
      'FND10014',
    ]);
  });

  it('reports a cash fund holding shares as breaking its rule', async () => {
    const pool = context.database.pool;
    const { rows } = await pool.query<{ fund_number: string; version: number }>(
      `SELECT v.fund_number, v.version FROM disclose_fund_versions v JOIN disclose_funds f USING (fund_number)
        WHERE f.fund_type = 'Cash' ORDER BY v.fund_number, v.version LIMIT 1`,
    );
    const { fund_number: fund, version } = rows[0]!;
    const allocation = `jsonb_set(document, '{assetAllocation,0,assetType}', '"INTERNATIONAL_EQUITIES"')`;
    const before = await pool.query(
      'SELECT document FROM disclose_fund_versions WHERE fund_number = $1 AND version = $2',
      [fund, version],
    );
    await pool.query(
      `UPDATE disclose_fund_versions SET document = ${allocation} WHERE fund_number = $1 AND version = $2`,
      [fund, version],
    );
    try {
      const results = await runInvariants([discloseService], () => ({
        database: context.database,
        clock: context.clock,
        registers: context.registers,
      }));
      const broken = results.find((r) => r.id === 'assets-match-fund-type')!;
      expect(broken.breaks.map((b) => b.record)).toEqual([`${fund}-v${version}`]);
      expect(invariantsHold(results)).toBe(false);
    } finally {
      await pool.query(
        'UPDATE disclose_fund_versions SET document = $3 WHERE fund_number = $1 AND version = $2',
        [fund, version, before.rows[0].document],
      );
    }
  });

  it('reports a fund version dated before the version it follows', async () => {
    const pool = context.database.pool;
    const { rows } = await pool.query<{ fund_number: string; version: number; changed_at: Date }>(
      `SELECT fund_number, version, changed_at FROM disclose_fund_versions WHERE version = 2
        ORDER BY fund_number LIMIT 1`,
    );
    const { fund_number: fund, changed_at: at } = rows[0]!;
    await pool.query(
      `UPDATE disclose_fund_versions SET changed_at = (SELECT changed_at - interval '1 day'
         FROM disclose_fund_versions WHERE fund_number = $1 AND version = 1)
        WHERE fund_number = $1 AND version = 2`,
      [fund],
    );
    try {
      const results = await runInvariants([discloseService], () => ({
        database: context.database,
        clock: context.clock,
        registers: context.registers,
      }));
      const broken = results.find((r) => r.id === 'versions-dated-in-order')!;
      expect(broken.breaks.map((b) => b.record)).toEqual([`${fund}-v2`]);
      expect(broken.breaks[0]!.detail).toMatch(/^dated .*, before version 1 \(/);
    } finally {
      await pool.query(
        'UPDATE disclose_fund_versions SET changed_at = $2 WHERE fund_number = $1 AND version = 2',
        [fund, at],
      );
    }
  });

  it('reports an issuer whose name the business number register no longer has', async () => {
    const pool = context.database.pool;
    const { rows } = await pool.query<{ offer_number: string; issuer_nzbn: string; issuer_name: string }>(
      `SELECT offer_number, issuer_nzbn, issuer_name FROM disclose_offers
        WHERE scheme_number IS NULL AND issuer_nzbn IS NOT NULL ORDER BY offer_number LIMIT 1`,
    );
    const { offer_number: offer, issuer_nzbn: nzbn, issuer_name: name } = rows[0]!;
    const offers = await pool.query<{ offer_number: string }>(
      'SELECT offer_number FROM disclose_offers WHERE issuer_nzbn = $1 ORDER BY offer_number',
      [nzbn],
    );
    // Each scheme it manages or supervises, and each place it is named on a scheme or an offer otherwise.
    const schemes = await pool.query<{ scheme_number: string }>(
      `SELECT scheme_number FROM disclose_schemes WHERE manager_nzbn = $1
       UNION ALL SELECT scheme_number FROM disclose_schemes WHERE supervisor_nzbn = $1
       UNION ALL SELECT subject_number || ' ' || role FROM disclose_participants
        WHERE nzbn = $1 AND NOT (subject_kind = 'scheme' AND role IN ('Manager', 'Supervisor'))`,
      [nzbn],
    );
    expect(offers.rows.map((r) => r.offer_number)).toContain(offer);
    await pool.query(`UPDATE nzbn_entities SET entity_name = entity_name || ' RENAMED' WHERE nzbn = $1`, [
      nzbn,
    ]);
    try {
      const results = await runInvariants([discloseService], () => ({
        database: context.database,
        clock: context.clock,
        registers: context.registers,
      }));
      const broken = results.find((r) => r.id === 'businesses-in-business-register')!;
      expect(broken.breaks.map((b) => b.record).sort()).toEqual(
        [...offers.rows.map((r) => r.offer_number), ...schemes.rows.map((r) => r.scheme_number)].sort(),
      );
      expect(broken.breaks[0]!.detail).toContain(`${name} RENAMED`);
    } finally {
      await pool.query('UPDATE nzbn_entities SET entity_name = $2 WHERE nzbn = $1', [nzbn, name]);
    }
  });
});
