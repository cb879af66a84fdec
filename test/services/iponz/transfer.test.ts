import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../../src/platform/db/pool.ts';
import type { DatabaseUrls } from '../../../src/platform/db/urls.ts';
import { listXml, recordXml } from '../../../src/services/iponz/domain/bibliographic.ts';
import type { CaseRecord } from '../../../src/services/iponz/domain/model.ts';
import { findCase } from '../../../src/services/iponz/store/cases.ts';
import { findClient } from '../../../src/services/iponz/store/clients.ts';
import { rsg } from '../../support/cli.ts';
import { migratedDatabases } from '../../support/runtime.ts';
import { exampleFile, exported, killedImport, scratch } from '../../support/transfer.ts';

/** `rsg import iponz` / `rsg export iponz` through the CLI, on databases of their own. */
let urls: DatabaseUrls & { drop(): Promise<void> };
let production: Database;
let sandbox: Database;
const folder = scratch();
const example = exampleFile('iponz.ndjson');
const file = (name: string) => path.join(folder, name);
const lines = (text: string) => text.split('\n').filter(Boolean);
const records = () => lines(readFileSync(example, 'utf8')).map((line) => JSON.parse(line));
const progressless = (text: string) => text.replace(/^(checking|importing) iponz.*\n/gm, '');
const folderFiles = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir).map((name) => [name, readFileSync(path.join(dir, name)).toString('hex')]),
  );

beforeAll(async () => {
  urls = await migratedDatabases();
  production = openDatabase(urls.production, 2);
  sandbox = openDatabase(urls.sandbox, 2);
});
afterAll(async () => {
  await production?.close();
  await sandbox?.close();
  await urls?.drop();
});

const count = async (db: Database, sql: string) =>
  Number((await db.pool.query<{ n: string }>(sql)).rows[0]!.n);

describe('rsg import iponz / rsg export iponz', () => {
  it('imports the example into production only; the same file again changes nothing', async () => {
    const first = await rsg(['import', 'iponz', example], { urls });
    expect(first).toMatchObject({ code: 0, stdout: '9 records: 9 new, 0 updated, 0 unchanged\n' });
    const mark = (await findCase(production.pool, 'trademark', 1012345))!;
    expect(mark).toMatchObject({ title: 'KIWI GOLD', version: 3, lastRenewalDueDate: '2023-12-10' });
    expect(mark.renewals).toEqual([
      { renewalDate: '2023-11-28', renewedExpiryDate: '2023-12-10', newExpiryDate: '2033-12-10' },
    ]);
    expect(mark.parties).toEqual([
      { role: 'Owner', clientId: 100101, name: 'Kiwi Orchard Holdings Limited', countryCode: 'NZ' },
    ]);
    const patent = (await findCase(production.pool, 'patent', 545678))!;
    expect(patent.patentDetail?.ipcClassifications).toEqual(['G01N 33/02']);
    // Documents' bytes are in the store; the correspondence is linked to them; no mail is queued.
    expect(
      await count(production, 'SELECT count(*) AS n FROM iponz_case_documents WHERE stored_size IS NOT NULL'),
    ).toBe(4);
    expect(await count(production, 'SELECT count(*) AS n FROM iponz_correspondence_documents')).toBe(2);
    expect(
      await count(production, 'SELECT count(*) AS n FROM iponz_discussions WHERE mailed_at IS NULL'),
    ).toBe(0);
    // The sandbox is untouched.
    expect(await count(sandbox, 'SELECT count(*) AS n FROM iponz_cases')).toBe(0);

    const again = await rsg(['import', 'iponz', example], { urls });
    expect(again).toMatchObject({ code: 0, stdout: '9 records: 0 new, 0 updated, 9 unchanged\n' });
    expect((await findCase(production.pool, 'trademark', 1012345))!.version).toBe(3);
  });

  it('round trip: export, import into the empty sandbox, export again gives the same bytes', async () => {
    const first = await exported(urls, 'iponz', 'production', file('a.ndjson'));
    expect(first).toBe(readFileSync(example, 'utf8'));
    expect(folderFiles(file('a.documents'))).toEqual(folderFiles(exampleFile('iponz.documents')));

    // Through gzip: an export to .gz, imported as is (told by its magic bytes), its documents beside it.
    await exported(urls, 'iponz', 'production', file('a.ndjson.gz'));
    expect(readFileSync(file('a.ndjson.gz')).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const imported = await rsg(['import', 'iponz', file('a.ndjson.gz'), '--environment', 'sandbox'], {
      urls,
    });
    expect(imported).toMatchObject({ code: 0, stdout: '9 records: 9 new, 0 updated, 0 unchanged\n' });
    const again = await exported(urls, 'iponz', 'sandbox', file('b.ndjson'));
    expect(again).toBe(first);
    expect(folderFiles(file('b.documents'))).toEqual(folderFiles(file('a.documents')));
  }, 120_000);

  it('lists every error of a file with FILE:LINE field: rule and writes nothing', async () => {
    const bad = records();
    bad[1].addresses[0].postcode = '60';
    bad[4].Design.ExpiryDate = '2030-01-01';
    bad[5].Patent.StatusHistory.Status[1].StatusDate = '2024-02-30';
    bad[6].register.documentFiles[0].sha256 = '0'.repeat(64);
    bad[8].tasks[0].TaskStatus = 'done';
    const fresh = { ...records()[0], clientId: '100199' };
    const text = [...bad.map((r) => JSON.stringify(r)), 'not json', JSON.stringify(fresh)].join('\n');
    writeFileSync(file('bad.ndjson'), `${text}\n`);
    const before = await exported(urls, 'iponz', 'production', file('before.ndjson'));
    const result = await rsg(
      ['import', 'iponz', file('bad.ndjson'), '--documents', exampleFile('iponz.documents')],
      {
        urls,
      },
    );
    expect(result.code).toBe(1);
    const name = file('bad.ndjson');
    expect(progressless(result.stderr)).toBe(
      [
        `${name}:2 addresses.0.postcode: must be four digits for a New Zealand address`,
        `${name}:5 Design.ExpiryDate: must be "2026-11-02", what the register derives from the record`,
        `${name}:6 Patent.StatusHistory.Status.1.StatusDate: must be a date, YYYY-MM-DD`,
        `${name}:7 register.documentFiles.0.file: does not match sha256`,
        `${name}:9 tasks.0.TaskStatus: expected union value`,
        `${name}:10 (line): must be one JSON value`,
        'rsg: 6 errors: nothing was imported',
        '',
      ].join('\n'),
    );
    expect(await exported(urls, 'iponz', 'production', file('after.ndjson'))).toBe(before);
    expect(await findClient(production.pool, 100199)).toBeNull();

    const bounded = await rsg(
      [
        'import',
        'iponz',
        file('bad.ndjson'),
        '--documents',
        exampleFile('iponz.documents'),
        '--max-errors',
        '2',
      ],
      { urls },
    );
    expect(bounded.stderr).toContain('… and 4 more\n');
  });

  it('an updated case makes its next version with its history; the same file again changes nothing', async () => {
    const mark = records()[6];
    mark.TradeMark.MarkTitle = 'KIWI GOLD ORIGINAL';
    mark.TradeMark.TransactionDateTime = '2026-05-01T00:00:00.000Z';
    mark.TradeMark.StatusHistory.Status.push({ StatusCode: 'Registered', StatusDate: '2026-05-01' });
    mark.TradeMark.MarkCurrentStatusDate = '2026-05-01';
    writeFileSync(file('updated.ndjson'), `${JSON.stringify(mark)}\n`);
    const args = ['import', 'iponz', file('updated.ndjson'), '--documents', exampleFile('iponz.documents')];
    const result = await rsg(args, { urls });
    expect(result).toMatchObject({ code: 0, stdout: '1 records: 0 new, 1 updated, 0 unchanged\n' });
    const after = (await findCase(production.pool, 'trademark', 1012345))!;
    expect(after).toMatchObject({ title: 'KIWI GOLD ORIGINAL', version: 4, statusDate: '2026-05-01' });
    expect(after.updatedAt.toISOString()).toBe('2026-05-01T00:00:00.000Z');
    expect(after.history.at(-1)).toEqual({ status: 'Registered', statusDate: '2026-05-01' });
    // The title search finds the new title (the words table follows the row).
    expect(
      await count(
        production,
        `SELECT count(*) AS n FROM iponz_title_words WHERE word = 'original' AND case_number = 1012345`,
      ),
    ).toBe(1);
    const again = await rsg(args, { urls });
    expect(again.stdout).toBe('1 records: 0 new, 0 updated, 1 unchanged\n');
    const line = lines(await exported(urls, 'iponz', 'production', file('updated-out.ndjson'))).find((l) =>
      l.includes('"1012345"'),
    )!;
    expect(JSON.parse(line)).toEqual({ ...mark, register: { ...mark.register, version: 4 } });

    // A party naming a client the register lacks stops the import, naming the case.
    const orphan = records()[4];
    orphan.Design.Parties.Party[0].ClientIdentifier = '100777';
    writeFileSync(file('orphan.ndjson'), `${JSON.stringify(orphan)}\n`);
    const refused = await rsg(
      ['import', 'iponz', file('orphan.ndjson'), '--documents', exampleFile('iponz.documents')],
      { urls },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'rsg: design 412345: party Address for Service 100777: no such client in the register or earlier in the file',
    );
  });

  it('an interrupted batched import resumes and ends with exactly the file’s records', async () => {
    const template = records()[4];
    template.Design.Documents.Document = [];
    template.register.documentFiles = [];
    const n = 3000;
    const big = [
      ...records()
        .slice(0, 3)
        .map((r) => JSON.stringify(r)),
      ...Array.from({ length: n }, (_, i) => {
        const design = structuredClone(template);
        design.Design.DesignIdentifier = String(420000 + i);
        design.Design.RegistrationNumber = String(420000 + i);
        return JSON.stringify(design);
      }),
    ];
    writeFileSync(file('big.ndjson'), `${big.join('\n')}\n`);
    const args = ['iponz', file('big.ndjson'), '--environment', 'sandbox', '--batch', '200'];
    const killed = await killedImport(urls, args, 2);
    expect(killed.endedByItself).toBe(false);
    const resumed = await rsg(['import', ...args, '--resume'], { urls });
    expect(resumed.code).toBe(0);
    const skipped = Number(
      /resuming after ([\d,]+) committed records/.exec(resumed.stderr)?.[1]?.replace(/,/g, ''),
    );
    expect(skipped).toBeGreaterThanOrEqual(400);
    expect(skipped).toBeLessThan(big.length);
    expect(
      await count(
        sandbox,
        `SELECT count(*) AS n FROM iponz_cases WHERE kind = 'design' AND case_number >= 420000`,
      ),
    ).toBe(n);
  }, 180_000);

  it('imports bibliographic XML valid against the XSDs, and refuses an invalid file naming its line', async () => {
    const design: CaseRecord = {
      kind: 'design',
      caseNumber: 430001,
      title: 'Kiwifruit tray & lid',
      status: 'Filed',
      statusDate: '2026-01-05',
      applicationDate: '2026-01-05',
      termDate: '2026-01-05',
      registrationDate: null,
      lastRenewalDueDate: null,
      internationalApplicationNumber: null,
      internationalPublicationNumber: null,
      internationalRegistrationNumber: null,
      priorityCountryCode: null,
      markImageName: null,
      noveltyStatement: 'The lid’s vents.',
      patentDetail: null,
      version: 1,
      updatedAt: new Date('2026-01-05T02:00:00.000Z'),
      history: [{ status: 'Filed', statusDate: '2026-01-05' }],
      renewals: [],
      parties: [
        { role: 'Owner', clientId: 100101, name: 'Kiwi Orchard Holdings Limited', countryCode: 'NZ' },
        { role: 'Applicant', clientId: 200555, name: 'Tray Makers Pty Ltd', countryCode: 'AU' },
      ],
      documents: [
        {
          documentIdentifier: '09ffffffffffff01',
          documentName: 'Views.pdf',
          objectFormat: 'pdf',
          createdOn: '2026-01-05',
        },
      ],
      goodsAndServices: [],
    };
    const second = { ...design, caseNumber: 430002, title: 'Kiwifruit tray', documents: [] };
    const list = listXml('design', { dateType: 'Updated', startDate: '2026-01-01', endDate: '2026-01-31' });
    // One element a line, so that each record begins on a line of its own.
    const xml = [list.open, list.item(design), list.item(second), list.close].join('\n');
    writeFileSync(file('designs.xml'), xml);
    const result = await rsg(['import', 'iponz', file('designs.xml')], { urls });
    expect(result).toMatchObject({ code: 0, stdout: '2 records: 2 new, 0 updated, 0 unchanged\n' });
    const stored = (await findCase(production.pool, 'design', 430001))!;
    expect(stored).toMatchObject({ title: 'Kiwifruit tray & lid', noveltyStatement: 'The lid’s vents.' });
    // The party the register lacked became a client of the document's name and country.
    expect(await findClient(production.pool, 200555)).toMatchObject({
      name: 'Tray Makers Pty Ltd',
      addresses: { physical: { countryCode: 'AU' } },
    });
    // As the API answers it again: the same XML imported again changes nothing.
    writeFileSync(file('design.xml'), recordXml(stored));
    const again = await rsg(['import', 'iponz', file('design.xml')], { urls });
    expect(again.stdout).toBe('1 records: 0 new, 0 updated, 1 unchanged\n');

    const invalid = xml
      .replace('<DesignIdentifier>430002</DesignIdentifier>', '<DesignIdentifier>43x002</DesignIdentifier>')
      .replace(
        '<DesignCurrentStatusCode>Filed</DesignCurrentStatusCode>',
        '<DesignStatus>Filed</DesignStatus>',
      );
    writeFileSync(file('invalid.xml'), invalid);
    const before = await exported(urls, 'iponz', 'production', file('before-xml.ndjson'));
    const refused = await rsg(['import', 'iponz', file('invalid.xml')], { urls });
    expect(refused.code).toBe(1);
    const errors = progressless(refused.stderr).split('\n');
    expect(errors[0]).toMatch(
      new RegExp(`^${file('invalid.xml')}:2 DesignStatus: This element is not expected`),
    );
    expect(errors[1]).toMatch(
      new RegExp(`^${file('invalid.xml')}:3 DesignIdentifier: '43x002' is not a valid value`),
    );
    expect(await exported(urls, 'iponz', 'production', file('after-xml.ndjson'))).toBe(before);
  });
});
