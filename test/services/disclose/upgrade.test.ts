import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../src/platform/db/migrations.ts';
import { type Database, openDatabase } from '../../../src/platform/db/pool.ts';
import { noticeOf, noticesOf } from '../../../src/services/disclose/store/notices.ts';
import { freshDatabases } from '../../support/runtime.ts';

/**
 * A register stored before notices were records (migrations 001–003), upgraded by 004: each notice known
 * from its documents' `notice_rec_id` becomes a notice of its record, and from then on a notice's
 * documents must name a notice of their own record, and only they may name one.
 */
const MIGRATIONS = path.join(import.meta.dirname, '../../../src/services/disclose/migrations');
let database: Database;
let drop: () => Promise<void>;
let before: string;

beforeAll(async () => {
  const urls = await freshDatabases();
  drop = urls.drop;
  database = openDatabase(urls.sandbox);
  before = await mkdtemp(path.join(tmpdir(), 'rsg-disclose-003-'));
  for (const file of await readdir(MIGRATIONS)) {
    if (file < '004') await copyFile(path.join(MIGRATIONS, file), path.join(before, file));
  }
  await migrate(database.pool, [{ module: 'disclose', dir: before }]);
});
afterAll(async () => {
  await database?.close();
  await drop?.();
  if (before) await rm(before, { recursive: true, force: true });
});

const document = (
  recId: string,
  kind: string,
  number: string,
  type: string,
  notice: string | null,
  at: string,
) =>
  database.pool.query(
    `INSERT INTO disclose_documents (document_rec_id, subject_kind, subject_number, document_type, notice_rec_id,
       title, file_name, content_type, size_bytes, storage_key, added_at)
     VALUES ($1, $2, $3, $4, $5, $6, $1 || '.pdf', 'application/pdf', 1000, $1 || '.pdf', $7)`,
    [recId, kind, number, type, notice, `Title of ${recId}`, at],
  );

describe('upgrading a register stored before notices were records', () => {
  it('keeps each notice known from its documents, of its own record, dated by its first document', async () => {
    const pool = database.pool;
    await pool.query(
      `INSERT INTO disclose_schemes (scheme_number, name, status, scheme_type, manager_name, version,
         first_registered, last_changed)
       VALUES ('SCH10000', 'A Scheme', 'Open', 'KiwiSaver scheme', 'A Manager', 1, now(), now())`,
    );
    await pool.query(
      `INSERT INTO disclose_offers (offer_number, scheme_number, name, status, product_type, issuer_name, version,
         first_registered, last_changed)
       VALUES ('OFR10001', 'SCH10000', 'An Offer', 'Open', 'Managed investment products', 'A Manager', 1, now(), now())`,
    );
    const notices = 'financial-markets-authority-notice-documents';
    // Two documents of one scheme notice, the first lodged at 23:30 UTC: the next day in New Zealand.
    await document('DOC100002', 'scheme', 'SCH10000', notices, 'DOC100001', '2025-03-10T23:30:00Z');
    await document('DOC100003', 'scheme', 'SCH10000', notices, 'DOC100001', '2025-03-12T01:00:00Z');
    await document('DOC100005', 'offer', 'OFR10001', notices, 'DOC100004', '2024-07-01T00:00:00Z');
    await document(
      'DOC100006',
      'offer',
      'OFR10001',
      'product-disclosure-statements',
      null,
      '2024-01-01T00:00:00Z',
    );

    await migrate(pool, [{ module: 'disclose', dir: MIGRATIONS }]);

    const scheme = await noticesOf(pool, 'scheme', 'SCH10000', { limit: 10, offset: 0 });
    expect(scheme.total).toBe(1);
    expect(scheme.rows[0]).toMatchObject({
      noticeRecId: 'DOC100001',
      noticeType: 'Notice',
      noticeDate: '2025-03-11',
      summary: 'Title of DOC100002; Title of DOC100003',
      documentCount: 2,
      lastChanged: new Date('2025-03-12T01:00:00Z'),
    });
    expect(await noticeOf(pool, 'offer', 'OFR10001', 'DOC100004')).toMatchObject({ documentCount: 1 });
    // A notice is its own record's only.
    expect(await noticeOf(pool, 'offer', 'OFR10001', 'DOC100001')).toBeUndefined();
  });

  it('from then on, a notice document names a notice of its own record, and only it names one', async () => {
    const notices = 'financial-markets-authority-notice-documents';
    const at = '2026-01-01T00:00:00Z';
    // A notice that is not there, or another record's.
    await expect(document('DOC100010', 'scheme', 'SCH10000', notices, 'DOC999999', at)).rejects.toThrow(
      /disclose_documents_notice_fk/,
    );
    await expect(document('DOC100011', 'offer', 'OFR10001', notices, 'DOC100001', at)).rejects.toThrow(
      /disclose_documents_notice_fk/,
    );
    // A notice document without a notice, and another document with one.
    await expect(document('DOC100012', 'scheme', 'SCH10000', notices, null, at)).rejects.toThrow(
      /disclose_documents_notice_type/,
    );
    await expect(
      document('DOC100013', 'scheme', 'SCH10000', 'governing-documents', 'DOC100001', at),
    ).rejects.toThrow(/disclose_documents_notice_type/);
    await expect(
      document('DOC100014', 'scheme', 'SCH10000', notices, 'DOC100001', at),
    ).resolves.toBeDefined();
  });
});
