import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedContext } from '../../../src/services/contract.ts';
import { seedDisclose } from '../../../src/services/disclose/sandbox/seed.ts';
import { folderDocumentFiles } from '../../../src/services/disclose/store/document-files.ts';
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
});
