import { Type } from '@sinclair/typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { strongEtag } from '../../src/platform/http/conditional.ts';
import { declaredHeader } from '../../src/platform/http/declared-headers.ts';
import { installErrorHandling } from '../../src/platform/http/errors.ts';
import {
  conditionalRead,
  conditionalWrite,
  declareOperation,
  noPreconditions,
  operationContext,
  type Preconditions,
  preconditionsOf,
  typed,
} from '../../src/platform/http/operation.ts';

/**
 * The operation kit on a small app of its own: a note with a version and a modification time, read with
 * GET and replaced with PUT. What every register's declared operations get from it: validation from the
 * schemas, 406 before the body, 304/412/428 as the specification's table says, and Last-Modified with
 * every ETag.
 */
let app: FastifyInstance;
const note = { text: 'first', version: 1, modified: new Date('2026-11-01T10:00:00Z') };
const validators = () => ({ etag: strongEtag(`note|${note.version}`), lastModified: note.modified });
const errors: string[] = [];

beforeAll(async () => {
  app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => errors.push(line) } } });
  installErrorHandling(app);
  app.addHook('onRequest', async (request) => {
    request.dialect = 'problem';
  });
  const api = typed(app);
  api.get(
    '/notes/:id',
    declareOperation(
      {
        schema: {
          params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
          querystring: Type.Object({ upper: Type.Optional(Type.Boolean()) }),
        },
      },
      { produces: ['application/json', 'text/plain'], conditional: 'read' },
    ),
    async (request, reply) => {
      // Typed from the schemas: a number and a boolean, already checked.
      const id: number = request.params.id;
      if (conditionalRead(request, reply, validators())) return reply;
      const text = request.query.upper ? note.text.toUpperCase() : note.text;
      if (operationContext(request).mediaType === 'text/plain') return reply.type('text/plain').send(text);
      return { id, text };
    },
  );
  api.put(
    '/notes/:id',
    declareOperation(
      {
        schema: {
          params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
          body: Type.Object({ text: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
        },
      },
      { produces: ['application/json'], conditional: {} },
    ),
    // The write as an operation without HTTP would make it, its preconditions handed to it.
    async (request) => replaceNote(request.body.text, preconditionsOf(request)),
  );
  const replaceNote = (text: string, preconditions: Preconditions) => {
    preconditions(validators());
    note.text = text;
    note.version++;
    note.modified = new Date(note.modified.getTime() + 60_000);
    return { text: note.text };
  };
  api.put(
    '/strict/:id',
    declareOperation(
      { schema: { body: Type.Object({ text: Type.String() }) } },
      { produces: ['application/json'], conditional: { honours: ['If-Match'], required: 'If-Match' } },
    ),
    async (request) => {
      conditionalWrite(request, validators());
      return { ok: true };
    },
  );
  api.get(
    '/lenient',
    declareOperation({}, { produces: ['application/json', 'text/csv'], unacceptable: 'first' }),
    async (request) => ({ chosen: operationContext(request).mediaType }),
  );
  api.get(
    '/headed',
    declareOperation(
      {
        schema: {
          headers: Type.Object({
            'Caller-Reference': Type.Optional(
              declaredHeader(Type.String({ pattern: '^[A-Z]{3}$' }), 'must be three capital letters'),
            ),
            'x-plain': Type.Optional(Type.String({ maxLength: 2 })),
            'Must-Send': Type.String(),
          }),
        },
      },
      { produces: ['application/json'] },
    ),
    async (request) => ({ reference: request.headers['caller-reference'] ?? null }),
  );
  api.put(
    '/forgetful',
    declareOperation({}, { produces: ['application/json'], conditional: {} }),
    async () => ({ ok: true }),
  );
  await app.ready();
});
afterAll(async () => app?.close());

const put = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'PUT', url, payload: payload as object, headers });

describe('declared operations', () => {
  it('validate and type their input: a wrong type is a 400 naming the field in the dialect', async () => {
    const bad = await app.inject({ url: '/notes/x' });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(bad.json().errors[0].field).toBe('id');
    const badQuery = await app.inject({ url: '/notes/1?upper=perhaps' });
    expect(badQuery.statusCode).toBe(400);
    expect(badQuery.json().errors[0].field).toBe('upper');
    const badBody = await put('/notes/1', { text: '', extra: 1 });
    expect(badBody.statusCode).toBe(400);
    expect((await app.inject({ url: '/notes/1?upper=true' })).json()).toMatchObject({ id: 1 });
  });

  it('name a declared header as declared, with its declared rule (not Node’s lower case)', async () => {
    const headed = (headers: Record<string, string>) =>
      app.inject({ url: '/headed', headers: { 'must-send': 'yes', ...headers } });
    const bad = await headed({ 'caller-reference': 'abcd' });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(bad.json().errors).toEqual([
      { field: 'Caller-Reference', message: 'must be three capital letters' },
    ]);
    expect(bad.json().detail).toBe('Caller-Reference must be three capital letters');
    // Without a declared rule, the schema's own message; a header declared lower-case stays so.
    const plain = await headed({ 'x-plain': 'abc' });
    expect(plain.json().errors).toEqual([
      { field: 'x-plain', message: 'must NOT have more than 2 characters' },
    ]);
    // A required header that is absent is named as declared, and "is required".
    const absent = await app.inject({ url: '/headed' });
    expect(absent.json().errors).toEqual([{ field: 'Must-Send', message: 'is required' }]);
    expect((await headed({ 'CALLER-REFERENCE': 'ABC' })).json()).toEqual({ reference: 'ABC' });
  });

  it('negotiate before the body is read: 406 in the dialect naming what is served', async () => {
    const refused = await app.inject({ url: '/notes/1', headers: { accept: 'application/xml' } });
    expect(refused.statusCode).toBe(406);
    expect(refused.json().errors[0].field).toBe('Accept');
    expect(refused.json().detail).toContain('application/json, text/plain');
    const plain = await app.inject({ url: '/notes/1', headers: { accept: 'text/plain' } });
    expect(plain.headers['content-type']).toMatch(/^text\/plain/);
    // A write refused by its Accept before its (invalid) body was looked at.
    const write = await put('/notes/1', { nonsense: true }, { accept: 'text/csv' });
    expect(write.statusCode).toBe(406);
  });

  it('an operation declared lenient answers an Accept it cannot serve with its first type', async () => {
    const answer = await app.inject({ url: '/lenient', headers: { accept: 'application/xml' } });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ chosen: 'application/json' });
    const csv = await app.inject({ url: '/lenient', headers: { accept: 'text/csv' } });
    expect(csv.json()).toEqual({ chosen: 'text/csv' });
  });

  it('reads carry ETag and Last-Modified and answer 304 with an empty body', async () => {
    const read = await app.inject({ url: '/notes/1' });
    expect(read.headers.etag).toBe(validators().etag);
    expect(read.headers['last-modified']).toBe(note.modified.toUTCString());
    const byTag = await app.inject({
      url: '/notes/1',
      headers: { 'if-none-match': String(read.headers.etag) },
    });
    expect(byTag.statusCode).toBe(304);
    expect(byTag.body).toBe('');
    const byDate = await app.inject({
      url: '/notes/1',
      headers: { 'if-modified-since': String(read.headers['last-modified']) },
    });
    expect(byDate.statusCode).toBe(304);
    expect(byDate.body).toBe('');
    const older = new Date(note.modified.getTime() - 1000).toUTCString();
    expect((await app.inject({ url: '/notes/1', headers: { 'if-modified-since': older } })).statusCode).toBe(
      200,
    );
  });

  it('writes honour If-Match and If-Unmodified-Since: 412 and nothing written', async () => {
    const before = { ...note };
    const stale = await put('/notes/1', { text: 'second' }, { 'if-match': '"stale"' });
    expect(stale.statusCode).toBe(412);
    const past = await put(
      '/notes/1',
      { text: 'second' },
      { 'if-unmodified-since': new Date('2000-01-01T00:00:00Z').toUTCString() },
    );
    expect(past.statusCode).toBe(412);
    expect(past.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(note).toEqual(before);
    const current = await put('/notes/1', { text: 'second' }, { 'if-match': validators().etag });
    expect(current.statusCode).toBe(200);
    expect(note.text).toBe('second');
  });

  it('a precondition declared mandatory is 428 when absent; one not honoured is ignored', async () => {
    const missing = await put('/strict/1', { text: 'x' });
    expect(missing.statusCode).toBe(428);
    expect(missing.json().errors[0].field).toBe('If-Match');
    const ignored = await put(
      '/strict/1',
      { text: 'x' },
      { 'if-match': validators().etag, 'if-unmodified-since': new Date(0).toUTCString() },
    );
    expect(ignored.statusCode).toBe(200);
  });

  it('a conditional write that never checked its preconditions is logged as our fault', async () => {
    errors.length = 0;
    expect((await put('/forgetful', {})).statusCode).toBe(200);
    expect(errors.join('')).toContain('without checking its preconditions');
  });
});

describe('preconditions an operation takes without HTTP', () => {
  it('noPreconditions lets a write of the register’s own tools through, whatever it stands at', async () => {
    expect(() => noPreconditions(validators())).not.toThrow();
    expect(() => noPreconditions(undefined)).not.toThrow();
  });
});
