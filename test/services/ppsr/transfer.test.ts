import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../../src/platform/db/pool.ts';
import type { DatabaseUrls } from '../../../src/platform/db/urls.ts';
import { ServerKeys } from '../../../src/platform/server-keys.ts';
import { checkPin } from '../../../src/services/ppsr/domain/pin-verifiers.ts';
import { getStatement } from '../../../src/services/ppsr/store/statements.ts';
import { rsg } from '../../support/cli.ts';
import { migratedDatabases, TEST_SERVER_SECRET } from '../../support/runtime.ts';
import { exampleFile, exported, killedImport, scratch } from '../../support/transfer.ts';

/** `rsg import ppsr` / `rsg export ppsr` through the CLI, on databases of their own. */
let urls: DatabaseUrls & { drop(): Promise<void> };
let production: Database;
const folder = scratch();
const example = exampleFile('ppsr.ndjson');
const file = (name: string) => path.join(folder, name);
const keys = new ServerKeys(TEST_SERVER_SECRET);
const lines = (text: string) => text.split('\n').filter(Boolean);

beforeAll(async () => {
  urls = await migratedDatabases();
  production = openDatabase(urls.production, 2);
});
afterAll(async () => {
  await production?.close();
  await urls?.drop();
});

describe('rsg import ppsr / rsg export ppsr', () => {
  it('imports the example into production only, with new PINs that verify, reported once', async () => {
    const report = file('example.pins.csv');
    const first = await rsg(['import', 'ppsr', example, '--pin-report', report], { urls });
    expect(first).toMatchObject({ code: 0, stdout: '5 records: 5 new, 0 updated, 0 unchanged\n' });
    expect(first.stderr).toContain(`new PINs for 3 financing statements written to ${report}`);
    const rows = lines(readFileSync(report, 'utf8'));
    expect(rows[0]).toBe('registrationNumber,financingStatementPin,debtorPin');
    expect(rows).toHaveLength(4);
    for (const row of rows.slice(1)) {
      const [number, pin, debtorPin] = row.split(',') as [string, string, string];
      const statement = (await getStatement(production.pool, number))!;
      expect(checkPin(keys, pin, { hash: statement.pinHash, keyIds: statement.pinKeyIds }).matches).toBe(
        true,
      );
      expect(
        checkPin(keys, debtorPin, { hash: statement.debtorPinHash, keyIds: statement.debtorPinKeyIds })
          .matches,
      ).toBe(true);
      expect(
        checkPin(keys, debtorPin, { hash: statement.pinHash, keyIds: statement.pinKeyIds }).matches,
      ).toBe(false);
    }
    // The sandbox is untouched.
    expect(await exported(urls, 'ppsr', 'sandbox', file('sandbox-empty.ndjson'))).toBe('');

    // The same file again changes nothing and issues no PIN.
    const again = await rsg(['import', 'ppsr', example, '--pin-report', report], { urls });
    expect(again).toMatchObject({ code: 0, stdout: '5 records: 0 new, 0 updated, 5 unchanged\n' });
    expect(lines(readFileSync(report, 'utf8'))).toHaveLength(4);
  });

  it('round trip: export, import into the empty sandbox, export again gives the same bytes', async () => {
    const withSecrets = await exported(urls, 'ppsr', 'production', file('a.ndjson'), ['--include-secrets']);
    expect(lines(withSecrets)).toHaveLength(5);
    expect(withSecrets).toContain('"pinVerifiers"');
    const plain = await exported(urls, 'ppsr', 'production', file('plain.ndjson'));
    expect(plain).not.toContain('pinVerifiers');
    expect(plain).not.toContain('"pin');

    // Through gzip: an export to .gz, imported as is (told by its magic bytes).
    await exported(urls, 'ppsr', 'production', file('a.ndjson.gz'), ['--include-secrets']);
    expect(readFileSync(file('a.ndjson.gz')).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const imported = await rsg(['import', 'ppsr', file('a.ndjson.gz'), '--environment', 'sandbox'], { urls });
    expect(imported).toMatchObject({ code: 0, stdout: '5 records: 5 new, 0 updated, 0 unchanged\n' });
    expect(imported.stderr).not.toContain('new PINs');
    const again = await exported(urls, 'ppsr', 'sandbox', file('b.ndjson'), ['--include-secrets']);
    expect(again).toBe(withSecrets);
  });

  it('lists every error of a file with FILE:LINE field: rule and writes nothing', async () => {
    const records = lines(readFileSync(example, 'utf8')).map((line) => JSON.parse(line));
    const bad = structuredClone(records);
    bad[2].versions[0].debtors[0].dateOfBirth = '1984-02-30';
    bad[3].versions[0].collaterals = [];
    bad[4].registrationNumber = 'short';
    const fresh = structuredClone(records[3]);
    fresh.registrationNumber = 'EX0000000000NEW1';
    const text = [...bad.map((r) => JSON.stringify(r)), 'not json', JSON.stringify(fresh)].join('\n');
    writeFileSync(file('bad.ndjson'), `${text}\n`);
    const before = await exported(urls, 'ppsr', 'production', file('before.ndjson'));
    const result = await rsg(['import', 'ppsr', file('bad.ndjson'), '--pin-report', file('bad.pins.csv')], {
      urls,
    });
    expect(result.code).toBe(1);
    const name = file('bad.ndjson');
    // Progress lines (no terminal here) aside, the errors in file order.
    expect(result.stderr.replace(/^(checking|importing) ppsr .*\n/gm, '')).toBe(
      [
        `${name}:3 versions.0.debtors.0.dateOfBirth: must be a date, YYYY-MM-DD`,
        `${name}:4 versions.0.collaterals: must have at least one collateral`,
        `${name}:5 registrationNumber: must be 16 upper-case letters and digits`,
        `${name}:6 (line): must be one JSON value`,
        'rsg: 4 errors: nothing was imported',
        '',
      ].join('\n'),
    );
    expect(await exported(urls, 'ppsr', 'production', file('after.ndjson'))).toBe(before);
    // The valid new statement's PIN was never committed: no report is left.
    expect(() => readFileSync(file('bad.pins.csv'))).toThrow();

    const bounded = await rsg(['import', 'ppsr', file('bad.ndjson'), '--max-errors', '2'], { urls });
    expect(bounded.stderr).toContain('… and 2 more\n');
  });

  it('an updated record makes its version; the same file again changes nothing', async () => {
    const records = lines(readFileSync(example, 'utf8')).map((line) => JSON.parse(line));
    const vehicle = records[2];
    vehicle.versions[1].collaterals[0].motorVehicles[0].registrationPlate = 'EXB456';
    writeFileSync(file('updated.ndjson'), `${JSON.stringify(vehicle)}\n`);
    const result = await rsg(['import', 'ppsr', file('updated.ndjson')], { urls });
    expect(result).toMatchObject({ code: 0, stdout: '1 records: 0 new, 1 updated, 0 unchanged\n' });
    const statement = (await getStatement(production.pool, 'EX0000000000VEH1'))!;
    expect(statement.version).toBe(3);
    expect(JSON.stringify(statement.document.collaterals)).toContain('EXB456');
    const again = await rsg(['import', 'ppsr', file('updated.ndjson')], { urls });
    expect(again.stdout).toBe('1 records: 0 new, 0 updated, 1 unchanged\n');

    // A file whose history extends the register's: its further versions as the file has them.
    const exportedNow = lines(await exported(urls, 'ppsr', 'production', file('now.ndjson')));
    const current = JSON.parse(exportedNow.find((l) => l.includes('EX0000000000GRP1'))!);
    current.versions.push({
      ...current.versions[0],
      version: 2,
      change: 'Renewed',
      changedDate: '2025-01-10T10:00:00.000+1300',
      expiryDate: '2029-03-04',
    });
    current.expiryDate = '2029-03-04';
    writeFileSync(file('renewed.ndjson'), `${JSON.stringify(current)}\n`);
    expect((await rsg(['import', 'ppsr', file('renewed.ndjson')], { urls })).stdout).toContain('1 updated');
    const renewed = lines(await exported(urls, 'ppsr', 'production', file('renewed-out.ndjson')));
    expect(renewed).toContain(JSON.stringify(current));
  });

  it('an interrupted batched import resumes and ends with exactly the file’s records', async () => {
    const template = JSON.parse(lines(readFileSync(example, 'utf8'))[3]!);
    delete template.securedPartyGroupId;
    const count = 4000;
    const big = Array.from({ length: count }, (_, i) =>
      JSON.stringify({ ...template, registrationNumber: `BATCH${String(i).padStart(11, '0')}` }),
    );
    writeFileSync(file('big.ndjson'), `${big.join('\n')}\n`);
    const args = [
      'ppsr',
      file('big.ndjson'),
      '--environment',
      'sandbox',
      '--batch',
      '200',
      '--pin-report',
      file('big.pins.csv'),
    ];
    const killed = await killedImport(urls, args, 2);
    expect(killed.endedByItself).toBe(false);
    const resumed = await rsg(['import', ...args, '--resume'], { urls });
    expect(resumed.code).toBe(0);
    const skipped = Number(
      /resuming after ([\d,]+) committed records/.exec(resumed.stderr)?.[1]?.replace(/,/g, ''),
    );
    expect(skipped).toBeGreaterThanOrEqual(400);
    expect(skipped).toBeLessThan(count);
    const all = lines(await exported(urls, 'ppsr', 'sandbox', file('big-out.ndjson')));
    const batch = all.filter((line) => line.includes('"BATCH'));
    expect(batch).toHaveLength(count);
    // Every statement's PINs are in the report (the killed run's and the resumed run's).
    const reported = new Set(lines(readFileSync(file('big.pins.csv'), 'utf8')).map((l) => l.split(',')[0]));
    expect(big.every((line) => reported.has(JSON.parse(line).registrationNumber))).toBe(true);
  }, 180_000);
});
