import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { withTransaction } from '../../../src/platform/db/pool.ts';
import { documentStoreFor } from '../../../src/services/iponz/documents/location.ts';
import {
  DownloadTimedOut,
  downloadPieces,
  writeBase64,
} from '../../../src/services/iponz/routes/soap-download.ts';
import { insertDocument } from '../../../src/services/iponz/store/documents.ts';
import {
  bodyElement,
  envelopeOf,
  expectValidAnswer,
  SERVICES_NS,
  type SoapTest,
  soapTest,
} from './support/soap-client.ts';

/**
 * The document download (POST /download-document) through the `soap` package's client reading our WSDL:
 * seeded documents generated on demand (valid PDF, JPEG, GIF, the same bytes every time), a stored
 * document byte for byte, App Error for an unknown document, Fault Error past the time limit, the JSON
 * form; every answer valid against the XSD. The streaming bound: the answer's pieces are read from the
 * store one at a time, only as the consumer takes them (no read-ahead), so memory stays a few pieces.
 */
let s: SoapTest;
let xsds: Record<string, string>;
const answers: string[] = [];
const parser = new XMLParser({ parseTagValue: false, removeNSPrefix: true, htmlEntities: true });

async function download(id: string, test = s) {
  const client = await test.client('/download-document');
  const [, raw] = await client.GetObjectAsync({ TransactionIdentifier: 'tx-1', ObjectIdentifier: id });
  const body = bodyElement(raw as string);
  answers.push(body);
  return parser.parse(body).GetObjectResponse;
}

/** A document row without stored bytes, as the generator writes them (one is added for a format it lacks). */
async function seeded(format: string) {
  const pool = s.t.gateway.runtime.environments.sandbox.pool;
  const query = () =>
    pool.query(
      'SELECT document_identifier, document_name FROM iponz_case_documents WHERE object_format = $1 AND stored_size IS NULL ORDER BY 1 LIMIT 1',
      [format],
    );
  let { rows } = await query();
  if (!rows.length) {
    await pool.query(
      `INSERT INTO iponz_case_documents (document_identifier, kind, case_number, document_name, object_format, created_on)
       VALUES ($1, 'trademark', 1000004, $2, $3, '2026-01-01')`,
      [`09bb00000000000${['pdf', 'jpeg', 'gif'].indexOf(format)}`, `Representation.${format}`, format],
    );
    ({ rows } = await query());
  }
  return rows[0] as { document_identifier: string; document_name: string };
}

function postJson(test: SoapTest, body: string) {
  return fetch(`${test.base}/download-document`, {
    method: 'POST',
    headers: { 'Ocp-Apim-Subscription-Key': test.t.key, 'content-type': 'application/json' },
    body,
  });
}

/** curl's exit status and output for a POST of the download (JSON unless the extra headers say). */
async function curl(test: SoapTest, body: string, extra: string[]) {
  const args = ['-sS', '-X', 'POST', '-H', `Ocp-Apim-Subscription-Key: ${test.t.key}`];
  if (!extra.includes('-H')) args.push('-H', 'content-type: application/json');
  args.push(...extra, '--data-binary', body, `${test.base}/download-document`);
  return new Promise<{ code: number; stdout: string }>((resolve) =>
    execFile('curl', args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout) =>
      resolve({ code: error ? Number(error.code) : 0, stdout }),
    ),
  );
}

/** A stored document of these bytes with its row. */
async function storedDocument(test: SoapTest, id: string, bytes: Buffer) {
  const database = test.t.gateway.runtime.environments.sandbox;
  const { size } = await documentStoreFor(database).put(id, Readable.from([bytes]));
  await withTransaction(database.pool, (tx) =>
    insertDocument(tx, {
      documentIdentifier: id,
      kind: 'trademark',
      caseNumber: 1000004,
      documentName: 'Large.pdf',
      objectFormat: 'pdf',
      createdOn: '2026-06-15',
      storedSize: size,
    }),
  );
}

beforeAll(async () => {
  s = await soapTest();
  xsds = await s.xsds('/download-document', ['document-download.xsd']);
}, 120_000);
afterAll(async () => {
  if (answers.length) await expectValidAnswer(answers, xsds, 'document-download.xsd');
  await s?.close();
});

describe('through the SOAP client', () => {
  it.each([
    [
      'pdf',
      (b: Buffer) =>
        b.subarray(0, 5).toString() === '%PDF-' && b.toString('latin1').trimEnd().endsWith('%%EOF'),
    ],
    ['jpeg', (b: Buffer) => b[0] === 0xff && b[1] === 0xd8 && b.at(-2) === 0xff && b.at(-1) === 0xd9],
    ['gif', (b: Buffer) => b.subarray(0, 6).toString() === 'GIF89a' && b.at(-1) === 0x3b],
  ])('a seeded %s document: generated, valid, the same every time', async (format, valid) => {
    const document = await seeded(format);
    const answer = await download(document.document_identifier.toUpperCase());
    expect(answer.TransactionIdentifier).toBe('tx-1');
    expect(answer.TransactionCode).toBe('Get Object');
    expect(answer.ObjectIdentifier).toBe(document.document_identifier);
    expect(answer.ObjectFormat).toBe(format);
    expect(answer.ObjectName).toBe(document.document_name);
    expect(answer.TransactionErrorCode).toBeUndefined();
    const bytes = Buffer.from(answer.ObjectData, 'base64');
    expect(valid(bytes)).toBe(true);
    expect(Number(answer.ObjectSize)).toBe(bytes.length);
    const again = await download(document.document_identifier);
    expect(again.ObjectData).toBe(answer.ObjectData);
  });

  it('a stored document: its bytes exactly', async () => {
    const pool = s.t.gateway.runtime.environments.sandbox.pool;
    const bytes = randomBytes(1_000_003);
    const id = '09aa000000000001';
    const store = documentStoreFor(s.t.gateway.runtime.environments.sandbox);
    const { size } = await store.put(id, Readable.from([bytes]));
    await withTransaction(pool, (tx) =>
      insertDocument(tx, {
        documentIdentifier: id,
        kind: 'trademark',
        caseNumber: 1000004,
        documentName: 'Evidence of use <scan> & notes.pdf',
        objectFormat: 'pdf',
        createdOn: '2026-06-15',
        storedSize: size,
      }),
    );
    const answer = await download(id);
    const got = Buffer.from(answer.ObjectData, 'base64');
    // Written straight to the socket, the answer still names the request.
    const raw = await s.post(
      '/download-document',
      envelopeOf(`<GetObject xmlns="${SERVICES_NS}"><ObjectIdentifier>${id}</ObjectIdentifier></GetObject>`),
    );
    expect(raw.headers.get('api-business-govt-nz-request-id')).toBeTruthy();
    expect(raw.headers.get('content-type')).toMatch(/^text\/xml/);
    expect((await raw.text()).endsWith('</soap:Envelope>')).toBe(true);
    expect(createHash('sha256').update(got).digest('hex')).toBe(
      createHash('sha256').update(bytes).digest('hex'),
    );
    expect(answer.ObjectName).toBe('Evidence of use <scan> & notes.pdf');
    expect(Number(answer.ObjectSize)).toBe(bytes.length);
    // The same through the JSON form.
    const json = await s.t.call('POST', '/download-document', {
      headers: { 'content-type': 'application/json' },
      payload: { ObjectIdentifier: id },
    });
    expect(json.statusCode).toBe(200);
    expect(Buffer.from(json.json().ObjectData, 'base64').equals(bytes)).toBe(true);
  });

  it('a client gone before reading the answer: the stored file is closed, not left to a collection', async () => {
    const id = '09aa000000000002';
    const store = documentStoreFor(s.t.gateway.runtime.environments.sandbox);
    await store.put(id, Readable.from([randomBytes(200_000)]));
    await withTransaction(s.t.gateway.runtime.environments.sandbox.pool, (tx) =>
      insertDocument(tx, {
        documentIdentifier: id,
        kind: 'trademark',
        caseNumber: 1000004,
        documentName: 'Gone.pdf',
        objectFormat: 'pdf',
        createdOn: '2026-06-15',
        storedSize: 200_000,
      }),
    );
    // This process's open descriptors that name the document's file.
    const openOnIt = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).endsWith(`/${id}`);
        } catch {
          return false;
        }
      }).length;
    for (const [type, body] of [
      ['application/json', JSON.stringify({ ObjectIdentifier: id })],
      [
        'text/xml; charset=utf-8',
        envelopeOf(
          `<GetObject xmlns="${SERVICES_NS}"><ObjectIdentifier>${id}</ObjectIdentifier></GetObject>`,
        ),
      ],
    ] as const) {
      const url = new URL(`${s.base}/download-document`);
      const socket = connect(Number(url.port), url.hostname);
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(
        `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nOcp-Apim-Subscription-Key: ${s.t.key}\r\n` +
          `Content-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      // Gone at the first byte of the answer: the document was opened, little of it read.
      await new Promise<void>((resolve) => socket.once('data', () => resolve()));
      socket.destroy();
      await vi.waitFor(() => expect(openOnIt(), type).toBe(0), { timeout: 5_000 });
    }
  });

  it('an unknown document: HTTP 200 with TransactionErrorCode App Error', async () => {
    const answer = await download('09ffffffffffffff');
    expect(answer.TransactionErrorCode).toBe('App Error');
    expect(answer.TransactionErrorMessage).toMatch(/no document 09ffffffffffffff/);
    expect(answer.ObjectData).toBeUndefined();
    const json = await s.t.call('POST', '/download-document', {
      headers: { 'content-type': 'application/json' },
      payload: { ObjectIdentifier: '09ffffffffffffff' },
    });
    expect(json.statusCode).toBe(404);
  });

  it('an identifier of the wrong shape is a fault naming the element (the XSD)', async () => {
    const response = await s.post(
      '/download-document',
      envelopeOf(`<GetObject xmlns="${SERVICES_NS}"><ObjectIdentifier>09zz</ObjectIdentifier></GetObject>`),
    );
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).toContain('<faultcode>soap:Client</faultcode>');
    expect(text).toMatch(/GetObject\/ObjectIdentifier: .*does not match the pattern/);
  });
});

describe('the document store', () => {
  it('a write that fails leaves nothing; files without a row are removed once old, recorded ones kept', async () => {
    const pool = s.t.gateway.runtime.environments.sandbox.pool;
    const store = documentStoreFor(s.t.gateway.runtime.environments.sandbox);
    const failing = (async function* () {
      yield Buffer.from('part');
      throw new Error('the client went away');
    })();
    await expect(store.put('09cc000000000001', failing)).rejects.toThrow('the client went away');
    expect(await store.exists('09cc000000000001')).toBe(false);
    const listed = async () => {
      const ids: string[] = [];
      for await (const { id } of store.list()) ids.push(id);
      return ids.sort();
    };
    expect((await listed()).filter((id) => id.startsWith('09cc'))).toEqual([]);

    await store.put('09cc000000000002', Readable.from([Buffer.from('orphan')]));
    await store.put('09cc000000000003', Readable.from([Buffer.from('recorded')]));
    await withTransaction(pool, (tx) =>
      insertDocument(tx, {
        documentIdentifier: '09cc000000000003',
        kind: 'trademark',
        caseNumber: 1000004,
        documentName: 'kept.pdf',
        objectFormat: 'pdf',
        createdOn: '2026-06-15',
        storedSize: 8,
      }),
    );
    const { deleteOrphanDocuments } = await import('../../../src/services/iponz/documents/orphans.ts');
    // Young files are never touched (a write may be under way).
    expect(await deleteOrphanDocuments(store, pool, 60_000)).toBe(0);
    expect(await store.exists('09cc000000000002')).toBe(true);
    // An hour on: the file without a row goes, the recorded one stays.
    const removed = await deleteOrphanDocuments(store, pool, 60_000, Date.now() + 3_600_000);
    expect(removed).toBeGreaterThanOrEqual(1);
    expect(await store.exists('09cc000000000002')).toBe(false);
    expect(await store.exists('09cc000000000003')).toBe(true);
  });
});

describe('the time limit', () => {
  it('past it before the answer starts: HTTP 200 with TransactionErrorCode Fault Error', async () => {
    const late = await soapTest({ RSG_IPONZ_DOWNLOAD_TIMEOUT_MS: '0' });
    try {
      const document = await seeded('pdf');
      const client = await late.client('/download-document');
      const [, raw] = await client.GetObjectAsync({ ObjectIdentifier: document.document_identifier });
      const answer = parser.parse(bodyElement(raw)).GetObjectResponse;
      answers.push(bodyElement(raw));
      expect(answer.TransactionErrorCode).toBe('Fault Error');
      expect(answer.TransactionErrorMessage).toMatch(/time limit \(0 s\)/);
      expect(answer.ObjectData).toBeUndefined();
    } finally {
      await late.close();
    }
  }, 120_000);

  it('the JSON form past it before the answer starts: 504 problem+json, for fetch and curl alike', async () => {
    const late = await soapTest({ RSG_IPONZ_DOWNLOAD_TIMEOUT_MS: '0' });
    try {
      const document = await seeded('pdf');
      const body = JSON.stringify({ ObjectIdentifier: document.document_identifier });
      const response = await postJson(late, body);
      expect(response.status).toBe(504);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = (await response.json()) as { type: string; detail: string };
      expect(problem.type).toBe('about:blank#download-timed-out');
      expect(problem.detail).toMatch(/time limit \(0 s\)/);
      const curled = await curl(late, body, ['--fail']);
      expect(curled.code).toBe(22);
      expect(curled.stdout).toBe('');
    } finally {
      await late.close();
    }
  }, 120_000);

  it('past it once streaming: the connection is cut with the body short, an error for fetch and curl', async () => {
    const cut = await soapTest({ RSG_IPONZ_DOWNLOAD_TIMEOUT_MS: '1000' });
    try {
      const id = '09aa000000000003';
      await storedDocument(cut, id, randomBytes(20_000_001));
      const body = JSON.stringify({ ObjectIdentifier: id });
      // fetch: the answer starts (200, its exact length announced), then stops being read.
      const response = await postJson(cut, body);
      expect(response.status).toBe(200);
      const length = Number(response.headers.get('content-length'));
      expect(length).toBeGreaterThan(26_000_000);
      const reader = response.body!.getReader();
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toMatch(/^\{"TransactionCode":"Get Object"/);
      // curl, started later, reads slowly: its answer is cut at its own limit, after fetch's.
      const curled = await curl(cut, body, ['--limit-rate', '1M']);
      expect(curled.code).toBe(18);
      expect(curled.stdout.startsWith('{"TransactionCode":"Get Object"')).toBe(true);
      expect(curled.stdout.length).toBeLessThan(length);
      // The fetch reader, resumed past its limit, meets the cut: an error, never a short body as whole.
      await expect(
        (async () => {
          for (;;) if ((await reader.read()).done) return;
        })(),
      ).rejects.toThrow();
      // The SOAP form alike: curl exits with an error.
      const envelope = envelopeOf(
        `<GetObject xmlns="${SERVICES_NS}"><ObjectIdentifier>${id}</ObjectIdentifier></GetObject>`,
      );
      const soapCurled = await curl(cut, envelope, ['--limit-rate', '1M', '-H', 'content-type: text/xml']);
      expect(soapCurled.code).toBe(18);
      expect(soapCurled.stdout).not.toContain('</soap:Envelope>');
    } finally {
      await cut.close();
    }
  }, 120_000);

  it('past it once streaming: the stream fails (the connection is cut), after what was sent', async () => {
    let checks = 0;
    const deadline = { passed: () => ++checks > 2 };
    const source = (async function* () {
      for (let i = 0; i < 10; i++) yield Buffer.alloc(3000, i);
    })();
    const got: (string | Buffer)[] = [];
    await expect(
      (async () => {
        for await (const piece of downloadPieces('<head>', source, '</tail>', deadline)) got.push(piece);
      })(),
    ).rejects.toThrow(DownloadTimedOut);
    expect(got[0]).toBe('<head>');
    expect(got).toHaveLength(3);
    expect(got).not.toContain('</tail>');
  });
});

describe('streaming a stored document', () => {
  const reader = (bytes: Buffer, short: (n: number) => number) => {
    let reads = 0;
    return {
      reads: () => reads,
      readInto: async (target: Buffer, position: number) => {
        reads++;
        const n = Math.min(target.length, bytes.length - position, short(target.length));
        bytes.copy(target, 0, position, position + n);
        return n;
      },
    };
  };

  it('writes the base64 of the whole, whatever the reads return (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 200_000 }),
        fc.integer({ min: 1, max: 70_000 }),
        async (size, most) => {
          const bytes = randomBytes(size);
          const source = reader(bytes, (n) => Math.max(1, Math.min(n, most)));
          const written: string[] = [];
          await writeBase64(
            source.readInto,
            size,
            { write: async (piece) => void written.push(piece.toString()) },
            { passed: () => false },
          );
          expect(written.join('')).toBe(bytes.toString('base64'));
        },
      ),
      { numRuns: 60, seed: 0x777269 },
    );
  });

  it('reads the next piece only once the last is written: two buffers, whatever the size', async () => {
    const bytes = randomBytes(5 * 1024 * 1024);
    const source = reader(bytes, (n) => n);
    let written = 0;
    const buffers = new Set<ArrayBufferLike>();
    await writeBase64(
      source.readInto,
      bytes.length,
      {
        write: async (piece) => {
          written++;
          buffers.add((piece as Buffer).buffer);
          // Every read so far has been written, or is this one.
          expect(source.reads()).toBeLessThanOrEqual(written);
          await new Promise((resolve) => setImmediate(resolve));
        },
      },
      { passed: () => false },
    );
    expect(written).toBeGreaterThan(100);
    // The same output buffer every time (allocUnsafe slices of at most two backing stores).
    expect(buffers.size).toBeLessThanOrEqual(2);
  });

  it('past the deadline the writing throws, the rest unread', async () => {
    const bytes = randomBytes(1024 * 1024);
    const source = reader(bytes, (n) => n);
    let checks = 0;
    await expect(
      writeBase64(source.readInto, bytes.length, { write: async () => {} }, { passed: () => ++checks > 3 }),
    ).rejects.toThrow(DownloadTimedOut);
    expect(source.reads()).toBe(4);
  });
});

describe('streaming', () => {
  it('pieces join into the base64 of the whole, whatever the chunking (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 12 }), async (chunks) => {
        const pieces: (string | Buffer)[] = [];
        const never = { passed: () => false };
        for await (const piece of downloadPieces(
          '',
          (async function* () {
            yield* chunks.map((c) => Buffer.from(c));
          })(),
          '',
          never,
        ))
          pieces.push(piece);
        const whole = Buffer.concat(chunks.map((c) => Buffer.from(c)));
        expect(pieces.join('')).toBe(whole.toString('base64'));
        for (const piece of pieces.slice(1, -2)) expect(piece.includes('=')).toBe(false);
      }),
      { numRuns: 200, seed: 0x646f63 },
    );
  });

  it('reads the store only as the consumer takes pieces: at most one chunk ahead', async () => {
    let pulled = 0;
    const chunk = 64 * 1024;
    const source = (async function* () {
      for (let i = 0; i < 1000; i++) {
        pulled++;
        yield Buffer.alloc(chunk, i % 256);
      }
    })();
    const pieces = downloadPieces('<h>', source, '</h>', { passed: () => false });
    let taken = 0;
    for await (const piece of pieces) {
      taken++;
      if (taken > 1) expect(piece.length).toBeLessThanOrEqual(Math.ceil(((chunk + 2) * 4) / 3));
      // Pieces taken after the head: each needed at most one chunk, one more may wait in the encoder.
      expect(pulled, `after ${taken} pieces`).toBeLessThanOrEqual(taken + 1);
      if (taken === 50) break;
    }
    expect(pulled).toBeLessThan(60);
  });
});
