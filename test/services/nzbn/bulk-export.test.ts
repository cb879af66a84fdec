import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bulkExportOf,
  csvLine,
  listBulkExports,
  monthsBefore,
  nzMonthOf,
  pruneBulkExports,
  writeBulkExport,
} from '../../../src/platform/bulk-files.ts';
import { BULK_COLUMNS } from '../../../src/services/nzbn/domain/bulk-record.ts';
import { nzbnService } from '../../../src/services/nzbn/index.ts';
import { seedNzbn } from '../../../src/services/nzbn/sandbox/seed.ts';
import { type TestGateway, testGateway } from '../../support/runtime.ts';

let t: TestGateway;
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'rsg-nzbn-bulk-'));
  t = await testGateway();
  await seedNzbn(
    {
      database: t.runtime.environments.sandbox,
      scale: 'small',
      clock: t.runtime.clocks.for('sandbox'),
      log: () => {},
      identity: { grantOperatorsAuthority: async () => {} },
    },
    { entities: 0, threads: 0 },
  );
}, 60_000);

afterAll(async () => {
  await t?.close();
  await rm(folder, { recursive: true, force: true });
});

const clockAt = (iso: string) => ({ now: () => new Date(iso) });

describe('the business number register bulk export', () => {
  it('exports every entity of the environment as the contract declares it', async () => {
    const bulk = nzbnService.bulkData!;
    const manifest = (await bulk.exportNow({
      environment: 'sandbox',
      database: t.runtime.environments.sandbox,
      clock: clockAt('2026-06-15T00:00:00Z'),
      settings: {},
      folder,
    }))!;
    const count = (
      await t.runtime.environments.sandbox.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM nzbn_entities',
      )
    ).rows[0]!.n;
    expect(count).toBeGreaterThan(0);
    expect(manifest).toMatchObject({ dataset: 'nzbn-entities', month: '2026-06' });
    expect(manifest.files.map((file) => [file.file, file.rows])).toEqual([
      ['nzbn-entities-2026-06.json.gz', count],
      ['nzbn-entities-2026-06.csv.gz', count],
    ]);
    const csv = gunzipSync(await readFile(path.join(folder, 'nzbn-entities-2026-06.csv.gz'))).toString(
      'utf8',
    );
    expect(csv.split('\r\n')[0]).toBe(bulk.columns.map((column) => column.name).join(','));
    expect(bulk.columns).toBe(BULK_COLUMNS);
    const json = JSON.parse(
      gunzipSync(await readFile(path.join(folder, 'nzbn-entities-2026-06.json.gz'))).toString('utf8'),
    );
    expect(json.map((entity: { nzbn: string }) => entity.nzbn)).toEqual(
      [...json.map((e: { nzbn: string }) => e.nzbn)].sort(),
    );
  });

  it('writes nothing while another process holds the export lock', async () => {
    const holder = await t.runtime.environments.sandbox.pool.connect();
    try {
      await holder.query("SELECT pg_advisory_lock(hashtext('nzbn-bulk-export'))");
      const result = await nzbnService.bulkData!.exportNow({
        environment: 'sandbox',
        database: t.runtime.environments.sandbox,
        clock: clockAt('2026-07-15T00:00:00Z'),
        settings: {},
        folder,
      });
      expect(result).toBeUndefined();
      expect(await bulkExportOf(folder, 'nzbn-entities', '2026-07')).toBeUndefined();
    } finally {
      await holder.query("SELECT pg_advisory_unlock(hashtext('nzbn-bulk-export'))");
      holder.release();
    }
  });
});

describe('bulk data files', () => {
  it('leaves neither a manifest nor a temporary file when the rows fail midway', async () => {
    const own = await mkdtemp(path.join(tmpdir(), 'rsg-bulk-fail-'));
    async function* failing() {
      yield [{ json: { a: 1 }, csv: ['1'] }];
      throw new Error('the database went away');
    }
    await expect(
      writeBulkExport(
        own,
        { dataset: 'test-set', month: '2026-01', columns: ['a'], now: new Date() },
        failing(),
      ),
    ).rejects.toThrow('the database went away');
    expect(await readdir(own)).toEqual([]);
    expect(await listBulkExports(own)).toEqual([]);
    await rm(own, { recursive: true });
  });

  it('quotes CSV fields as RFC 4180 does', () => {
    expect(csvLine(['a', 'b,c', 'say "hi"', null, 5, 'two\nlines'])).toBe(
      'a,"b,c","say ""hi""",,5,"two\nlines"\r\n',
    );
  });

  it('counts months and New Zealand month starts', () => {
    expect(monthsBefore('2027-02', 2)).toBe('2026-12');
    expect(monthsBefore('2027-01', 0)).toBe('2027-01');
    expect(monthsBefore('2027-01', 13)).toBe('2025-12');
    // 1 December 2026 00:00 in New Zealand (NZDT, +13) is 30 November 11:00 UTC.
    expect(nzMonthOf(new Date('2026-11-30T10:59:59Z'))).toBe('2026-11');
    expect(nzMonthOf(new Date('2026-11-30T11:00:00Z'))).toBe('2026-12');
  });

  it('deletes months past the kept number, manifest and files', async () => {
    const own = await mkdtemp(path.join(tmpdir(), 'rsg-bulk-prune-'));
    for (const month of ['2026-10', '2026-11', '2026-12']) {
      await writeBulkExport(
        own,
        { dataset: 'test-set', month, columns: ['a'], now: new Date() },
        (async function* () {
          yield [{ json: 1, csv: ['1'] }];
        })(),
      );
    }
    expect(await pruneBulkExports(own, 'test-set', '2026-12', 2)).toEqual(['2026-10']);
    expect((await listBulkExports(own)).map((m) => m.month)).toEqual(['2026-12', '2026-11']);
    expect((await readdir(own)).filter((name) => name.includes('2026-10'))).toEqual([]);
    await rm(own, { recursive: true });
  });
});
