import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestGateway, testGateway } from '../support/runtime.ts';

/**
 * What the router refuses before any route runs still answers in the addressed API's dialect, naming
 * the path: a path that is not valid percent-encoding (400), a path segment too long to be a
 * parameter (414).
 */
let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway();
});
afterAll(() => gateway?.close());

const get = (url: string) => gateway.app.inject({ method: 'GET', url });

describe('router refusals', () => {
  it('broken percent-encoding: 400 in the business number register’s body', async () => {
    for (const url of ['/sandbox/nzbn/v5/entities/%ZZ', '/gateway/nzbn/v5/entities/%E0%A4%A']) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(400);
      expect(response.headers['api-business-govt-nz-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.json()).toMatchObject({
        status: '400',
        errorCode: 'invalid-parameter',
        list: [{ field: 'path', message: expect.stringContaining('percent-encoding') }],
      });
    }
  });

  it('broken percent-encoding: problem+json for rental statistics and outside every service', async () => {
    for (const url of [
      '/sandbox/tenancy-services/market-rent/v2/area-definitions/%ZZ',
      '/no-such-thing/%ZZ',
    ]) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(400);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.json()).toMatchObject({ status: 400, errors: [{ field: 'path' }] });
    }
  });

  it('a path segment longer than 500 characters: 414 in the API’s dialect; up to 500 reaches the route', async () => {
    const long = await get(`/sandbox/tenancy-services/market-rent/v2/area-definitions/${'a'.repeat(501)}`);
    expect(long.statusCode).toBe(414);
    expect(long.json()).toMatchObject({ status: 414, title: 'URI Too Long', errors: [{ field: 'path' }] });
    const nzbn = await get(`/sandbox/nzbn/v5/entities/${'9'.repeat(501)}`);
    expect(nzbn.statusCode).toBe(414);
    expect(nzbn.json()).toMatchObject({ status: '414', list: [{ field: 'path' }] });
    // 500 characters reach the service (here: its key check, as no key is sent).
    const fits = await get(`/sandbox/nzbn/v5/entities/${'9'.repeat(500)}`);
    expect(fits.statusCode).toBe(401);
  });

  it("a path that names no operation is a 404 whatever its query holds (the text checks are the operations')", async () => {
    for (const url of [
      '/no-such-path?x=%FF',
      '/sandbox/nzbn/v5/no-such-operation?x=%FF',
      '/no-such-path?x=a%00b',
    ]) {
      expect((await get(url)).statusCode, url).toBe(404);
    }
    // The same query on an operation is refused, naming the parameter.
    const refused = await get('/sandbox/nzbn/v5/entities?search-term=a%00b');
    expect(refused.statusCode).toBe(401); // no key: the guard answers first
  });
});
