import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenApi } from '../../support/openapi.ts';
import { BASE, type DiscloseGateway, discloseGateway } from './support/api.ts';

let d: DiscloseGateway;
let api: OpenApi;
beforeAll(async () => {
  d = await discloseGateway();
  api = await OpenApi.fetch(d.gateway.app, BASE);
}, 120_000);
afterAll(() => d?.close());

const get = async (url: string, headers: Record<string, string> = {}) => {
  const response = await d.get(url, headers);
  api.conformsUrl('GET', `${BASE}${url}`, response);
  return response;
};

describe('offers', () => {
  it('an offer with 11 participants and documents holds 10 of each, with links to all', async () => {
    const response = await get('/offer/OFR10001');
    expect(response.statusCode, response.body).toBe(200);
    const offer = response.json();
    expect(offer.offerNumber).toBe('OFR10001');
    expect(offer.participants).toHaveLength(10);
    expect(offer.documents).toHaveLength(10);
    expect(offer).not.toHaveProperty('funds');
    expect(offer).not.toHaveProperty('filingHistory');
    const link = (rel: string) => offer.links.find((l: { rel: string }) => l.rel === rel);
    expect(link('participants')).toEqual({
      rel: 'participants',
      href: `${BASE}/offer/OFR10001/participants`,
      count: 11,
    });
    expect(link('documents').count).toBe(11);
    expect(link('funds')).toEqual({ rel: 'funds', href: `${BASE}/offer/OFR10001/funds`, count: 11 });
    expect(link('filing-history').href).toBe(`${BASE}/offer/OFR10001/filing-history`);
    expect(offer.registerUrl).toMatch(
      /^http:\/\/[^/]+\/sandbox\/companies-office\/disclose-register\/v1\/online-register\/offer\/OFR10001$/,
    );
    const all = (await get('/offer/OFR10001/participants?page-size=100')).json();
    expect(all.items).toHaveLength(11);
    expect(all.totalItems).toBe(11);
    const funds = (await get('/offer/OFR10001/funds?page-size=5')).json();
    expect(funds.totalItems).toBe(11);
    expect(funds.items).toHaveLength(5);
    expect(funds.links.map((l: { rel: string }) => l.rel)).toEqual(['self', 'next']);
  });

  it('an offer with exactly 10 participants and documents holds them all', async () => {
    const offer = (await get('/offer/OFR10002')).json();
    expect(offer.participants).toHaveLength(10);
    expect(offer.documents).toHaveLength(10);
    expect(offer.links.find((l: { rel: string }) => l.rel === 'participants').count).toBe(10);
  });

  it('a historic version is readable and differs in its version identifier', async () => {
    const current = (await get('/offer/OFR10001')).json();
    expect(current.versions.length).toBeGreaterThan(1);
    expect(current.versionId).toBe(current.currentVersionId);
    const first = await get('/offer/OFR10001?version=OFR10001-v1');
    expect(first.statusCode).toBe(200);
    expect(first.json().versionId).toBe('OFR10001-v1');
    expect((await get('/offer/OFR10001?version=OFR10001-v99')).statusCode).toBe(404);
    const wrong = await get('/offer/OFR10001?version=OFR10002-v1');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().errors[0].field).toBe('version');
    // Longer than any version identifier, or given twice: refused by the schema, naming version.
    for (const query of [`version=OFR10001-v${'1'.repeat(30)}`, 'version=OFR10001-v1&version=OFR10001-v2']) {
      for (const path of [`/offer/OFR10001?${query}`, `/fund/FND10001?${query}`]) {
        const refused = await get(path);
        expect(refused.statusCode, path).toBe(400);
        expect(refused.json().errors[0].field, path).toBe('version');
      }
    }
  });

  it('searches by criteria and pages', async () => {
    const all = (await get('/offers?page-size=3')).json();
    expect(all.items).toHaveLength(3);
    expect(all.totalItems).toBeGreaterThan(3);
    const one = (await get('/offers?name-or-number=ofr10002')).json();
    expect(one.items.map((i: { number: string }) => i.number)).toEqual(['OFR10002']);
    expect((await get('/offers?colour=red')).statusCode).toBe(400);
    const badPage = await get('/offers?page=first');
    expect(badPage.statusCode).toBe(400);
    expect(badPage.json().errors[0].field).toBe('page');
    const schemes = (await get('/schemes?scheme-type=KiwiSaver%20scheme')).json();
    expect(schemes.items.every((s: { type: string }) => s.type === 'KiwiSaver scheme')).toBe(true);
  });
});

describe('new or changed', () => {
  it('takes both spellings and refuses both when they differ', async () => {
    const published = await get('/new-or-changed-offers?start-date=2000-01-01&end-date=2026-05-20');
    expect(published.statusCode, published.body).toBe(200);
    const spec = await get('/new-or-changed-offers?startDate=2000-01-01&endDate=2026-05-20');
    expect(spec.json().totalItems).toBe(published.json().totalItems);
    // Every offer of the register changed in the range.
    expect(published.json().totalItems).toBe((await get('/offers')).json().totalItems);
    expect(published.json().totalItems).toBeGreaterThanOrEqual(12);
    const differ = await get(
      '/new-or-changed-offers?start-date=2000-01-01&startDate=2001-01-01&end-date=2026-05-20',
    );
    expect(differ.statusCode).toBe(400);
    expect(differ.json().errors[0].field).toBe('start-date');
    expect((await get('/new-or-changed-schemes?start-date=2026-05-21&end-date=2026-05-20')).statusCode).toBe(
      400,
    );
    expect((await get('/new-or-changed-schemes')).statusCode).toBe(400);
  });
});

describe('funds', () => {
  it('a fund answers the same on both paths, with its holdings cut to 10, and historic data for an offer version', async () => {
    const a = await get('/offer/OFR10001/fund/FND10001');
    const b = await get('/fund/FND10001');
    expect(a.statusCode, a.body).toBe(200);
    expect(a.json()).toEqual(b.json());
    expect(a.headers.etag).toBe(b.headers.etag);
    const fund = a.json();
    expect(fund.holdings.length).toBe(10);
    expect(fund.links.find((l: { rel: string }) => l.rel === 'holdings').count).toBeGreaterThan(10);
    const old = await get('/fund/FND10001?version=OFR10001-v1');
    expect(old.statusCode, old.body).toBe(200);
    expect(old.json().offerVersionId).toBe('OFR10001-v1');
    expect(old.json().versionId).toBe('FND10001-v1');
    expect((await get('/offer/OFR10002/fund/FND10001')).statusCode).toBe(404);
  });
});

describe('conditional requests', () => {
  it('If-None-Match → 304, If-Match stale → 412, If-Modified-Since → 304', async () => {
    const first = await get('/scheme/SCH10000');
    expect(first.statusCode).toBe(200);
    const etag = first.headers.etag as string;
    expect((await get('/scheme/SCH10000', { 'if-none-match': etag })).statusCode).toBe(304);
    expect((await get('/scheme/SCH10000', { 'if-match': '"stale"' })).statusCode).toBe(412);
    expect((await get('/scheme/SCH10000', { 'if-match': etag })).statusCode).toBe(200);
    const modified = first.headers['last-modified'] as string;
    expect((await get('/scheme/SCH10000', { 'if-modified-since': modified })).statusCode).toBe(304);
    expect(
      (await get('/scheme/SCH10000', { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' })).statusCode,
    ).toBe(412);
  });
});

describe('x-organisation', () => {
  it('absent → 400; an organisation the caller is not in → 403', async () => {
    const absent = await d.call('GET', '/offers', { organisation: null });
    expect(absent.statusCode).toBe(400);
    expect(absent.json().type).toBe('about:blank#organisation-required');
    const foreign = await d.call('GET', '/offers', { organisation: 'not-mine' });
    expect(foreign.statusCode).toBe(403);
  });
});

describe('the OpenAPI document', () => {
  it('lists the published operations, the register’s error codes, and not the public routes', async () => {
    const response = await d.gateway.app.inject({ method: 'GET', url: `${BASE}/openapi.json` });
    const document = response.json();
    expect(document.openapi).toBe('3.1.0');
    const paths = Object.keys(document.paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/offers',
        '/schemes',
        '/offer/{offerNumber}',
        '/scheme/{schemeNumber}',
        '/fund/{fundNumber}',
        '/offer/{offerNumber}/fund/{fundNumber}',
        '/offer/{offerNumber}/funds',
        '/new-or-changed-offers',
        '/new-or-changed-schemes',
        '/activities',
        '/offer/{offerNumber}/fund/{fundNumber}/submit-fund-compliance',
        '/offer/{offerNumber}/fund/{fundNumber}/submit-fph-compliance',
        '/scheme/{schemeNumber}/governing-documents',
        '/fund/{fundNumber}/fund-update-document',
      ]),
    );
    expect(paths.some((p) => p.startsWith('/online-register') || p.startsWith('/files'))).toBe(false);
    const codes = (document['x-error-codes'] as { code: string }[]).map((c) => c.code);
    expect(codes).toEqual(
      expect.arrayContaining([
        'organisation-required',
        'no-fund-authority',
        'period-already-filed',
        'precondition-required',
        'signature-refused',
      ]),
    );
    // The query parameters are typed, as they are validated: paging under the register's names and bounds.
    const parameter = (path: string, name: string) =>
      document.paths[path].get.parameters.find((p: { name: string }) => p.name === name)?.schema;
    expect(parameter('/offers', 'page')).toMatchObject({ type: 'integer', minimum: 1 });
    expect(parameter('/offer/{offerNumber}/documents', 'page-size')).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
    });
    expect(parameter('/new-or-changed-offers', 'start-date')).toMatchObject({
      type: 'string',
      pattern: expect.any(String),
    });
    // Every operation documents its answers (the answers themselves are checked against them in every
    // test of this folder, through the harness's conformsUrl).
    for (const operation of api.operations()) {
      const documented = document.paths[operation.path][operation.method.toLowerCase()];
      expect(Object.keys(documented.responses).length, operation.id).toBeGreaterThan(0);
    }
  });
});
