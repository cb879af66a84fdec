import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../../src/platform/db/pool.ts';
import type { DatabaseUrls } from '../../../src/platform/db/urls.ts';
import { onePagePdf } from '../../../src/platform/documents/one-page-pdf.ts';
import { withCheckDigit } from '../../../src/platform/gs1.ts';
import { sandboxDocuments } from '../../../src/services/nzbn/sandbox/documents.ts';
import { entitiesNamed } from '../../../src/services/nzbn/store/transfer.ts';
import { rsg } from '../../support/cli.ts';
import { migratedDatabases } from '../../support/runtime.ts';
import { exampleFile, exported, killedImport, scratch } from '../../support/transfer.ts';

/** `rsg import nzbn` / `rsg export nzbn` through the CLI, on databases of their own. */
let urls: DatabaseUrls & { drop(): Promise<void> };
let production: Database;
const folder = scratch();
const example = exampleFile('nzbn.ndjson');
const file = (name: string) => path.join(folder, name);
const lines = (text: string) => text.split('\n').filter(Boolean);
const records = () => lines(readFileSync(example, 'utf8')).map((line) => JSON.parse(line));
const progressless = (text: string) => text.replace(/^(checking|importing) nzbn.*\n/gm, '');

beforeAll(async () => {
  urls = await migratedDatabases();
  production = openDatabase(urls.production, 2);
});
afterAll(async () => {
  await production?.close();
  await urls?.drop();
});

const count = async (sql: string, values: unknown[] = []) =>
  (await production.pool.query<{ n: number }>(sql, values)).rows[0]!.n;

describe('rsg import nzbn / rsg export nzbn', () => {
  it('imports whole entities into production only; the same file again changes nothing', async () => {
    const first = await rsg(['import', 'nzbn', example], { urls });
    expect(first).toMatchObject({ code: 0, stdout: '3 records: 3 new, 0 updated, 0 unchanged\n' });
    expect(await count('SELECT count(*)::int AS n FROM nzbn_entities')).toBe(3);
    expect(await count('SELECT count(*)::int AS n FROM nzbn_organisation_parts')).toBeGreaterThan(0);
    expect(await count('SELECT count(*)::int AS n FROM nzbn_entity_history')).toBe(1);
    // No change events without --emit-changes: a load does not flood watchlists.
    expect(await count('SELECT count(*)::int AS n FROM nzbn_change_events')).toBe(0);
    expect(await exported(urls, 'nzbn', 'sandbox', file('sandbox-empty.ndjson'))).toBe('');
    const again = await rsg(['import', 'nzbn', example], { urls });
    expect(again.stdout).toBe('3 records: 0 new, 0 updated, 3 unchanged\n');
  });

  it('reads the entities it holds one query at a time on the import’s connection', async () => {
    // A pg client runs one query at a time: queries sent while one runs are deprecated (and refused
    // in pg 9), so the import's reads must not overlap on its connection.
    const client = await production.pool.connect();
    let running = 0;
    let most = 0;
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    const counting = async (...args: unknown[]) => {
      most = Math.max(most, ++running);
      try {
        return await query(...args);
      } finally {
        running--;
      }
    };
    try {
      const nzbns = records().map((r) => r.entity.nzbn as string);
      const held = await entitiesNamed({ query: counting } as never, sandboxDocuments, nzbns);
      expect(held.map((row) => row.stored.nzbn).sort()).toEqual([...nzbns].sort());
      expect(held.flatMap((row) => row.history)).toHaveLength(1);
      expect(held.flatMap((row) => row.parts).length).toBeGreaterThan(0);
      expect(most).toBe(1);
    } finally {
      client.release();
    }
  });

  it('round trip: export, import into the empty sandbox, export again gives the same bytes', async () => {
    const a = await exported(urls, 'nzbn', 'production', file('a.ndjson'));
    expect(lines(a)).toHaveLength(3);
    expect(lines(a).map((l) => JSON.parse(l))).toEqual(records());
    await exported(urls, 'nzbn', 'production', file('a.ndjson.gz'));
    const imported = await rsg(['import', 'nzbn', file('a.ndjson.gz'), '--environment', 'sandbox'], { urls });
    expect(imported.stdout).toBe('3 records: 3 new, 0 updated, 0 unchanged\n');
    expect(await exported(urls, 'nzbn', 'sandbox', file('b.ndjson'))).toBe(a);
  });

  it('lists every error of a file with FILE:LINE field: rule and writes nothing', async () => {
    const [one, two, three] = records();
    one.entity.nzbn = '9429000001008';
    delete two.entity.entityName;
    three.organisationParts[0].parentNzbn = '9429000001007';
    const fresh = structuredClone(records()[0]);
    fresh.entity.nzbn = withCheckDigit('942900900001');
    writeFileSync(
      file('bad.ndjson'),
      `${[one, two, three, fresh].map((r) => JSON.stringify(r)).join('\n')}\n`,
    );
    const result = await rsg(['import', 'nzbn', file('bad.ndjson')], { urls });
    expect(result.code).toBe(1);
    const name = file('bad.ndjson');
    expect(progressless(result.stderr)).toBe(
      [
        `${name}:1 entity.nzbn: is not a business number: wrong check digit, expected 7`,
        `${name}:2 entity.entityName: expected required property`,
        `${name}:3 organisationParts.0.parentNzbn: must be the entity’s nzbn`,
        'rsg: 3 errors: nothing was imported',
        '',
      ].join('\n'),
    );
    expect(
      await count('SELECT count(*)::int AS n FROM nzbn_entities WHERE nzbn = $1', [fresh.entity.nzbn]),
    ).toBe(0);
  });

  it('an updated entity makes its version and, with --emit-changes, its change event', async () => {
    const [one] = records();
    one.entity.entityName = 'SANDBOX TEST RENAMED LIMITED';
    writeFileSync(file('renamed.ndjson'), `${JSON.stringify(one)}\n`);
    const result = await rsg(['import', 'nzbn', file('renamed.ndjson'), '--emit-changes'], { urls });
    expect(result.stdout).toBe('1 records: 0 new, 1 updated, 0 unchanged\n');
    const row = (
      await production.pool.query<{ version: number; entity_name: string }>(
        'SELECT version, entity_name FROM nzbn_entities WHERE nzbn = $1',
        [one.entity.nzbn],
      )
    ).rows[0]!;
    expect(row).toEqual({ version: 2, entity_name: 'SANDBOX TEST RENAMED LIMITED' });
    expect(
      await count('SELECT count(*)::int AS n FROM nzbn_entity_versions WHERE nzbn = $1', [one.entity.nzbn]),
    ).toBe(1);
    const events = await production.pool.query<{ change_event_type: string }>(
      'SELECT change_event_type FROM nzbn_change_events WHERE nzbn = $1',
      [one.entity.nzbn],
    );
    expect(events.rows.map((e) => e.change_event_type)).toEqual(['ENTITY_NAME']);
    const again = await rsg(['import', 'nzbn', file('renamed.ndjson'), '--emit-changes'], { urls });
    expect(again.stdout).toBe('1 records: 0 new, 0 updated, 1 unchanged\n');
    expect(await count('SELECT count(*)::int AS n FROM nzbn_change_events')).toBe(1);
  });

  it('an interrupted batched import resumes and ends with exactly the file’s records', async () => {
    const [template] = records();
    template.history = [];
    template.previousNames = [];
    const total = 3000;
    const numbers = Array.from({ length: total }, (_, i) =>
      withCheckDigit(`9429${String(500000 + i).padStart(8, '0')}`),
    );
    const text = numbers.map((nzbn) => JSON.stringify({ ...template, entity: { ...template.entity, nzbn } }));
    writeFileSync(file('big.ndjson'), `${text.join('\n')}\n`);
    const args = ['nzbn', file('big.ndjson'), '--environment', 'sandbox', '--batch', '150'];
    const killed = await killedImport(urls, args, 2);
    expect(killed.endedByItself).toBe(false);
    const resumed = await rsg(['import', ...args, '--resume'], { urls });
    expect(resumed.code).toBe(0);
    const skipped = Number(
      /resuming after ([\d,]+) committed records/.exec(resumed.stderr)?.[1]?.replace(/,/g, ''),
    );
    expect(skipped).toBeGreaterThanOrEqual(300);
    expect(skipped).toBeLessThan(total);
    const out = lines(await exported(urls, 'nzbn', 'sandbox', file('big-out.ndjson')));
    const found = out.map((line) => JSON.parse(line).entity.nzbn).filter((n: string) => numbers.includes(n));
    expect(found).toEqual(numbers);
  }, 180_000);

  it('filings travel with their entity, their documents as files beside the file', async () => {
    const pdf = onePagePdf(['Notice of a business debt hibernation', 'A test filing']);
    const entity = records()[1];
    const nzbn = entity.entity.nzbn;
    entity.filings = [
      {
        filingId: '20000000001',
        filingCode: 'BDHNOTICE',
        registrationDate: '2025-03-04T10:00:00.000+1300',
        submissionDate: '2025-03-03T09:00:00.000+1300',
        effectiveDate: '2025-03-05T00:00:00.000+1300',
        filedBy: 'user-filer',
        document: {
          documentId: '0123456789abcdef',
          documentType: 'BDHNOTICE',
          fileName: 'notice.pdf',
          contentType: 'application/pdf',
          sizeBytes: pdf.length,
          sha256: createHash('sha256').update(pdf).digest('hex'),
          version: 1,
          ownerUserId: 'user-filer',
          createdDate: '2025-03-04T09:55:00.000+1300',
          updatedDate: '2025-03-04T09:55:00.000+1300',
          filedDate: '2025-03-04T10:00:00.000+1300',
          file: '0123456789abcdef.pdf',
        },
      },
    ];
    writeFileSync(file('filed.ndjson'), `${JSON.stringify(entity)}\n`);
    mkdirSync(file('filed.documents'));
    writeFileSync(file('filed.documents/0123456789abcdef.pdf'), pdf);
    const first = await rsg(
      ['import', 'nzbn', file('filed.ndjson'), '--environment', 'sandbox', '--emit-changes'],
      {
        urls,
      },
    );
    // New to the sandbox, or (after the round trip above) its entity updated with the filing.
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^1 records: (1 new, 0 updated|0 new, 1 updated), 0 unchanged\n$/);
    const out = await exported(urls, 'nzbn', 'sandbox', file('filed-out.ndjson'));
    expect(lines(out).find((l) => l.includes(nzbn))).toBe(JSON.stringify(entity));
    expect(readFileSync(file('filed-out.documents/0123456789abcdef.pdf'))).toEqual(pdf);
    const again = await rsg(['import', 'nzbn', file('filed.ndjson'), '--environment', 'sandbox'], { urls });
    expect(again.stdout).toBe('1 records: 0 new, 0 updated, 1 unchanged\n');

    // Round trip into an environment without it: the same bytes, the same document.
    const imported = await rsg(['import', 'nzbn', file('filed-out.ndjson')], { urls });
    expect(imported.code).toBe(0);
    expect(
      lines(await exported(urls, 'nzbn', 'production', file('filed-prod.ndjson'))).find((l) =>
        l.includes(nzbn),
      ),
    ).toBe(JSON.stringify(entity));
    expect(readFileSync(file('filed-prod.documents/0123456789abcdef.pdf'))).toEqual(pdf);
    // The register's item numbering moves past the imported filing's; no event without --emit-changes.
    expect(await count('SELECT (last_value >= 20000000001)::int AS n FROM nzbn_item_id_seq')).toBe(1);
    expect(
      await count("SELECT count(*)::int AS n FROM nzbn_change_events WHERE change_event_type = 'FILING'"),
    ).toBe(0);
    const sandbox = openDatabase(urls.sandbox, 1);
    try {
      const events = await sandbox.pool.query(
        "SELECT new_value->>'filingId' AS id FROM nzbn_change_events WHERE change_event_type = 'FILING' AND nzbn = $1",
        [nzbn],
      );
      expect(events.rows).toEqual([{ id: '20000000001' }]);
    } finally {
      await sandbox.close();
    }

    // A filing never changes; a document file that is not its bytes is refused naming it.
    const changed = structuredClone(entity);
    changed.filings[0].filedBy = 'someone-else';
    writeFileSync(file('filed.ndjson'), `${JSON.stringify(changed)}\n`);
    const refused = await rsg(['import', 'nzbn', file('filed.ndjson')], { urls });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'filing 20000000001 differs from the register’s; a filing never changes',
    );
    writeFileSync(file('filed.documents/0123456789abcdef.pdf'), Buffer.from('not the bytes'));
    const bad = await rsg(['import', 'nzbn', file('filed.ndjson')], { urls });
    expect(progressless(bad.stderr)).toContain(
      `${file('filed.ndjson')}:1 filings.0.document.file: has 13 bytes, not sizeBytes (${pdf.length})`,
    );
  });
});

describe('rsg import nzbn --bulk-csv (the monthly bulk file)', () => {
  const bulk = exampleFile('nzbn-bulk.csv');

  it('makes public entities only, once; a register loaded whole keeps its private parts', async () => {
    const fresh = await migratedDatabases();
    try {
      const first = await rsg(['import', 'nzbn', bulk, '--bulk-csv'], { urls: fresh });
      expect(first).toMatchObject({ code: 0, stdout: '3 records: 3 new, 0 updated, 0 unchanged\n' });
      const out = lines(await exported(fresh, 'nzbn', 'production', file('bulk-out.ndjson'))).map((l) =>
        JSON.parse(l),
      );
      expect(out.map((r) => r.entity.nzbn)).toEqual(records().map((r) => r.entity.nzbn));
      for (const { entity } of out) {
        expect(entity.roles).toEqual([]);
        expect(entity.phoneNumbers).toEqual([]);
        expect(Object.values(entity.privacySettings).every((flag) => flag === false)).toBe(true);
      }
      expect(out[0].entity.addresses.addressList.map((a: { addressType: string }) => a.addressType)).toEqual([
        'REGISTERED',
        'SERVICE',
        'POSTAL',
      ]);
      const again = await rsg(['import', 'nzbn', bulk, '--bulk-csv'], { urls: fresh });
      expect(again.stdout).toBe('3 records: 0 new, 0 updated, 3 unchanged\n');

      // The sandbox loaded whole, the first entity renamed since: the month's public file puts its public
      // name back and keeps everything private; the others are as the file says.
      const sandbox = ['--environment', 'sandbox'];
      expect((await rsg(['import', 'nzbn', example, ...sandbox], { urls: fresh })).code).toBe(0);
      const [renamed] = records();
      renamed.entity.entityName = 'SANDBOX TEST RENAMED LIMITED';
      writeFileSync(file('bulk-renamed.ndjson'), `${JSON.stringify(renamed)}\n`);
      expect(
        (await rsg(['import', 'nzbn', file('bulk-renamed.ndjson'), ...sandbox], { urls: fresh })).code,
      ).toBe(0);
      const whole = await rsg(['import', 'nzbn', bulk, '--bulk-csv', ...sandbox], { urls: fresh });
      expect(whole.stdout).toBe('3 records: 0 new, 1 updated, 2 unchanged\n');
      const after = lines(await exported(fresh, 'nzbn', 'sandbox', file('whole-after.ndjson'))).map((l) =>
        JSON.parse(l),
      );
      expect(after).toEqual(records());
      expect(after[0].entity.roles.length).toBeGreaterThan(0);
    } finally {
      await fresh.drop();
    }
  }, 120_000);

  it('lists every bad row and writes nothing', async () => {
    const rows = readFileSync(bulk, 'utf8').split('\r\n');
    rows[1] = rows[1]!.replace('9429000001007', '9429000001008');
    rows[2] = rows[2]!.replace(',COOP,', ',NOPE,');
    rows[3] = rows[3]!.replace(',G427210,', ',X999999,');
    writeFileSync(file('bad.csv'), rows.join('\r\n'));
    const result = await rsg(['import', 'nzbn', file('bad.csv'), '--bulk-csv'], { urls });
    expect(result.code).toBe(1);
    const name = file('bad.csv');
    expect(progressless(result.stderr)).toBe(
      [
        `${name}:2 nzbn: is not a business number: wrong check digit, expected 7`,
        `${name}:3 entityTypeCode: is not an entity type code`,
        `${name}:4 industryClassificationCodes: X999999 is not a classification code`,
        'rsg: 3 errors: nothing was imported',
        '',
      ].join('\n'),
    );
    writeFileSync(file('headless.csv'), rows.slice(1).join('\r\n'));
    const headless = await rsg(['import', 'nzbn', file('headless.csv'), '--bulk-csv'], { urls });
    expect(progressless(headless.stderr)).toContain(
      `${file('headless.csv')}:1 (header): must be the bulk file's columns`,
    );
  });

  it('a CSV file without --bulk-csv is refused at once, naming the option', async () => {
    const result = await rsg(['import', 'nzbn', bulk], { urls });
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe(
      `rsg: ${bulk}: a CSV file; the register's monthly bulk CSV is imported with --bulk-csv (docs/formats/nzbn.md)\n`,
    );
  });
});
