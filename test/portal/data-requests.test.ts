import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MultipartBody, multipartUploads, uploadedFile } from '../../src/platform/http/multipart.ts';
import { listOutbox } from '../../src/platform/mail.ts';
import { derivedSigningKey, signedQuery } from '../../src/platform/signed-url.ts';
import { BOUNDARY, multipartBody, multipartType } from '../support/multipart.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { csrfOf, type PortalClient, signedInUser } from './support/api.ts';

let t: TestGateway;
let folder: string;
let requester: Awaited<ReturnType<typeof signedInUser>>;
let operator: Awaited<ReturnType<typeof signedInUser>>;
const previous = process.env.RSG_DATA_REQUESTS_DIR;

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'rsg-data-requests-'));
  process.env.RSG_DATA_REQUESTS_DIR = folder;
  t = await testGateway();
  requester = await signedInUser(t);
  operator = await signedInUser(t, { operator: true });
}, 60_000);

afterAll(async () => {
  await t?.close();
  if (previous === undefined) delete process.env.RSG_DATA_REQUESTS_DIR;
  else process.env.RSG_DATA_REQUESTS_DIR = previous;
  await rm(folder, { recursive: true, force: true });
});

function multipart(
  fields: Record<string, string>,
  file?: { name: string; type: string; bytes: Buffer },
): Buffer {
  return multipartBody(fields, file ? [file] : []);
}

async function upload(client: PortalClient, url: string, body: Buffer) {
  return t.app.inject({
    method: 'POST',
    url,
    headers: { cookie: client.cookieHeader, 'content-type': multipartType() },
    payload: body,
  });
}

const leftovers = async () => (await readdir(folder).catch(() => [])).filter((name) => name.endsWith('.tmp'));

async function openRequest(client: PortalClient, data: string): Promise<string> {
  const response = await client.submit('/portal/data-requests', '/portal/data-requests', {
    data,
    purpose: 'A study of fund fees',
    format: 'csv',
    contact: 'analyst@example.test',
  });
  expect(response.statusCode).toBe(303);
  expect(response.headers.location).toBe('/portal/data-requests?sent=1');
  const id = (
    await t.runtime.gateway.pool.query<{ id: string }>(
      'SELECT id FROM portal_data_requests ORDER BY created_at DESC LIMIT 1',
    )
  ).rows[0]!.id;
  // The operators' page lists it with its answer form.
  const queue = await operator.client.get('/portal/operator/data-requests');
  expect(queue.body).toContain(`action="/portal/operator/data-requests/${id}/answer"`);
  return id;
}

describe('the offers register data-request form', () => {
  it('refuses a form with a missing or wrong field by naming it', async () => {
    const page = await requester.client.get('/portal/data-requests');
    expect(page.statusCode).toBe(200);
    const csrf = csrfOf(page.body);
    const base = {
      csrf,
      data: 'Every offer',
      purpose: 'Research',
      format: 'csv',
      contact: 'me@example.test',
    };
    for (const [change, message] of [
      [{ data: '' }, 'data: required'],
      [{ purpose: ' ' }, 'purpose: required'],
      [{ format: 'pdf' }, 'format: must be one of csv, json, xlsx, other'],
      [{ contact: 'x'.repeat(201) }, 'contact: at most 200 characters'],
    ] as const) {
      const response = await requester.client.request({
        url: '/portal/data-requests',
        form: { ...base, ...change },
      });
      expect(response.statusCode, message).toBe(400);
      expect(response.body).toContain(message);
    }
  });

  it('records a request, lets an operator answer it with a streamed upload, and only the requester downloads it', async () => {
    const id = await openRequest(requester.client, 'Every offer with its issuer, 2020 to now');
    expect((await listOutbox(t.runtime.gateway.pool, { to: operator.email }))[0]?.subject).toBe(
      'Offers register data request',
    );
    const mine = await requester.client.get('/portal/data-requests');
    expect(mine.body).toContain('Every offer with its issuer, 2020 to now');
    expect(mine.body).toMatch(/badge state-requested">open</);

    // Operators only: a user's upload is refused before its body is read, and nothing stays on disk.
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const userCsrf = csrfOf(mine.body);
    const byUser = await upload(
      requester.client,
      `/portal/operator/data-requests/${id}/answer`,
      multipart({ csrf: userCsrf }, { name: 'offers.csv', type: 'text/csv', bytes }),
    );
    expect(byUser.statusCode).toBe(403);
    expect(await leftovers()).toEqual([]);
    // Without the form's CSRF token: 403, and the temporary file is removed.
    const noCsrf = await upload(
      operator.client,
      `/portal/operator/data-requests/${id}/answer`,
      multipart({ note: 'x' }, { name: 'offers.csv', type: 'text/csv', bytes }),
    );
    expect(noCsrf.statusCode).toBe(403);
    expect(await leftovers()).toEqual([]);
    // A body cut before its closing boundary: 400 naming the body.
    const queuePage = await operator.client.get('/portal/operator/data-requests');
    const csrf = csrfOf(queuePage.body);
    const whole = multipart({ csrf }, { name: 'offers.csv', type: 'text/csv', bytes });
    const cut = await upload(
      operator.client,
      `/portal/operator/data-requests/${id}/answer`,
      whole.subarray(0, 500_000),
    );
    expect(cut.statusCode).toBe(400);
    expect(cut.body).toContain('body: the multipart body ends before its closing boundary');
    expect(await leftovers()).toEqual([]);

    const answered = await upload(
      operator.client,
      `/portal/operator/data-requests/${id}/answer`,
      multipart({ csrf, note: 'Extracted today' }, { name: '../offers:2026*.csv', type: 'text/csv', bytes }),
    );
    expect(answered.statusCode).toBe(303);
    expect(answered.headers.location).toBe('/portal/operator/data-requests?done=answered');
    expect(await leftovers()).toEqual([]);
    // Answered once only.
    const again = await upload(
      operator.client,
      `/portal/operator/data-requests/${id}/answer`,
      multipart({ csrf }, { name: 'other.csv', type: 'text/csv', bytes: Buffer.from('a,b\r\n') }),
    );
    expect(again.statusCode).toBe(409);

    const mail = (await listOutbox(t.runtime.gateway.pool, { to: requester.email }))[0]!;
    expect(mail.subject).toBe('Your offers register data request was answered');
    expect(mail.text).toContain(createHash('sha256').update(bytes).digest('hex'));

    const page = await requester.client.get('/portal/data-requests');
    expect(page.body).toMatch(/badge state-approved">answered</);
    const link = /href="(\/portal\/data-requests\/[^"]+\/file\?[^"]+)"/
      .exec(page.body)![1]!
      .replaceAll('&#38;', '&');
    const file = await requester.client.get(link);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('text/csv');
    // The browser's name is kept without its folder part; characters outside a safe set become _.
    expect(file.headers['content-disposition']).toBe('attachment; filename="offers_2026_.csv"');
    expect(Buffer.compare(file.rawPayload, bytes)).toBe(0);

    // Another user with the requester's link: 403; signed out: to sign in; changed or expired: refused.
    const other = await signedInUser(t);
    const foreign = await other.client.get(link);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.body).toContain('This link was made for another user.');
    const anonymous = await t.app.inject({ method: 'GET', url: link });
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toMatch(/^\/portal\/signin\?next=/);
    const tampered = await requester.client.get(link.replace(/caller=[^&]+/, `caller=${other.user.id}`));
    expect(tampered.statusCode).toBe(403);
    const key = derivedSigningKey(t.runtime.keyedUniform, 'portal|download');
    const filePath = `/portal/data-requests/${id}/file`;
    const expired = await requester.client.get(
      `${filePath}?${signedQuery(key, filePath, requester.user.id, Date.now() - 7_200_000, 900)}`,
    );
    expect(expired.statusCode).toBe(410);
  });

  it('lets an operator decline with a reason, which the requester sees', async () => {
    const id = await openRequest(requester.client, 'Every scheme’s members, by name');
    const noReason = await operator.client.submit(
      '/portal/operator/data-requests',
      `/portal/operator/data-requests/${id}/decline`,
      { reason: '' },
    );
    expect(noReason.statusCode).toBe(400);
    expect(noReason.body).toContain('reason: required');
    const declined = await operator.client.submit(
      '/portal/operator/data-requests',
      `/portal/operator/data-requests/${id}/decline`,
      { reason: 'Members’ names are not public data' },
    );
    expect(declined.statusCode).toBe(303);
    const page = await requester.client.get('/portal/data-requests');
    expect(page.body).toMatch(/badge state-declined">declined</);
    expect(page.body).toContain('Members’ names are not public data');
    const mail = (await listOutbox(t.runtime.gateway.pool, { to: requester.email }))[0]!;
    expect(mail.subject).toBe('Your offers register data request was declined');
    // Deciding twice is a conflict.
    const twice = await operator.client.submit(
      '/portal/operator/data-requests',
      `/portal/operator/data-requests/${id}/decline`,
      { reason: 'again' },
    );
    expect(twice.statusCode).toBe(409);
    expect((await requester.client.get('/portal/operator/data-requests')).statusCode).toBe(403);
  });
});

describe('the multipart reader', () => {
  /** A scope that takes uploads as the answer route does, answering what it read (errors as status and message). */
  const readers = new Map<number, FastifyInstance>();
  const reader = async (limit: number) => {
    let app = readers.get(limit);
    if (!app) {
      app = Fastify({ logger: false });
      app.setErrorHandler((error, _request, reply) =>
        reply.code((error as { status?: number }).status ?? 500).send({ message: (error as Error).message }),
      );
      await app.register(async (scope) => {
        await multipartUploads(scope, { folder, limit, fileField: 'file' });
        scope.post('/', async (request) => {
          const body = request.body as MultipartBody;
          const file = uploadedFile(body, 'file');
          return { ...body, file: file && { ...file, kept: await stat(file.temporary).then(() => true) } };
        });
      });
      readers.set(limit, app);
    }
    return app;
  };
  const read = async (
    body: Buffer,
    limit = 1024 * 1024,
    chunk = 7,
    contentType = `multipart/form-data; boundary=${BOUNDARY}`,
  ): Promise<Record<string, unknown>> => {
    const response = await (await reader(limit)).inject({
      method: 'POST',
      url: '/',
      headers: { 'content-type': contentType },
      payload: Readable.from(
        Array.from({ length: Math.ceil(body.length / chunk) }, (_, i) =>
          body.subarray(i * chunk, (i + 1) * chunk),
        ),
      ),
    });
    return { ...(response.json() as Record<string, unknown>), status: response.statusCode };
  };
  afterAll(async () => {
    for (const app of readers.values()) await app.close();
  });

  it('reads fields and a file split at every awkward place, with a boundary-like line inside the file', async () => {
    const bytes = Buffer.from(`line one\r\n--${BOUNDARY.slice(0, -1)}\r\n\r\n--not the boundary\r\nend`);
    for (const chunk of [1, 3, 7, 64, 10_000]) {
      const body = await read(
        multipart({ csrf: 'token', note: 'héllo' }, { name: 'a.txt', type: 'text/plain', bytes }),
        1024 * 1024,
        chunk,
      );
      expect(body.status).toBe(200);
      expect(body.csrf).toBe('token');
      expect(body.note).toBe('héllo');
      const file = body.file as { bytes: number; sha256: string; kept: boolean };
      expect(file.bytes).toBe(bytes.length);
      expect(file.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      // Kept while the handler ran; removed before the answer went out (the handler moved nothing).
      expect(file.kept).toBe(true);
      expect(await leftovers()).toEqual([]);
    }
  });

  it('stops past the limit with a 413 and removes what it wrote', async () => {
    const body = multipart(
      { csrf: 'token' },
      { name: 'big.bin', type: 'application/octet-stream', bytes: randomBytes(50_000) },
    );
    expect(await read(body, 20_000, 4096)).toMatchObject({ status: 413 });
    expect(await leftovers()).toEqual([]);
  });

  it('refuses a second file, a field that is not UTF-8 and a missing boundary', async () => {
    const two = Buffer.concat([
      multipart({}, { name: 'a.txt', type: 'text/plain', bytes: Buffer.from('a') }).subarray(
        0,
        -(BOUNDARY.length + 6),
      ),
      multipart({}, { name: 'b.txt', type: 'text/plain', bytes: Buffer.from('b') }),
    ]);
    expect(await read(two)).toMatchObject({ status: 400, message: 'body: file: one file only' });
    expect(await leftovers()).toEqual([]);
    const latin1 = Buffer.concat([
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\n`),
      Buffer.from([0xe9]),
      Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
    ]);
    expect(await read(latin1)).toMatchObject({ status: 400, message: 'body: note is not UTF-8' });
    expect(await read(Buffer.from('x'), 10, 7, 'multipart/form-data')).toMatchObject({ status: 400 });
  });
});
