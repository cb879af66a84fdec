import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nzDate } from '../../../src/platform/calendar.ts';
import { BASE, type DiscloseGateway, discloseGateway, NOW } from './support/api.ts';
import { registerAsSeeded } from './support/companies.ts';
import { pdfLines } from './support/pdf-text.ts';
import { linkOf, type Outside, outside } from './support/reading.ts';

// From a scheme to its offers and back, and every kind of an offer's documents downloaded, from outside
// over HTTP at the published address.
let d: DiscloseGateway;
let get: Outside['get'];
let allItems: Outside['allItems'];
beforeAll(async () => {
  d = await discloseGateway({ schemes: 3, standaloneOffers: 2 });
  ({ get, allItems } = await outside(d));
}, 120_000);
afterAll(() => d?.close());

const register = registerAsSeeded(3, 2, NOW);

/** A document's bytes as a client gets them: the 302, then the signed URL without the key. */
async function download(href: string) {
  const redirect = await get(href);
  expect(redirect.statusCode, href).toBe(302);
  const url = new URL(String(redirect.headers.location));
  return d.gateway.app.inject({ url: `${url.pathname}${url.search}` });
}

describe('a scheme’s offers', () => {
  it('are linked from the scheme, paged in number order, and each offer links back', async () => {
    const scheme = (await get('/scheme/SCH10000')).json();
    const expected = register.offers.filter((o) => o.schemeNumber === 'SCH10000').map((o) => o.offerNumber);
    expect(expected.length).toBe(3);
    const link = linkOf(scheme, 'offers');
    expect(link).toEqual({ rel: 'offers', href: `${BASE}/scheme/SCH10000/offers`, count: 3 });
    const first = (await get(`${link!.href}?page-size=2`)).json();
    expect(first).toMatchObject({ page: 1, pageSize: 2, totalItems: 3, totalPages: 2 });
    expect(linkOf(first, 'next')?.href).toBe(`${BASE}/scheme/SCH10000/offers?page=2&page-size=2`);
    const second = (await get(linkOf(first, 'next')!.href)).json();
    expect(second.items).toHaveLength(1);
    expect(linkOf(second, 'prev')?.href).toBe(`${BASE}/scheme/SCH10000/offers?page=1&page-size=2`);
    const items = [...first.items, ...second.items] as {
      number: string;
      href: string;
      registerUrl: string;
    }[];
    expect(items.map((i) => i.number)).toEqual([...expected].sort());
    for (const item of items) {
      expect(item.href).toBe(`${BASE}/offer/${item.number}`);
      expect(item.registerUrl).toMatch(new RegExp(`/online-register/offer/${item.number}$`));
      const offer = (await get(item.href)).json();
      expect(offer.schemeNumber).toBe('SCH10000');
      expect(linkOf(offer, 'scheme')?.href).toBe(`${BASE}/scheme/SCH10000`);
      expect((await get(linkOf(offer, 'scheme')!.href)).json().schemeNumber).toBe('SCH10000');
    }
    // The same items as a search of offers names them.
    const searched = (await get('/offers?name-or-number=OFR10001')).json().items[0];
    expect(items[0]).toEqual(searched);
  });

  it('a scheme with one offer lists it; an offer outside a scheme links to none', async () => {
    const list = (await get('/scheme/SCH10001/offers')).json();
    expect(list.items.map((i: { number: string }) => i.number)).toEqual(['OFR10002']);
    const standalone = register.offers.find((o) => o.schemeNumber === null)!;
    const offer = (await get(`/offer/${standalone.offerNumber}`)).json();
    expect(linkOf(offer, 'scheme')).toBeUndefined();
  });

  it('a scheme not on the register is 404 naming schemeNumber; a page past the last is empty', async () => {
    for (const url of ['/scheme/SCH99999/offers', '/scheme/OFR10001/offers']) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(404);
      expect(response.json().type).toBe('about:blank#not-found');
      expect(response.json().errors[0].field).toBe('schemeNumber');
    }
    const past = (await get('/scheme/SCH10000/offers?page=9')).json();
    expect(past.items).toEqual([]);
    expect((await get('/scheme/SCH10000/offers?page-size=101')).statusCode).toBe(400);
  });

  it('is marked as ours in the OpenAPI document', async () => {
    const document = (await d.gateway.app.inject({ url: `${BASE}/openapi.json` })).json();
    const operation = document.paths['/scheme/{schemeNumber}/offers'].get;
    expect(operation['x-ours']).toBe(true);
    expect(operation.summary).toMatch(/\(ours\)$/);
  });
});

/** What each kind of an offer's documents says, as the PDF's text lines show it. */
const SAYS: Readonly<Record<string, readonly string[]>> = {
  'product-disclosure-statements': ['Key information summary', 'The offer', 'OFR10001'],
  'register-entries': ['Register entry', 'Participants', 'OFR10001'],
  'statements-of-investment-policy-and-objectives': ['Investment objectives', 'Monitoring and review'],
  'other-material-information': ['Material contracts', 'Related-party transactions'],
  'financial-statements': ['Total assets', 'Net assets', 'Profit for the year'],
};

describe('an offer’s documents', () => {
  it('hold every kind a real offer lodges, each downloadable as a PDF that says what its kind says', async () => {
    const offer = (await get('/offer/OFR10001')).json();
    const all = await allItems<{
      documentRecId: string;
      documentType: string;
      title: string;
      contentType: string;
      sizeBytes: number;
      addedDate: string;
      href: string;
    }>(`${linkOf(offer, 'documents')!.href}?page-size=4`);
    expect(all).toHaveLength(11);
    expect(new Set(all.map((doc) => doc.documentType))).toEqual(new Set(Object.keys(SAYS)));
    for (const document of all) {
      expect(document.href).toBe(`${BASE}/offer/OFR10001/${document.documentType}/${document.documentRecId}`);
      const file = await download(document.href);
      expect(file.statusCode, document.href).toBe(200);
      expect(file.headers['content-type']).toBe(document.contentType);
      expect(document.contentType).toBe('application/pdf');
      expect(file.rawPayload.length).toBe(document.sizeBytes);
      const bytes = file.rawPayload;
      expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(bytes.toString('latin1').trimEnd().endsWith('%%EOF')).toBe(true);
      const lines = pdfLines(bytes);
      expect(lines[0], document.documentRecId).toBe(document.title);
      const lodged = nzDate(Date.parse(document.addedDate));
      expect(lines).toContain(`Document ${document.documentRecId}, lodged ${lodged}.`);
      for (const text of SAYS[document.documentType]!) {
        expect(lines.join('\n'), `${document.documentType} says ${text}`).toContain(text);
      }
    }
  });

  it('a document of a kind the offer has, asked under another kind or offer, is 404', async () => {
    const [statement] = await allItems<{ documentRecId: string; documentType: string }>(
      '/offer/OFR10001/documents?page-size=20',
    );
    const other =
      statement!.documentType === 'register-entries' ? 'financial-statements' : 'register-entries';
    for (const url of [
      `/offer/OFR10001/${other}/${statement!.documentRecId}`,
      `/offer/OFR10002/${statement!.documentType}/${statement!.documentRecId}`,
    ]) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(404);
      expect(response.json().errors[0].field).toBe('documentRecId');
    }
  });

  it('the fund update document is a PDF of the fund’s last update', async () => {
    const file = await download('/fund/FND10002/fund-update-document');
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('application/pdf');
    const fund = (await get('/fund/FND10002')).json();
    const text = pdfLines(file.rawPayload).join('\n');
    expect(text).toContain(`Fund update: ${fund.name}`);
    expect(text).toContain('Actual asset allocation');
  });
});
