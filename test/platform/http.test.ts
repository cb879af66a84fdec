import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answeredConditionally,
  evaluatePreconditions,
  strongEtag,
} from '../../src/platform/http/conditional.ts';
import { PLATFORM_ERRORS } from '../../src/platform/http/error-codes.ts';
import { HttpError, installErrorHandling, render } from '../../src/platform/http/errors.ts';
import { negotiate } from '../../src/platform/http/negotiate.ts';
import { parsePage } from '../../src/platform/http/pagination.ts';

/** A test route that keeps one item and honours the conditional-request table. */
let app: FastifyInstance;
let item = { name: 'first', version: 1 };
let modified = new Date('2026-11-01T10:00:00.000Z');
const etag = () => strongEtag(item);

beforeAll(async () => {
  app = Fastify();
  installErrorHandling(app);
  app.get('/item', async (request, reply) => {
    if (answeredConditionally(request, reply, { etag: etag(), lastModified: modified })) return reply;
    return item;
  });
  app.put('/item', async (request, reply) => {
    evaluatePreconditions(request, { etag: etag(), lastModified: modified });
    item = { name: String((request.body as { name: string }).name), version: item.version + 1 };
    modified = new Date(modified.getTime() + 60_000);
    reply.header('ETag', etag());
    return item;
  });
  app.get('/formats', async (request) => ({
    chosen: negotiate(request, ['application/json', 'text/csv', 'application/xml']),
  }));
  await app.ready();
});
afterAll(() => app.close());

const get = (headers: Record<string, string> = {}) => app.inject({ method: 'GET', url: '/item', headers });

describe('conditional requests', () => {
  it('sends a strong ETag and Last-Modified', async () => {
    const response = await get();
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toMatch(/^"[\w-]+"$/);
    expect(response.headers['last-modified']).toBe(modified.toUTCString());
  });

  it('If-None-Match with the current ETag → 304 with an empty body', async () => {
    const response = await get({ 'if-none-match': etag() });
    expect(response.statusCode).toBe(304);
    expect(response.body).toBe('');
    expect(response.headers.etag).toBe(etag());
  });

  it('If-None-Match: * and weak forms match too; a stale ETag gets the full item', async () => {
    expect((await get({ 'if-none-match': '*' })).statusCode).toBe(304);
    expect((await get({ 'if-none-match': `W/${etag()}` })).statusCode).toBe(304);
    expect((await get({ 'if-none-match': `"other", ${etag()}` })).statusCode).toBe(304);
    const stale = await get({ 'if-none-match': '"stale"' });
    expect(stale.statusCode).toBe(200);
    expect(stale.json()).toEqual(item);
  });

  it('If-Modified-Since → 304 when unchanged since, 200 when changed; ignored beside If-None-Match', async () => {
    expect((await get({ 'if-modified-since': modified.toUTCString() })).statusCode).toBe(304);
    expect(
      (await get({ 'if-modified-since': new Date(modified.getTime() + 5000).toUTCString() })).statusCode,
    ).toBe(304);
    expect(
      (await get({ 'if-modified-since': new Date(modified.getTime() - 1000).toUTCString() })).statusCode,
    ).toBe(200);
    expect((await get({ 'if-modified-since': 'not a date' })).statusCode).toBe(200);
    expect(
      (await get({ 'if-none-match': '"stale"', 'if-modified-since': modified.toUTCString() })).statusCode,
    ).toBe(200);
  });

  it('If-Match: the current ETag passes; another → 412', async () => {
    expect((await get({ 'if-match': etag() })).statusCode).toBe(200);
    const failed = await get({ 'if-match': '"stale"' });
    expect(failed.statusCode).toBe(412);
    expect(failed.json()).toMatchObject({ status: 412, title: 'Precondition Failed' });
    // If-Match uses the strong comparison: a weak tag never matches.
    expect((await get({ 'if-match': `W/${etag()}` })).statusCode).toBe(412);
  });

  it('If-Unmodified-Since → 412 when changed since, 200 otherwise', async () => {
    expect((await get({ 'if-unmodified-since': modified.toUTCString() })).statusCode).toBe(200);
    expect(
      (await get({ 'if-unmodified-since': new Date(modified.getTime() - 1000).toUTCString() })).statusCode,
    ).toBe(412);
  });

  it('an update changes the ETag, and a write with the old ETag is refused with 412', async () => {
    const before = etag();
    const updated = await app.inject({
      method: 'PUT',
      url: '/item',
      headers: { 'if-match': before },
      payload: { name: 'second' },
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.headers.etag).not.toBe(before);
    const lost = await app.inject({
      method: 'PUT',
      url: '/item',
      headers: { 'if-match': before },
      payload: { name: 'third' },
    });
    expect(lost.statusCode).toBe(412);
    expect(item.name).toBe('second');
    // If-None-Match on a write that matches is a failed precondition, not a 304.
    const create = await app.inject({
      method: 'PUT',
      url: '/item',
      headers: { 'if-none-match': '*' },
      payload: { name: 'x' },
    });
    expect(create.statusCode).toBe(412);
  });
});

describe('content negotiation', () => {
  const format = (accept?: string) =>
    app.inject({ method: 'GET', url: '/formats', headers: accept ? { accept } : {} });

  it.each([
    [undefined, 'application/json'],
    ['*/*', 'application/json'],
    ['text/csv', 'text/csv'],
    ['text/*', 'text/csv'],
    ['application/xml;q=0.9, text/csv;q=0.5', 'application/xml'],
    ['application/json;q=0.1, text/csv', 'text/csv'],
    ['text/html, */*;q=0.1', 'application/json'],
  ])('Accept %s → %s', async (accept, chosen) => {
    const response = await format(accept);
    expect(response.statusCode).toBe(200);
    expect(response.json().chosen).toBe(chosen);
  });

  it.each(['text/html', 'application/pdf', 'text/csv;q=0'])(
    'Accept %s → 406 naming what is served',
    async (accept) => {
      const response = await format(accept);
      expect(response.statusCode).toBe(406);
      expect(response.json().detail).toContain('application/json, text/csv, application/xml');
    },
  );
});

describe('error dialects', () => {
  const error = new HttpError(PLATFORM_ERRORS.notFound, 'Object Not Found: no entity 9429000000000', [
    { field: 'nzbn', message: 'no such entity' },
  ]);

  it('API Management', () => {
    expect(JSON.parse(render('apim', error).body)).toEqual({
      statusCode: 404,
      message: 'Object Not Found: no entity 9429000000000',
    });
  });

  it('business number API', () => {
    expect(JSON.parse(render('nzbn', error).body)).toEqual({
      status: '404',
      errorCode: 'not-found',
      errorDescription: 'Object Not Found: no entity 9429000000000',
      list: [{ field: 'nzbn', message: 'no such entity' }],
    });
  });

  it('problem+json', () => {
    const rendered = render('problem', error, '/x');
    expect(rendered.contentType).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(rendered.body)).toEqual({
      type: 'about:blank#not-found',
      title: 'Not Found',
      status: 404,
      detail: 'Object Not Found: no entity 9429000000000',
      instance: '/x',
      errors: [{ field: 'nzbn', message: 'no such entity' }],
    });
  });

  it('SOAP fault, with markup escaped', () => {
    const rendered = render(
      'soap',
      new HttpError(PLATFORM_ERRORS.invalidParameter, 'Title <b> & more', [
        { field: 'Title', message: 'too long' },
      ]),
    );
    expect(rendered.contentType).toMatch(/^text\/xml/);
    expect(rendered.body).toContain('<faultcode>soap:Client</faultcode>');
    expect(rendered.body).toContain('<faultstring>Title &#60;b&#62; &#38; more</faultstring>');
    expect(rendered.body).toContain('<Field>Title</Field><Message>too long</Message>');
  });
});

describe('pagination', () => {
  const rules = { defaultSize: 10, maxSize: 50 };
  it('defaults, offsets and limits', () => {
    expect(parsePage({}, rules)).toEqual({ page: 0, pageSize: 10, offset: 0 });
    expect(parsePage({ page: '3', 'page-size': '50' }, rules)).toEqual({
      page: 3,
      pageSize: 50,
      offset: 150,
    });
    expect(parsePage({ page: '2' }, { ...rules, firstPage: 1 })).toEqual({
      page: 2,
      pageSize: 10,
      offset: 10,
    });
  });
  it.each([
    [{ 'page-size': '51' }, 'page-size: must be a whole number from 1 to 50'],
    [{ 'page-size': '0' }, 'page-size: must be a whole number from 1 to 50'],
    [{ page: '-1' }, 'page: must be a whole number from 0 to 1000000'],
    [{ page: 'x' }, 'page: must be a whole number from 0 to 1000000'],
  ])('%o is refused', (query, message) => {
    expect(() => parsePage(query, rules)).toThrow(message);
  });
});
