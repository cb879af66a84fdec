import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, type DiscloseGateway, discloseGateway, NOW } from './support/api.ts';
import { registerAsSeeded } from './support/companies.ts';
import { pdfLines } from './support/pdf-text.ts';
import { linkOf, type Outside, outside } from './support/reading.ts';

// The regulator's notices as resources, from outside over HTTP at the published address.
let d: DiscloseGateway;
let get: Outside['get'];
let allItems: Outside['allItems'];
beforeAll(async () => {
  d = await discloseGateway({ schemes: 3, standaloneOffers: 2 });
  ({ get, allItems } = await outside(d));
}, 120_000);
afterAll(() => d?.close());

const register = registerAsSeeded(3, 2, NOW);

type NoticeItem = {
  noticeRecId: string;
  noticeType: string;
  noticeDate: string;
  summary: string;
  documentCount: number;
  href: string;
};

function expectNotFound(response: LightMyRequestResponse, field: string) {
  expect(response.statusCode).toBe(404);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(response.json().type).toBe('about:blank#not-found');
  expect(response.json().errors).toEqual([{ field, message: expect.any(String) }]);
}

describe('the regulator’s notices on a scheme', () => {
  it('are linked from the scheme with their count, listed newest first and paged', async () => {
    const scheme = (await get('/scheme/SCH10000')).json();
    const link = linkOf(scheme, 'fma-notices');
    expect(link).toEqual({ rel: 'fma-notices', href: `${BASE}/scheme/SCH10000/fma-notices`, count: 3 });
    const first = await get(`${link!.href}?page-size=2`);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ page: 1, pageSize: 2, totalItems: 3, totalPages: 2 });
    expect(first.json().items).toHaveLength(2);
    expect(linkOf(first.json(), 'next')?.href).toBe(`${BASE}/scheme/SCH10000/fma-notices?page=2&page-size=2`);
    const items = await allItems<NoticeItem>(`${link!.href}?page-size=2`);
    expect(items).toHaveLength(3);
    const dates = items.map((n) => n.noticeDate);
    expect([...dates].sort().reverse()).toEqual(dates);
    // The notices the seed made, with the documents that name them.
    const generated = register.schemes[0]!.notices;
    expect(new Set(items.map((n) => n.noticeRecId))).toEqual(new Set(generated.map((n) => n.noticeRecId)));
    for (const item of items) {
      const made = generated.find((n) => n.noticeRecId === item.noticeRecId)!;
      expect(item).toMatchObject({ noticeType: made.noticeType, summary: made.summary });
      expect(item.noticeDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(item.href).toBe(`${BASE}/scheme/SCH10000/fma-notice/${item.noticeRecId}`);
      const documents = register.schemes[0]!.documents.filter((doc) => doc.noticeRecId === item.noticeRecId);
      expect(item.documentCount).toBe(documents.length);
    }
    expect(items.map((n) => n.documentCount).sort((a, b) => a - b)).toEqual([1, 2, 11]);
  });

  it('one notice: its type, date, summary, first 10 documents and links that resolve', async () => {
    const items = await allItems<NoticeItem>('/scheme/SCH10000/fma-notices');
    const item = items.find((n) => n.documentCount === 11)!;
    const response = await get(item.href);
    expect(response.statusCode, response.body).toBe(200);
    const notice = response.json();
    expect(notice).toMatchObject({
      noticeRecId: item.noticeRecId,
      noticeType: item.noticeType,
      noticeDate: item.noticeDate,
      summary: item.summary,
      offerNumber: null,
      schemeNumber: 'SCH10000',
    });
    expect(notice.registerUrl).toMatch(/\/online-register\/scheme\/SCH10000$/);
    expect(notice.documents).toHaveLength(10);
    // Its documents: all of them at the published list's path, each naming the notice.
    const documents = linkOf(notice, 'documents')!;
    expect(documents).toEqual({
      rel: 'documents',
      href: `${BASE}/scheme/SCH10000/fma-notice/${item.noticeRecId}/financial-markets-authority-notice-documents`,
      count: 11,
    });
    const all = await allItems<{ documentRecId: string; noticeRecId: string; documentType: string }>(
      `${documents.href}?page-size=4`,
    );
    expect(all).toHaveLength(11);
    for (const document of all) {
      expect(document.noticeRecId).toBe(item.noticeRecId);
      expect(document.documentType).toBe('financial-markets-authority-notice-documents');
    }
    expect(notice.documents).toEqual(all.slice(0, 10));
    // The record and the list link back.
    expect(linkOf(notice, 'self')?.href).toBe(item.href);
    const scheme = await get(linkOf(notice, 'scheme')!.href);
    expect(scheme.json().schemeNumber).toBe('SCH10000');
    const list = await get(linkOf(notice, 'fma-notices')!.href);
    expect(list.json().totalItems).toBe(3);
  });

  it('each of a notice’s documents downloads as a PDF that names it', async () => {
    const [item] = await allItems<NoticeItem>('/scheme/SCH10000/fma-notices');
    const notice = (await get(item!.href)).json();
    for (const document of notice.documents as { href: string; title: string; contentType: string }[]) {
      expect(document.contentType).toBe('application/pdf');
      const redirect = await get(document.href);
      expect(redirect.statusCode).toBe(302);
      const url = new URL(String(redirect.headers.location));
      const file = await d.gateway.app.inject({ url: `${url.pathname}${url.search}` });
      expect(file.statusCode).toBe(200);
      expect(file.headers['content-type']).toBe('application/pdf');
      const text = file.rawPayload.toString('latin1');
      expect(text.startsWith('%PDF-')).toBe(true);
      expect(text.trimEnd().endsWith('%%EOF')).toBe(true);
      const lines = pdfLines(file.rawPayload);
      expect(lines[0]).toBe(document.title);
      expect(lines).toContain(`${notice.noticeType} (${notice.noticeRecId})`);
    }
  });
});

describe('the regulator’s notices on an offer', () => {
  it('are linked from the offer and read as on a scheme', async () => {
    const offer = (await get('/offer/OFR10003')).json();
    const link = linkOf(offer, 'fma-notices');
    expect(link).toEqual({ rel: 'fma-notices', href: `${BASE}/offer/OFR10003/fma-notices`, count: 2 });
    const items = await allItems<NoticeItem>(`${link!.href}?page-size=1`);
    expect(items.map((n) => n.noticeRecId).sort()).toEqual(
      register.offers[2]!.notices.map((n) => n.noticeRecId).sort(),
    );
    const notice = (await get(items[0]!.href)).json();
    expect(notice).toMatchObject({ offerNumber: 'OFR10003', schemeNumber: null });
    expect(notice.documents).toHaveLength(items[0]!.documentCount);
    expect((await get(linkOf(notice, 'offer')!.href)).json().offerNumber).toBe('OFR10003');
    // The offer's documents hold the notices' documents too, each naming its notice.
    const all = await allItems<{ noticeRecId: string | null }>(linkOf(offer, 'documents')!.href);
    const ofNotices = all.filter((doc) => doc.noticeRecId !== null);
    expect(ofNotices).toHaveLength(items.reduce((n, i) => n + i.documentCount, 0));
  });

  it('an offer without notices lists none', async () => {
    const offer = (await get('/offer/OFR10001')).json();
    expect(linkOf(offer, 'fma-notices')?.count).toBe(0);
    const list = await get('/offer/OFR10001/fma-notices');
    expect(list.statusCode).toBe(200);
    expect(list.json()).toMatchObject({ totalItems: 0, totalPages: 1, items: [] });
  });
});

describe('what is not there', () => {
  it('is 404 in the register’s dialect, naming the parameter', async () => {
    const schemeNotice = register.schemes[0]!.notices[0]!.noticeRecId;
    expectNotFound(await get('/scheme/SCH10000/fma-notice/DOC999999'), 'noticeRecId');
    expectNotFound(await get('/scheme/SCH10000/fma-notice/not-a-notice'), 'noticeRecId');
    // A notice of another record, and a document's id that is no notice.
    expectNotFound(await get(`/offer/OFR10001/fma-notice/${schemeNotice}`), 'noticeRecId');
    expectNotFound(await get(`/scheme/SCH10001/fma-notice/${schemeNotice}`), 'noticeRecId');
    const document = register.schemes[0]!.documents[0]!.documentRecId;
    expectNotFound(await get(`/scheme/SCH10000/fma-notice/${document}`), 'noticeRecId');
    // The published list of a notice's documents: a notice the record does not have is not there.
    expectNotFound(
      await get('/scheme/SCH10000/fma-notice/DOC999999/financial-markets-authority-notice-documents'),
      'noticeRecId',
    );
    expectNotFound(
      await get(`/offer/OFR10003/fma-notice/${schemeNotice}/financial-markets-authority-notice-documents`),
      'noticeRecId',
    );
    // Records that are not on the register.
    expectNotFound(await get('/offer/OFR99999/fma-notices'), 'offerNumber');
    expectNotFound(await get(`/offer/OFR99999/fma-notice/${schemeNotice}`), 'offerNumber');
    expectNotFound(await get('/scheme/SCH99999/fma-notices'), 'schemeNumber');
    expectNotFound(await get('/scheme/SCH1/fma-notice/DOC100013'), 'schemeNumber');
  });

  it('a page that cannot be one is 400 naming its parameter', async () => {
    for (const [query, field] of [
      ['page=0', 'page'],
      ['page-size=101', 'page-size'],
      ['page=first', 'page'],
    ] as const) {
      const response = await get(`/scheme/SCH10000/fma-notices?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().type).toBe('about:blank#invalid-parameter');
      expect(response.json().errors[0].field, query).toBe(field);
    }
  });

  it('notices are not written through the API: no operation takes a write at their paths', async () => {
    const notice = register.schemes[0]!.notices[0]!.noticeRecId;
    for (const [method, url] of [
      ['PUT', `/scheme/SCH10000/fma-notice/${notice}`],
      ['DELETE', `/scheme/SCH10000/fma-notice/${notice}`],
      ['POST', '/scheme/SCH10000/fma-notices'],
      ['POST', '/offer/OFR10003/fma-notices'],
    ] as const) {
      const response = await d.call(method, url, { body: { noticeType: 'Stop order' } });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.json()).toMatchObject({ statusCode: 404 });
    }
    const document = (await d.gateway.app.inject({ url: `${BASE}/openapi.json` })).json();
    for (const path of [
      '/scheme/{schemeNumber}/fma-notice/{noticeRecId}',
      '/scheme/{schemeNumber}/fma-notices',
      '/offer/{offerNumber}/fma-notice/{noticeRecId}',
      '/offer/{offerNumber}/fma-notices',
    ]) {
      expect(Object.keys(document.paths[path]), path).toEqual(['get']);
    }
  });
});

describe('the OpenAPI document', () => {
  it('marks the notices’ operations as ours, not the published list of their documents', async () => {
    const document = (await d.gateway.app.inject({ url: `${BASE}/openapi.json` })).json();
    for (const subject of ['offer', 'scheme']) {
      const param = `{${subject}Number}`;
      for (const path of [
        `/${subject}/${param}/fma-notices`,
        `/${subject}/${param}/fma-notice/{noticeRecId}`,
      ]) {
        const operation = document.paths[path].get;
        expect(operation['x-ours'], path).toBe(true);
        expect(operation.summary, path).toMatch(/\(ours\)$/);
      }
      const published =
        document.paths[
          `/${subject}/${param}/fma-notice/{noticeRecId}/financial-markets-authority-notice-documents`
        ].get;
      expect(published['x-ours']).toBeUndefined();
    }
    // The examples are the fixed cases' notices, so the reference's try-it answers.
    const example = (path: string, name: string) => {
      const parameter = document.paths[path].get.parameters.find((p: { name: string }) => p.name === name);
      return parameter.example ?? parameter.schema?.examples?.[0];
    };
    expect(example('/offer/{offerNumber}/fma-notice/{noticeRecId}', 'offerNumber')).toBe('OFR10003');
    expect(example('/offer/{offerNumber}/fma-notice/{noticeRecId}', 'noticeRecId')).toBe(
      register.offers[2]!.notices[0]!.noticeRecId,
    );
    expect(example('/scheme/{schemeNumber}/fma-notice/{noticeRecId}', 'noticeRecId')).toBe(
      register.schemes[0]!.notices[0]!.noticeRecId,
    );
  });
});
