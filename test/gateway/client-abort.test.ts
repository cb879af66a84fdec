import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REQUEST_ID_HEADER } from '../../src/app.ts';
import { withTransaction } from '../../src/platform/db/pool.ts';
import { documentStoreFor } from '../../src/services/iponz/documents/location.ts';
import { insertDocument } from '../../src/services/iponz/store/documents.ts';
import { envelopeOf, SERVICES_NS, type SoapTest, soapTest } from '../services/iponz/support/soap-client.ts';

/**
 * A client that goes away mid-request (its body half sent) or mid-answer (a 2 MB document download
 * read for one piece) is not a server error: over a real socket, at LOG_LEVEL=debug, each such request
 * leaves no error or warning line and no stack, only an info line saying so.
 */
let s: SoapTest;
const lines: string[] = [];
const DOCUMENT = '09aa0000000000ab';

beforeAll(async () => {
  s = await soapTest(
    { LOG_LEVEL: 'debug' },
    { logger: true, logStream: { write: (line: string) => void lines.push(line) } },
  );
  const sandbox = s.t.gateway.runtime.environments.sandbox;
  await documentStoreFor(sandbox).put(DOCUMENT, Readable.from([randomBytes(2_000_000)]));
  await withTransaction(sandbox.pool, (tx) =>
    insertDocument(tx, {
      documentIdentifier: DOCUMENT,
      kind: 'trademark',
      caseNumber: 1000004,
      documentName: 'Large.pdf',
      objectFormat: 'pdf',
      createdOn: '2026-06-15',
      storedSize: 2_000_000,
    }),
  );
}, 120_000);
afterAll(() => s?.close());

const logged = () =>
  lines.map((line) => JSON.parse(line) as { level: number; requestId?: string; msg: string });

/**
 * Sends the head and `body` (all or part of what Content-Length promises) with request id `id`, then
 * closes the connection: once the request is logged as arriving (`gone: 'mid-request'`), or at the
 * answer's first bytes (`'mid-answer'`). Resolves once a line about its outcome is logged.
 */
async function abort(
  id: string,
  path: string,
  type: string,
  body: string,
  declared: number,
  gone: 'mid-request' | 'mid-answer',
  headers: Record<string, string> = {},
) {
  const url = new URL(s.base);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\n${REQUEST_ID_HEADER}: ${id}\r\n${extra}` +
      `Content-Type: ${type}\r\nContent-Length: ${declared}\r\n\r\n${body}`,
  );
  if (gone === 'mid-answer') await new Promise<void>((resolve) => socket.once('data', () => resolve()));
  else await vi.waitFor(() => expect(logged().some((l) => l.requestId === id)).toBe(true));
  socket.destroy();
  // Its outcome logged: whatever line follows "incoming request".
  await vi.waitFor(
    () =>
      expect(
        logged().some((l) => l.requestId === id && l.msg !== 'incoming request'),
        id,
      ).toBe(true),
    { timeout: 5_000 },
  );
}

describe('a client going away', () => {
  it('mid-request or mid-answer: no error or warning line, no stack; an info line', async () => {
    const key = { 'Ocp-Apim-Subscription-Key': s.t.key };
    const soap = 'text/xml; charset=utf-8';
    const getObject = envelopeOf(
      `<GetObject xmlns="${SERVICES_NS}"><ObjectIdentifier>${DOCUMENT}</ObjectIdentifier></GetObject>`,
    );
    const json = JSON.stringify({ ObjectIdentifier: DOCUMENT });
    const form = 'application/x-www-form-urlencoded';
    await abort('token-body', '/oauth2/token', form, 'grant_type=client_cre', 10_000, 'mid-request');
    await abort('signin-body', '/portal/signin', form, 'email=a%40example.com&pass', 10_000, 'mid-request');
    await abort(
      'json-body',
      `${new URL(s.base).pathname}/download-document`,
      'application/json',
      '{"Obj',
      10_000,
      'mid-request',
      key,
    );
    await abort(
      'soap-body',
      `${new URL(s.base).pathname}/download-document`,
      soap,
      getObject.slice(0, 120),
      10_000,
      'mid-request',
      key,
    );
    await abort(
      'soap-download',
      `${new URL(s.base).pathname}/download-document`,
      soap,
      getObject,
      Buffer.byteLength(getObject),
      'mid-answer',
      key,
    );
    await abort(
      'json-download',
      `${new URL(s.base).pathname}/download-document`,
      'application/json',
      json,
      Buffer.byteLength(json),
      'mid-answer',
      key,
    );

    const ours = logged().filter((line) => line.requestId && /-(body|download)$/.test(line.requestId));
    const loud = ours.filter((line) => line.level >= 40).map((line) => `${line.requestId}: ${line.msg}`);
    expect(loud).toEqual([]);
    expect(lines.filter((line) => line.includes('"stack"'))).toEqual([]);
    const wentAway = new Set(
      ours.filter((l) => /client went away|stream closed/.test(l.msg)).map((l) => l.requestId),
    );
    expect([...wentAway].sort()).toEqual([
      'json-body',
      'json-download',
      'signin-body',
      'soap-body',
      'soap-download',
      'token-body',
    ]);
  });
});
