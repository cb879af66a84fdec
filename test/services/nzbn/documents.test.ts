import { readdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { QueryResultRow } from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { advanceClock } from '../../../src/platform/environment-clocks.ts';
import { MAX_DOCUMENT_BYTES, MAX_UPLOAD_BODY_BYTES } from '../../../src/services/nzbn/domain/documents.ts';
import {
  cleanDocumentFiles,
  documentFilesOf,
  uploadFolderOf,
} from '../../../src/services/nzbn/operations/document-files.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';
import { type FilePart, MULTIPART, multipartBody, pdf, png } from './support/multipart.ts';

/**
 * Documents (NZBN_105 POST /documents, NZBN_905 POST /companies-document-upload) and their downloads:
 * the multipart shape, the size limit (413 in the register's body), the kinds of file judged by their
 * content, new versions under If-Modified-Since, the signed URLs (no key; changed or expired ones
 * refused), a company's filing in its filings list with its change event, and nothing written or left
 * behind by a refusal or a failed transaction.
 */
let t: NzbnTest;
beforeAll(async () => {
  t = await nzbnTest({ clockMode: 'virtual' });
  await t.grant(t.owner.userId, FIXTURE.soleTrader);
});
afterAll(() => t?.close());

const E = FIXTURE.authority;
const database = () => t.gateway.runtime.environments.sandbox;
const sql = <T extends QueryResultRow>(text: string, values: unknown[] = []) =>
  database()
    .pool.query<T>(text, values)
    .then((r) => r.rows);
const upload = (
  fields: Record<string, string>,
  files: FilePart[],
  options: { token?: string; headers?: Record<string, string> } = {},
) =>
  t.call('POST', '/documents', {
    token: options.token ?? t.owner.token,
    headers: { ...MULTIPART, ...options.headers },
    payload: multipartBody(fields, ...files),
  });
const fileCompany = (fields: Record<string, string>, files: FilePart[], token = t.owner.token) =>
  t.call('POST', '/companies-document-upload', {
    token,
    headers: MULTIPART,
    payload: multipartBody(fields, ...files),
  });
/** A signed link, followed without a key (the signature is the permission). */
const follow = (href: string) => {
  const url = new URL(href);
  return t.gateway.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
};
const stored = async () => {
  const names: string[] = [];
  for await (const { id } of documentFilesOf(database()).list()) names.push(id);
  return names.sort();
};
const leftovers = async () => readdir(uploadFolderOf(database())).catch(() => [] as string[]);
const counts = async () =>
  (
    await sql<{ documents: number; filings: number; events: number }>(
      `SELECT (SELECT count(*)::int FROM nzbn_documents) AS documents, (SELECT count(*)::int FROM nzbn_filings) AS filings,
              (SELECT count(*)::int FROM nzbn_change_events WHERE change_event_type = 'FILING') AS events`,
    )
  )[0]!;

describe('POST /documents', () => {
  it('takes a PDF: the published Document, its validators, its bytes in the store and a download link', async () => {
    const file = pdf('Authority letter');
    const response = await upload({ documentType: 'LETTER' }, [file]);
    expect(response.statusCode, response.body).toBe(200);
    const document = response.json();
    expect(document).toMatchObject({
      documentId: expect.stringMatching(/^[0-9a-f]{16}$/),
      documentType: 'LETTER',
      url: { rel: 'download', methods: ['GET'] },
      document: { rel: 'document', methods: ['GET'] },
    });
    expect(response.headers.etag).toMatch(/^"[0-9a-f]{32}\.1"$/);
    expect(response.headers['last-modified']).toBeDefined();
    const [row] = await sql('SELECT * FROM nzbn_documents WHERE document_id = $1', [document.documentId]);
    expect(row).toMatchObject({
      owner_user_id: t.owner.userId,
      content_type: 'application/pdf',
      file_name: 'letter.pdf',
    });
    expect(Number(row!.size_bytes)).toBe(file.bytes.length);
    expect(await stored()).toContain(row!.storage_id);

    const downloaded = await follow(document.url.href);
    expect(downloaded.statusCode, downloaded.body).toBe(200);
    expect(downloaded.rawPayload.equals(file.bytes)).toBe(true);
    expect(downloaded.headers['content-type']).toBe('application/pdf');
    expect(downloaded.headers['content-disposition']).toBe('attachment; filename="letter.pdf"');
    expect(downloaded.headers['x-content-type-options']).toBe('nosniff');
    const shown = await follow(document.document.href);
    expect(shown.headers['content-disposition']).toBe('inline; filename="letter.pdf"');
    expect(shown.rawPayload.equals(file.bytes)).toBe(true);
    expect(await leftovers()).toEqual([]);
  });

  it('judges the file by its content: the declared type neither lets a file in nor keeps one out', async () => {
    const script: FilePart = {
      name: 'letter.pdf',
      type: 'application/pdf',
      bytes: Buffer.from('<script>alert(1)</script>'),
    };
    const cases: [FilePart, RegExp][] = [
      [script, /must be a PDF, PNG, JPEG or TIFF file; its content is none of these/],
      [{ ...png(), type: 'application/pdf' }, /is sent as application\/pdf but its content is PNG/],
      [
        { name: 'a.gif', type: 'image/gif', bytes: Buffer.from('GIF89a\x01\x00\x01\x00') },
        /its content is image\/gif/,
      ],
      [{ name: 'empty.pdf', type: 'application/pdf', bytes: Buffer.alloc(0) }, /is empty/],
    ];
    const before = await counts();
    for (const [file, rule] of cases) {
      const refused = await upload({}, [file]);
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json()).toMatchObject({
        errorCode: 'invalid-parameter',
        list: [{ field: 'file', message: expect.stringMatching(rule) }],
      });
    }
    expect(await counts()).toEqual(before);
    // Sent as a stream of bytes, it is what its content shows.
    const octets = await upload({}, [{ ...png(), type: 'application/octet-stream' }]);
    expect(octets.statusCode, octets.body).toBe(200);
    const [row] = await sql('SELECT content_type FROM nzbn_documents WHERE document_id = $1', [
      octets.json().documentId,
    ]);
    expect(row!.content_type).toBe('image/png');
    expect(await leftovers()).toEqual([]);
  });

  it('names the field of every other refusal: no file, a bad document type, another kind of body', async () => {
    const noFile = await upload({ documentType: 'LETTER' }, []);
    expect(noFile.statusCode).toBe(400);
    expect(noFile.json().list).toEqual([{ field: 'file', message: expect.stringMatching(/^is required/) }]);
    const badType = await upload({ documentType: 'a letter!' }, [pdf()]);
    expect(badType.statusCode).toBe(400);
    expect(badType.json().list[0].field).toBe('documentType');
    const badId = await upload({ documentId: '../../etc/passwd' }, [pdf()]);
    expect(badId.json().list[0].field).toBe('documentId');
    const twoFiles = await upload({}, [pdf(), { ...pdf(), field: 'other' }]);
    expect(twoFiles.statusCode).toBe(400);
    expect(twoFiles.json().list[0].field).toBe('body');
    const json = await t.call('POST', '/documents', {
      token: t.owner.token,
      payload: { file: { temporary: '/etc/passwd' } },
    });
    expect(json.statusCode).toBe(415);
    expect(json.json()).toMatchObject({ status: '415', errorCode: 'fst_err_ctp_invalid_media_type' });
    expect(await leftovers()).toEqual([]);
  });

  it('refuses a document over the limit with 413 in the register’s body, keeping nothing', async () => {
    const before = await counts();
    const files = await stored();
    const big = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(MAX_DOCUMENT_BYTES - 8, 0x20)]);
    const tooBig = await upload({}, [{ name: 'big.pdf', type: 'application/pdf', bytes: big }]);
    expect(tooBig.statusCode, tooBig.body.slice(0, 200)).toBe(413);
    expect(tooBig.json()).toMatchObject({
      status: '413',
      errorCode: 'body-too-large',
      list: [{ field: 'file' }],
    });
    // A body that says it is larger than any upload is refused before it is read.
    const declared = await t.call('POST', '/documents', {
      token: t.owner.token,
      headers: { ...MULTIPART, 'content-length': String(MAX_UPLOAD_BODY_BYTES + 1) },
      payload: Buffer.alloc(MAX_UPLOAD_BODY_BYTES + 1, 0x2d),
    });
    expect(declared.statusCode).toBe(413);
    expect(declared.json()).toMatchObject({ errorCode: 'body-too-large', list: [{ field: 'body' }] });
    expect(await counts()).toEqual(before);
    expect(await stored()).toEqual(files);
    expect(await leftovers()).toEqual([]);
  });

  it('takes a new version of the caller’s document: If-Modified-Since guards it, 404 for another’s', async () => {
    const first = (await upload({ documentType: 'ID_PROOF' }, [pdf('first')])).json();
    const [before] = await sql('SELECT storage_id, updated_at FROM nzbn_documents WHERE document_id = $1', [
      first.documentId,
    ]);
    const long = new Date(Date.now() - 86_400_000).toUTCString();
    const stale = await upload({ documentId: first.documentId }, [pdf('second')], {
      headers: { 'if-modified-since': long },
    });
    expect(stale.statusCode, stale.body).toBe(412);
    const next = pdf('second');
    const replaced = await upload({ documentId: first.documentId }, [next], {
      headers: { 'if-modified-since': new Date(Date.now() + 60_000).toUTCString() },
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json()).toMatchObject({ documentId: first.documentId, documentType: 'ID_PROOF' });
    expect(replaced.headers.etag).toMatch(/\.2"$/);
    const [after] = await sql('SELECT storage_id, version FROM nzbn_documents WHERE document_id = $1', [
      first.documentId,
    ]);
    expect(after!.version).toBe(2);
    const files = await stored();
    expect(files).toContain(after!.storage_id);
    expect(files).not.toContain(before!.storage_id);
    expect((await follow(first.url.href)).rawPayload.equals(next.bytes)).toBe(true);

    const theirs = await upload({ documentId: first.documentId }, [pdf()], { token: t.stranger.token });
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().errorDescription).toMatch(/^Object Not Found/);
    expect((await upload({ documentId: '0123456789abcdef' }, [pdf()])).statusCode).toBe(404);
  });
});

describe('the OpenAPI document', () => {
  it('states the uploads’ shape and rules: multipart, the file part, its limit and kinds, 413 and 415', async () => {
    const document = (await t.gateway.app.inject({ url: '/sandbox/nzbn/v5/openapi.json' })).json();
    for (const path of ['/documents', '/companies-document-upload']) {
      const operation = document.paths[path].post;
      const schema = operation.requestBody.content['multipart/form-data'].schema;
      expect(Object.keys(operation.requestBody.content), path).toEqual(['multipart/form-data']);
      expect(schema.properties.file).toMatchObject({ type: 'string', format: 'binary' });
      expect(operation.description).toMatch(/judged by its content/);
      expect(operation.description).toContain(String(MAX_DOCUMENT_BYTES));
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '413', '415']));
    }
    expect(
      document.paths['/documents'].post.requestBody.content['multipart/form-data'].schema.required,
    ).toEqual(['file']);
    // The download route is public and outside the document: the links are how a client finds it.
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/files'))).toEqual([]);
  });
});

describe('the signed URLs', () => {
  it('refuse a changed path, a changed signature and, after a quarter of an hour, themselves', async () => {
    const document = (await upload({}, [pdf('signed')])).json();
    const other = (await upload({}, [pdf('other')])).json();
    const href = new URL(document.url.href);
    const tampered = await follow(
      `${href.origin}${href.pathname}${href.search.replace(/signature=[^&]+/, 'signature=AAAA')}`,
    );
    expect(tampered.statusCode).toBe(403);
    expect(tampered.json()).toMatchObject({
      errorCode: 'SIGNATURE_REFUSED',
      list: [{ field: 'signature', message: 'does not match' }],
    });
    const moved = await follow(
      `${href.origin}${href.pathname.replace(document.documentId, other.documentId)}${href.search}`,
    );
    expect(moved.statusCode).toBe(403);
    const twice = await follow(`${href.toString()}&expires=1`);
    expect(twice.statusCode).toBe(400);
    await advanceClock(t.gateway.runtime.gateway.pool, 'sandbox', '16m');
    const clock = t.gateway.runtime.clocks.for('sandbox');
    const late = Date.now() + 15 * 60_000;
    await vi.waitFor(() => expect(clock.now().getTime()).toBeGreaterThan(late));
    const expired = await follow(document.url.href);
    expect(expired.statusCode).toBe(403);
    expect(expired.json().list).toEqual([{ field: 'signature', message: 'has expired' }]);
  });
});

describe('POST /companies-document-upload', () => {
  it('files a company’s document: a filing in its list, a FILING change event, the document fixed', async () => {
    const before = await counts();
    const response = await fileCompany({ nzbn: E, documentType: 'BDHNOTICE', effectiveDate: '2025-01-15' }, [
      pdf('notice'),
    ]);
    expect(response.statusCode, response.body).toBe(200);
    const answer = response.json();
    expect(answer).toMatchObject({
      documentType: 'BDHNOTICE',
      effectiveDate: '2025-01-15T00:00:00.000+1300',
    });
    expect(answer.filedDate).toBe(answer.submissionDate);
    expect(await counts()).toEqual({
      documents: before.documents + 1,
      filings: before.filings + 1,
      events: before.events + 1,
    });

    const filings = await t.call('GET', `/entities/${E}/filings`);
    expect(filings.statusCode).toBe(200);
    const filed = filings.json().items.at(-1);
    expect(filed).toMatchObject({
      filingCode: 'BDHNOTICE',
      filingCodeDescription: 'Business Debt Hibernation: Notice of Application',
      registrationDate: answer.filedDate,
      archived: false,
      attachments: [{ documentId: answer.documentId, documentType: 'BDHNOTICE' }],
    });
    expect((await follow(filed.attachments[0].url.href)).statusCode).toBe(200);
    expect((await follow(filed.url.href)).headers['content-disposition']).toMatch(/^inline/);

    const changes = await t.call('GET', '/entities/changes?change-event-type=FILING');
    const item = changes.json().items.find((change: { nzbn: string }) => change.nzbn === E);
    expect(item.items[0]).toMatchObject({
      changeEventType: 'FILING',
      resourceLink: expect.stringMatching(/\/filings$/),
    });
    expect(JSON.parse(item.items[0].newValue)).toMatchObject({
      filingId: filed.filingId,
      documentId: answer.documentId,
    });

    // Filed, the document no longer changes, nor is it filed twice.
    const again = await upload({ documentId: answer.documentId }, [pdf()]);
    expect(again.statusCode).toBe(400);
    expect(again.json().list[0]).toEqual({
      field: 'documentId',
      message: 'is filed: a filed document does not change',
    });
    const twice = await fileCompany(
      { nzbn: E, documentType: 'BDHCANCELL', documentId: answer.documentId },
      [],
    );
    expect(twice.statusCode).toBe(400);
    expect(twice.json().list[0].field).toBe('documentId');
  });

  it('files a document uploaded before, named by its documentId', async () => {
    const uploaded = (await upload({ documentType: 'NOTICE' }, [pdf('extension')])).json();
    const response = await fileCompany(
      { nzbn: E, documentType: 'bdhextens', documentId: uploaded.documentId },
      [],
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ documentId: uploaded.documentId, documentType: 'BDHEXTENS' });
    const items = (await t.call('GET', `/entities/${E}/filings`)).json().items;
    expect(items.at(-1).attachments[0]).toMatchObject({
      documentId: uploaded.documentId,
      documentType: 'BDHEXTENS',
    });
  });

  it('refuses, writing nothing: no authority (403), not a company, no such entity, the rules of the fields', async () => {
    const before = await counts();
    const files = await stored();
    const stranger = await fileCompany({ nzbn: E, documentType: 'BDHNOTICE' }, [pdf()], t.stranger.token);
    expect(stranger.statusCode).toBe(403);
    expect(stranger.json().errorCode).toBe('FORBIDDEN');
    const refusals: [Record<string, string>, FilePart[], string][] = [
      [{ nzbn: FIXTURE.soleTrader, documentType: 'BDHNOTICE' }, [pdf()], 'nzbn'],
      [{ nzbn: '9429000009997', documentType: 'BDHNOTICE' }, [pdf()], 'nzbn'],
      [{ nzbn: '9429000001008', documentType: 'BDHNOTICE' }, [pdf()], 'nzbn'],
      [{ documentType: 'BDHNOTICE' }, [pdf()], 'nzbn'],
      [{ nzbn: E, documentType: 'ANNUAL' }, [pdf()], 'documentType'],
      [{ nzbn: E, documentType: 'BDHNOTICE' }, [], 'file'],
      [{ nzbn: E, documentType: 'BDHNOTICE', documentId: '0123456789abcdef' }, [pdf()], 'file'],
      [{ nzbn: E, documentType: 'BDHNOTICE', documentId: '0123456789abcdef' }, [], 'documentId'],
      [{ nzbn: E, documentType: 'BDHNOTICE', submissionDate: '2999-01-01' }, [pdf()], 'submissionDate'],
      [{ nzbn: E, documentType: 'BDHNOTICE', effectiveDate: 'soon' }, [pdf()], 'effectiveDate'],
      [{ nzbn: E, documentType: 'BDHNOTICE' }, [{ ...pdf(), bytes: Buffer.from('not a pdf') }], 'file'],
    ];
    for (const [fields, parts, field] of refusals) {
      const refused = await fileCompany(fields, parts);
      expect(refused.statusCode, `${JSON.stringify(fields)} → ${refused.body}`).toBe(400);
      expect(refused.json().list.map((f: { field: string }) => f.field)).toContain(field);
    }
    expect(await counts()).toEqual(before);
    expect(await stored()).toEqual(files);
    expect(await leftovers()).toEqual([]);
  });

  it('a transaction that fails keeps neither the row nor the bytes', async () => {
    const pool = database().pool;
    await pool.query(`CREATE FUNCTION nzbn_test_refuse_filing() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE EXCEPTION 'refused for the test'; END $$`);
    await pool.query(`CREATE TRIGGER refuse_filings BEFORE INSERT ON nzbn_filings
      FOR EACH ROW EXECUTE FUNCTION nzbn_test_refuse_filing()`);
    try {
      const before = await counts();
      const files = await stored();
      const failed = await fileCompany({ nzbn: E, documentType: 'BDHNOTICE' }, [pdf('doomed')]);
      expect(failed.statusCode).toBe(500);
      expect(failed.body).not.toContain('refused for the test');
      expect(await counts()).toEqual(before);
      expect(await stored()).toEqual(files);
    } finally {
      await pool.query('DROP TRIGGER refuse_filings ON nzbn_filings');
    }
  });
});

describe('authorities refer to uploads by their documentId', () => {
  it('keeps the caller’s upload on a request and answers it with links that read it', async () => {
    const letter = pdf('Registrar letter');
    const uploaded = (await upload({ documentType: 'LETTER' }, [letter])).json();
    const theirs = (await upload({}, [pdf('not yours')], { token: t.stranger.token })).json();
    const refused = await t.call('POST', '/authorities', {
      token: t.owner.token,
      payload: {
        nzbn: FIXTURE.company,
        approvalType: 'REGISTRAR_LETTER',
        documents: [{ documentId: uploaded.documentId }, { documentId: theirs.documentId }],
      },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().list).toEqual([
      { field: 'documents.1.documentId', message: 'names no document you uploaded (POST /documents)' },
    ]);

    const made = await t.call('POST', '/authorities', {
      token: t.owner.token,
      payload: {
        nzbn: FIXTURE.company,
        approvalType: 'REGISTRAR_LETTER',
        documents: [{ documentId: uploaded.documentId }],
      },
    });
    expect(made.statusCode, made.body).toBe(201);
    const [document] = made.json().documents;
    expect(document).toMatchObject({
      documentId: uploaded.documentId,
      documentType: 'LETTER',
      url: { rel: 'download' },
    });
    expect((await follow(document.url.href)).rawPayload.equals(letter.bytes)).toBe(true);

    // Kept without links: each answer makes them afresh.
    const listed = await t.call('GET', `/authorities?nzbn=${FIXTURE.company}`, { token: t.owner.token });
    const found = listed
      .json()
      .items.find((a: { authorityId: string }) => a.authorityId === made.json().authorityId);
    expect(found.documents[0]).toMatchObject({
      documentId: uploaded.documentId,
      document: { rel: 'document' },
    });

    // Its holder changes the pending request's documents to another upload of theirs.
    const second = (await upload({ documentType: 'ID_PROOF' }, [pdf('passport')])).json();
    const changed = await t.call('PUT', `/authorities/${made.json().authorityId}`, {
      token: t.owner.token,
      payload: { documents: [{ documentId: uploaded.documentId }, { documentId: second.documentId }] },
    });
    expect(changed.statusCode, changed.body).toBe(204);
    const again = await t.call('GET', `/authorities?nzbn=${FIXTURE.company}`, { token: t.owner.token });
    const now = again
      .json()
      .items.find((a: { authorityId: string }) => a.authorityId === made.json().authorityId);
    expect(now.documents.map((d: { documentType: string }) => d.documentType)).toEqual([
      'LETTER',
      'ID_PROOF',
    ]);
  });
});

describe('the document store', () => {
  it('removes bytes no row names and unfinished uploads once an hour old, and keeps the rest', async () => {
    const store = documentFilesOf(database());
    await store.put('00000000000000aa', Readable.from([Buffer.from('orphan')]));
    const kept = await stored();
    expect(await cleanDocumentFiles(database(), 60 * 60_000)).toBe(0);
    const removed = await cleanDocumentFiles(database(), 60 * 60_000, Date.now() + 2 * 60 * 60_000);
    expect(removed).toBe(1);
    expect(await stored()).toEqual(kept.filter((id) => id !== '00000000000000aa'));
  });
});
