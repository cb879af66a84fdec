import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedIponz } from '../../../src/services/iponz/sandbox/seed.ts';
import { businessNumberRegister } from '../../../src/services/nzbn/store/business-numbers.ts';
import { rsg } from '../../support/cli.ts';
import { type TestGateway, testGateway } from '../../support/runtime.ts';
import { exported, scratch } from '../../support/transfer.ts';

/**
 * The seeded sandbox register (every kind, status, renewal, PCT patent and fixed test case the generator
 * makes) passes the import's rules: exported, imported into the empty production register and exported
 * again, it is the same bytes.
 */
let gateway: TestGateway;
const folder = scratch();
const file = (name: string) => path.join(folder, name);

beforeAll(async () => {
  gateway = await testGateway();
  const sandbox = gateway.runtime.environments.sandbox;
  await seedIponz({
    database: sandbox,
    scale: 'small',
    clock: gateway.runtime.clocks.for('sandbox'),
    log: () => {},
    identity: { grantOperatorsAuthority: async () => {} },
    registers: { businessNumbers: businessNumberRegister(sandbox) },
  });
}, 180_000);
afterAll(async () => gateway?.close());

describe('rsg export iponz of the seeded sandbox', () => {
  it('imports into the empty production register and exports again the same bytes', async () => {
    const urls = gateway.urls;
    const seeded = await exported(urls, 'iponz', 'sandbox', file('seeded.ndjson'));
    const records = seeded.split('\n').filter(Boolean).length;
    expect(records).toBeGreaterThan(1_500);
    const imported = await rsg(['import', 'iponz', file('seeded.ndjson')], { urls });
    expect(imported.stderr.replace(/^(checking|importing) iponz.*\n/gm, '')).toBe('');
    expect(imported).toMatchObject({
      code: 0,
      stdout: `${records.toLocaleString('en-NZ')} records: ${records.toLocaleString('en-NZ')} new, 0 updated, 0 unchanged\n`,
    });
    expect(await exported(urls, 'iponz', 'production', file('production.ndjson'))).toBe(seeded);
  }, 300_000);
});
