import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../../src/platform/db/pool.ts';
import type { DatabaseUrls } from '../../../src/platform/db/urls.ts';
import { seedDisclose } from '../../../src/services/disclose/sandbox/seed.ts';
import { folderDocumentFiles } from '../../../src/services/disclose/store/document-files.ts';
import { rsg } from '../../support/cli.ts';
import { migratedDatabases } from '../../support/runtime.ts';
import { exampleFile, killedImport, scratch } from '../../support/transfer.ts';

/** `rsg import disclose` / `rsg export disclose` through the CLI, on databases of their own. */
let urls: DatabaseUrls & { drop(): Promise<void> };
let production: Database;
const folder = scratch();
const example = exampleFile('disclose.ndjson');
const exampleDocuments = exampleFile('disclose.documents');
const file = (name: string) => path.join(folder, name);
const lines = (text: string) => text.split('\n').filter(Boolean);
// The environments' document stores, under the test's folder.
const env = { RSG_DISCLOSE_DOCUMENTS_DIR: file('store') };
const run = (args: string[]) => rsg(args, { urls, env });
/** `rsg export disclose` of one environment into the test's folder (its documents beside it); the text. */
async function exportOf(environment: 'sandbox' | 'production', name: string, extra: string[] = []) {
  const result = await run([
    'export',
    'disclose',
    '--environment',
    environment,
    '--output',
    file(name),
    ...extra,
  ]);
  if (result.code !== 0) throw new Error(`export failed: ${result.stderr}`);
  return name.endsWith('.gz') ? '' : readFileSync(file(name), 'utf8');
}
const filesIn = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(path.join(dir, name)).toString('base64')]),
  );

beforeAll(async () => {
  urls = await migratedDatabases();
  production = openDatabase(urls.production, 2);
});
afterAll(async () => {
  await production?.close();
  await urls?.drop();
});

describe('rsg import disclose / rsg export disclose', () => {
  it('imports the example into production only; its export is the example, documents and all', async () => {
    const first = await run(['import', 'disclose', example]);
    expect(first).toMatchObject({ code: 0, stdout: '5 records: 5 new, 0 updated, 0 unchanged\n' });
    // The documents are in production's store, nothing in the sandbox's.
    const stored = readdirSync(file('store/production'));
    expect(stored).toHaveLength(9);
    expect(() => readdirSync(file('store/sandbox'))).toThrow();

    // What the API reads is what the file says.
    const offer = await production.pool.query(
      `SELECT o.scheme_number, o.version, o.status, d.storage_key
         FROM disclose_offers o JOIN disclose_documents d ON d.subject_number = o.offer_number
        WHERE o.offer_number = 'OFR20002' AND d.document_rec_id = 'DOC200020'`,
    );
    expect(offer.rows[0]).toMatchObject({ scheme_number: null, version: 2, status: 'Closed' });
    expect(readFileSync(file(`store/production/${offer.rows[0].storage_key}`))).toEqual(
      readFileSync(path.join(exampleDocuments, 'DOC200020.pdf')),
    );

    expect(await exportOf('production', 'example-out.ndjson')).toBe(readFileSync(example, 'utf8'));
    expect(filesIn(file('example-out.documents'))).toEqual(filesIn(exampleDocuments));
    expect(await exportOf('sandbox', 'sandbox-empty.ndjson')).toBe('');

    // The same file again changes nothing.
    const again = await run(['import', 'disclose', example]);
    expect(again).toMatchObject({ code: 0, stdout: '5 records: 0 new, 0 updated, 5 unchanged\n' });
    expect(readdirSync(file('store/production'))).toHaveLength(9);
  });

  it('round trip: export, import into the empty sandbox, export again gives the same bytes', async () => {
    await exportOf('production', 'a.ndjson.gz');
    expect(readFileSync(file('a.ndjson.gz')).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const imported = await run(['import', 'disclose', file('a.ndjson.gz'), '--environment', 'sandbox']);
    expect(imported).toMatchObject({ code: 0, stdout: '5 records: 5 new, 0 updated, 0 unchanged\n' });
    const before = await exportOf('production', 'p.ndjson');
    const after = await exportOf('sandbox', 's.ndjson', ['--documents', file('s-documents')]);
    expect(after).toBe(before);
    expect(filesIn(file('s-documents'))).toEqual(filesIn(file('p.documents')));

    // Standard output needs a folder for the documents.
    const refused = await run(['export', 'disclose', '--environment', 'sandbox']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('--documents DIR');
  });

  it('lists every error of a file with FILE:LINE field: rule and writes nothing', async () => {
    const records = lines(readFileSync(example, 'utf8')).map((line) => JSON.parse(line));
    records[0].versions[1].versionId = 'SCH20001-v3';
    records[0].participants[2].nzbn = '123';
    records[1].documents[0].sha256 = 'a'.repeat(64);
    records[2].versions[1].closeDate = '2024-04-31';
    records[3].versions[1].riskIndicator = 9;
    records[4].holdings[0].isin = 'NZ1000000019';
    const fresh = structuredClone(records[2]);
    fresh.offerNumber = 'OFR20099';
    fresh.versions = fresh.versions
      .slice(0, 1)
      .map((v: Record<string, unknown>) => ({ ...v, versionId: 'OFR20099-v1' }));
    fresh.documents = [];
    const text = [...records.map((r) => JSON.stringify(r)), 'not json', JSON.stringify(fresh)].join('\n');
    writeFileSync(file('bad.ndjson'), `${text}\n`);
    cpSync(exampleDocuments, file('bad.documents'), { recursive: true });
    rmSync(file('bad.documents/DOC920001.pdf'));
    const before = await exportOf('production', 'before.ndjson');
    const result = await run(['import', 'disclose', file('bad.ndjson')]);
    expect(result.code).toBe(1);
    const name = file('bad.ndjson');
    expect(result.stderr.replace(/^(checking|importing) disclose .*\n/gm, '')).toBe(
      [
        `${name}:1 versions.1.versionId: must be SCH20001-v2: versions are numbered from 1 in order`,
        `${name}:1 participants.2.nzbn: must be an NZBN: 13 digits starting 94`,
        `${name}:2 documents.0.file: does not match sha256`,
        `${name}:3 versions.1.closeDate: must be a date, YYYY-MM-DD`,
        `${name}:4 versions.1.riskIndicator: must be a whole number from 1 to 7`,
        `${name}:4 documents.0.file: no such file in ${file('bad.documents')}`,
        `${name}:5 holdings.0.isin: has a wrong check digit, expected 8`,
        `${name}:6 (line): must be one JSON value`,
        'rsg: 8 errors: nothing was imported',
        '',
      ].join('\n'),
    );
    expect(await exportOf('production', 'after.ndjson')).toBe(before);

    const bounded = await run(['import', 'disclose', file('bad.ndjson'), '--max-errors', '3']);
    expect(bounded.stderr).toContain('… and 5 more\n');
  });

  it('an updated record makes its version; the same file again changes nothing', async () => {
    const records = lines(readFileSync(example, 'utf8')).map((line) => JSON.parse(line));
    const scheme = records[0];
    scheme.versions[1].name = 'Harbour Example Investment Funds';
    scheme.participants.pop();
    writeFileSync(file('updated.ndjson'), `${JSON.stringify(scheme)}\n`);
    cpSync(exampleDocuments, file('updated.documents'), { recursive: true });
    const result = await run(['import', 'disclose', file('updated.ndjson')]);
    expect(result).toMatchObject({ code: 0, stdout: '1 records: 0 new, 1 updated, 0 unchanged\n' });
    const row = await production.pool.query(
      `SELECT s.version, s.name, v.change, v.document->>'name' AS named,
              (SELECT count(*)::int FROM disclose_participants p WHERE p.subject_number = s.scheme_number) AS participants
         FROM disclose_schemes s JOIN disclose_scheme_versions v USING (scheme_number)
        WHERE s.scheme_number = 'SCH20001' AND v.version = s.version`,
    );
    expect(row.rows[0]).toEqual({
      version: 3,
      name: 'Harbour Example Investment Funds',
      change: 'Scheme details amended',
      named: 'Harbour Example Investment Funds',
      participants: 2,
    });
    const again = await run(['import', 'disclose', file('updated.ndjson')]);
    expect(again.stdout).toBe('1 records: 0 new, 0 updated, 1 unchanged\n');

    // A fund whose history extends the register's: its further versions as the file has them, and the
    // holdings its new version filed.
    const fund = records[3];
    const v4 = {
      ...fund.versions[2],
      versionId: 'FND20001-v4',
      versionDate: '2025-07-21T02:00:00.000Z',
      change: 'Fund update filed',
      unitPrice: { price: 1.25, currency: 'NZD' },
      fundSize: 130000000,
    };
    const v5 = {
      ...v4,
      versionId: 'FND20001-v5',
      versionDate: '2025-11-10T02:00:00.000Z',
      change: 'Full portfolio holdings filed',
      holdingsPeriodEndDate: '2025-09-30',
      holdingsVersionId: 'FND20001-v5',
    };
    fund.versions.push(v4, v5);
    fund.lastChangedDate = v5.versionDate;
    const holdings = { ...records[4], versionId: 'FND20001-v5' };
    holdings.holdings = holdings.holdings.map((h: Record<string, unknown>) => ({
      ...h,
      value: Number(h.value) * 2,
    }));
    writeFileSync(file('fund.ndjson'), `${JSON.stringify(fund)}\n${JSON.stringify(holdings)}\n`);
    cpSync(exampleDocuments, file('fund.documents'), { recursive: true });
    const filed = await run(['import', 'disclose', file('fund.ndjson')]);
    expect(filed.stdout).toBe('2 records: 1 new, 1 updated, 0 unchanged\n');
    const out = lines(await exportOf('production', 'fund-out.ndjson'));
    expect(out).toContain(JSON.stringify(fund));
    expect(out).toContain(JSON.stringify(holdings));
    expect(out.filter((l) => l.startsWith('{"record":"fundHoldings"'))).toHaveLength(2);
    expect((await run(['import', 'disclose', file('fund.ndjson')])).stdout).toBe(
      '2 records: 0 new, 0 updated, 2 unchanged\n',
    );

    // A document with other bytes is stored anew; the register serves the new bytes.
    const offer = records[1];
    cpSync(exampleDocuments, file('doc.documents'), { recursive: true });
    const bytes = Buffer.from('%PDF-1.4\n% a replacement\n%%EOF\n');
    writeFileSync(file('doc.documents/DOC200010.pdf'), bytes);
    offer.documents[0] = {
      ...offer.documents[0],
      sizeBytes: bytes.length,
      sha256: (await import('node:crypto')).createHash('sha256').update(bytes).digest('hex'),
    };
    writeFileSync(file('doc.ndjson'), `${JSON.stringify(offer)}\n`);
    expect((await run(['import', 'disclose', file('doc.ndjson')])).stdout).toContain('1 updated');
    const key = await production.pool.query(
      "SELECT storage_key FROM disclose_documents WHERE document_rec_id = 'DOC200010'",
    );
    expect(readFileSync(file(`store/production/${key.rows[0].storage_key}`))).toEqual(bytes);
    expect((await run(['import', 'disclose', file('doc.ndjson')])).stdout).toContain('1 unchanged');

    // A document of another record is not taken over: the import stops and writes nothing.
    const taken = structuredClone(records[2]);
    taken.documents.push({ ...scheme.documents[0], documentType: 'register-entries' });
    writeFileSync(file('taken.ndjson'), `${JSON.stringify(taken)}\n`);
    cpSync(exampleDocuments, file('taken.documents'), { recursive: true });
    const before = await exportOf('production', 'taken-before.ndjson');
    const refused = await run(['import', 'disclose', file('taken.ndjson')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('offer OFR20002: DOC200001 belongs to scheme SCH20001 in the register');
    expect(await exportOf('production', 'taken-after.ndjson')).toBe(before);
  });

  it('an interrupted batched import resumes and ends with exactly the file’s records', async () => {
    const template = JSON.parse(lines(readFileSync(example, 'utf8'))[0]!);
    const count = 3000;
    const big = Array.from({ length: count }, (_, i) => {
      const number = `SCH${String(300000 + i)}`;
      return JSON.stringify({
        ...template,
        schemeNumber: number,
        versions: template.versions.map((v: Record<string, unknown>, n: number) => ({
          ...v,
          versionId: `${number}-v${n + 1}`,
        })),
        notices: [],
        documents: [],
      });
    });
    writeFileSync(file('big.ndjson'), `${big.join('\n')}\n`);
    const args = ['disclose', file('big.ndjson'), '--environment', 'sandbox', '--batch', '200'];
    const killed = await killedImport(urls, args, 2);
    expect(killed.endedByItself).toBe(false);
    const resumed = await run(['import', ...args, '--resume']);
    expect(resumed.code).toBe(0);
    const skipped = Number(
      /resuming after ([\d,]+) committed records/.exec(resumed.stderr)?.[1]?.replace(/,/g, ''),
    );
    expect(skipped).toBeGreaterThanOrEqual(400);
    expect(skipped).toBeLessThan(count);
    const all = lines(await exportOf('sandbox', 'big-out.ndjson'));
    expect(all.filter((line) => line.includes('"schemeNumber":"SCH3'))).toHaveLength(count);
  }, 180_000);

  it('round trip of a generated register: every kind of document, notice, filing and holding', async () => {
    const other = await migratedDatabases();
    const sandbox = openDatabase(other.sandbox, 2);
    const store = file('generated-store');
    try {
      const companies = Array.from({ length: 40 }, (_, i) => ({
        name: `EXAMPLE COMPANY ${i} LIMITED`,
        nzbn: `94290410${String(10000 + i)}`,
      }));
      const summary = await seedDisclose(
        {
          database: sandbox,
          scale: 'small',
          clock: { now: () => new Date('2026-05-20T00:00:00Z') },
          log: () => {},
          identity: { grantOperatorsAuthority: async () => {} },
        } as Parameters<typeof seedDisclose>[0],
        {
          organisations: { count: companies.length, organisation: (i) => companies[i]! },
          files: folderDocumentFiles(path.join(store, 'sandbox')),
          schemes: 4,
          standaloneOffers: 2,
        },
      );
      expect(summary).toMatch(/^4 schemes, 8 offers, \d+ funds/);
      const call = (args: string[]) => rsg(args, { urls: other, env: { RSG_DISCLOSE_DOCUMENTS_DIR: store } });
      const out = async (environment: string, name: string) => {
        const result = await call([
          'export',
          'disclose',
          '--environment',
          environment,
          '--output',
          file(name),
        ]);
        expect(result.code).toBe(0);
        return readFileSync(file(name), 'utf8');
      };
      const generated = await out('sandbox', 'generated.ndjson');
      const kinds = lines(generated).map((line) => JSON.parse(line).record as string);
      expect(new Set(kinds)).toEqual(new Set(['scheme', 'offer', 'fund', 'fundHoldings']));
      expect(generated).toContain('"noticeRecId":"DOC');
      const imported = await call(['import', 'disclose', file('generated.ndjson')]);
      expect(imported.stdout).toBe(`${kinds.length} records: ${kinds.length} new, 0 updated, 0 unchanged\n`);
      expect(await out('production', 'generated-again.ndjson')).toBe(generated);
      expect(filesIn(file('generated-again.documents'))).toEqual(filesIn(file('generated.documents')));
    } finally {
      await sandbox.close();
      await other.drop();
    }
  }, 180_000);
});
