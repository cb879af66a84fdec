import type { Socket } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINGER_BYTES } from '../../../src/platform/http/body-limit.ts';
import { MAX_DOCUMENT_BYTES } from '../../../src/services/disclose/store/document-files.ts';
import { trickle } from '../../support/trickle.ts';
import { BASE, type DiscloseGateway, discloseGateway } from './support/api.ts';

/**
 * The holdings filing's body over a real socket: who may file is decided before any byte of it is read,
 * the 20 MB limit holds while it streams (and up front when declared), and a body that does not arrive
 * within its bound (here 400 ms) is 408 in the register's problem+json.
 */
const BOUND = 400;
const MB200 = 200 * 1000 * 1000;
let d: DiscloseGateway;
let port: number;
const served: Socket[] = [];
beforeAll(async () => {
  d = await discloseGateway({ env: { RSG_BODY_TIMEOUT_MS: String(BOUND) } });
  d.gateway.app.server.on('connection', (socket: Socket) => served.push(socket));
  await d.gateway.app.listen({ host: '127.0.0.1', port: 0 });
  const address = d.gateway.app.server.address();
  port = typeof address === 'object' && address ? address.port : 0;
}, 120_000);
afterAll(() => d?.close());

const FILING = `${BASE}/offer/OFR10001/fund/FND10001/submit-fph-compliance`;
const etag = async () => (await d.get('/offer/OFR10001/fund/FND10001')).headers.etag as string;

interface Sent {
  status: number;
  body: string;
  /** What the server read from the connection, headers included. */
  serverRead: number;
}

/**
 * A PUT of the filing that announces `declared` bytes (chunked when absent) and sends `send` bytes of
 * spaces as fast as the connection takes them, stopping at the answer; resolves once the connection
 * has closed or the answer is complete.
 */
function file(headers: Record<string, string>, options: { declared?: number; send: number }): Promise<Sent> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const before = served.length;
    const chunks: Buffer[] = [];
    let answered = false;
    const head = [
      `PUT ${FILING} HTTP/1.1`,
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      options.declared === undefined ? 'Transfer-Encoding: chunked' : `Content-Length: ${options.declared}`,
      '',
      '',
    ].join('\r\n');
    const piece = Buffer.alloc(1024 * 1024, 0x20);
    const framed =
      options.declared === undefined
        ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
        : piece;
    let sent = 0;
    const write = () => {
      while (!answered && !socket.destroyed && sent < options.send) {
        sent += piece.length;
        if (!socket.write(framed)) return void socket.once('drain', write);
      }
    };
    const finish = () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const server = served.slice(before).find((s) => s.remotePort === socket.localPort);
      resolve({
        status: Number(text.split(' ')[1] ?? 0),
        body: split < 0 ? '' : text.slice(split + 4),
        serverRead: server?.bytesRead ?? Number.NaN,
      });
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      answered = true;
    });
    socket.on('error', () => {});
    socket.once('close', finish);
    socket.write(head, write);
  });
}

describe('the holdings filing’s body', () => {
  it('without x-organisation or authority: refused before any byte of the body is read', async () => {
    // Nothing of the 200 MB is sent: the answer comes all the same.
    const noOrganisation = await file({ 'Ocp-Apim-Subscription-Key': d.key }, { declared: MB200, send: 0 });
    expect(noOrganisation.status).toBe(400);
    expect(JSON.parse(noOrganisation.body)).toMatchObject({ type: 'about:blank#organisation-required' });
    const noAuthority = await file(
      { 'Ocp-Apim-Subscription-Key': d.key, 'x-organisation': d.otherOrganisation, 'If-Match': await etag() },
      { declared: MB200, send: 0 },
    );
    expect(noAuthority.status).toBe(403);
    expect(JSON.parse(noAuthority.body)).toMatchObject({ type: 'about:blank#no-fund-authority' });
    const noIfMatch = await file(
      { 'Ocp-Apim-Subscription-Key': d.key, 'x-organisation': d.organisation },
      { declared: MB200, send: 0 },
    );
    expect(noIfMatch.status).toBe(428);
  }, 30_000);

  it('200 MB: 413 naming the 20 MB limit, declared (before any byte) or streamed (never read whole)', async () => {
    const headers = {
      'Ocp-Apim-Subscription-Key': d.key,
      'x-organisation': d.organisation,
      'If-Match': await etag(),
    };
    const rule = `is larger than the limit of ${MAX_DOCUMENT_BYTES} bytes`;
    const declared = await file(headers, { declared: MB200, send: 0 });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({
      type: 'about:blank#body-too-large',
      status: 413,
      errors: [{ field: 'body', message: rule }],
    });
    const streamed = await file(headers, { send: MB200 });
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body)).toMatchObject({ errors: [{ field: 'body', message: rule }] });
    // The limit, what is read away after the answer, and what was in flight: far from 200 MB.
    expect(streamed.serverRead).toBeLessThan(MAX_DOCUMENT_BYTES + LINGER_BYTES + 8 * 1024 * 1024);
  }, 60_000);

  it('a body that does not arrive in time: 408 in problem+json, and the connection closed', async () => {
    const answer = await trickle(port, {
      method: 'PUT',
      path: FILING,
      headers: {
        'content-type': 'application/json',
        'ocp-apim-subscription-key': d.key,
        'x-organisation': d.organisation,
        'if-match': await etag(),
      },
      length: 10_000,
    });
    expect(answer.status).toBe(408);
    expect(answer.headers.connection).toBe('close');
    expect(answer.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(JSON.parse(answer.body)).toMatchObject({
      type: 'about:blank#body-timeout',
      status: 408,
      errors: [{ field: 'body', message: expect.stringMatching(/^did not arrive within \d+ ms$/) }],
    });
  });
});
