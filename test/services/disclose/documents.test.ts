import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setClock } from '../../../src/platform/environment-clocks.ts';
import { SIGNED_URL_SECONDS } from '../../../src/services/disclose/domain/records.ts';
import {
  folderDocumentFiles,
  MAX_DOCUMENT_BYTES,
} from '../../../src/services/disclose/store/document-files.ts';
import { OpenApi } from '../../support/openapi.ts';
import { BASE, type DiscloseGateway, discloseGateway, NOW } from './support/api.ts';

let d: DiscloseGateway;
let api: OpenApi;
beforeAll(async () => {
  d = await discloseGateway();
  api = await OpenApi.fetch(d.gateway.app, BASE);
}, 120_000);
afterAll(() => d?.close());

const location = (response: { headers: Record<string, unknown> }) =>
  new URL(String(response.headers.location));
const fetchSigned = (url: URL) =>
  d.gateway.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });

async function firstGoverningDocument() {
  const list = await d.get('/scheme/SCH10000/governing-documents');
  api.conformsUrl('GET', `${BASE}/scheme/SCH10000/governing-documents`, list);
  return list.json().items[0] as { documentRecId: string; href: string };
}

describe('document downloads', () => {
  it('302 to a signed URL that serves the PDF without a key', async () => {
    const document = await firstGoverningDocument();
    expect(document.href).toBe(`${BASE}/scheme/SCH10000/governing-documents/${document.documentRecId}`);
    const redirect = await d.get(document.href.slice(BASE.length));
    api.conformsUrl('GET', document.href, redirect);
    expect(redirect.statusCode).toBe(302);
    const url = location(redirect);
    expect(url.pathname).toBe(`${BASE}/files/${document.documentRecId}`);
    // The sandbox clock runs on from NOW: the URL expires SIGNED_URL_SECONDS after the moment it was made.
    const made = Number(url.searchParams.get('expires')) - SIGNED_URL_SECONDS;
    expect(made).toBeGreaterThanOrEqual(Math.floor(Date.parse(NOW) / 1000));
    expect(made).toBeLessThan(Math.floor(Date.parse(NOW) / 1000) + 600);
    const file = await fetchSigned(url);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('application/pdf');
    expect(file.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('a tampered signature, path, caller or expiry → 403', async () => {
    const document = await firstGoverningDocument();
    const url = location(await d.get(document.href.slice(BASE.length)));
    const tampered = (change: (u: URL) => void) => {
      const copy = new URL(url);
      change(copy);
      return fetchSigned(copy);
    };
    for (const response of [
      // The last character changed to another one (replacing it by "A" does nothing when it is an "A").
      await tampered((u) => {
        const signature = u.searchParams.get('signature')!;
        u.searchParams.set('signature', `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`);
      }),
      await tampered((u) =>
        u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600)),
      ),
      await tampered((u) => u.searchParams.set('caller', 'someone-else')),
      await tampered((u) => {
        u.pathname = u.pathname.replace(document.documentRecId, 'DOC100002');
      }),
      await tampered((u) => u.searchParams.delete('signature')),
    ]) {
      expect(response.statusCode).toBe(403);
      expect(response.json().type).toBe('about:blank#signature-refused');
    }
  });

  it('the URL’s parts are typed: one of the wrong type or given twice is 400 naming it', async () => {
    const document = await firstGoverningDocument();
    const url = location(await d.get(document.href.slice(BASE.length)));
    const changed = (change: (u: URL) => void, headers: Record<string, string> = {}) => {
      const copy = new URL(url);
      change(copy);
      return d.gateway.app.inject({ method: 'GET', url: `${copy.pathname}${copy.search}`, headers });
    };
    const cases: [string, (u: URL) => void][] = [
      ['expires', (u) => u.searchParams.set('expires', 'tomorrow')],
      ['expires', (u) => u.searchParams.append('expires', u.searchParams.get('expires')!)],
      ['caller', (u) => u.searchParams.append('caller', 'someone-else')],
      ['signature', (u) => u.searchParams.append('signature', u.searchParams.get('signature')!)],
      ['signature', (u) => u.searchParams.set('signature', 'A'.repeat(101))],
    ];
    for (const [field, change] of cases) {
      const response = await changed(change);
      expect(response.statusCode, field).toBe(400);
      expect(response.headers['content-type'], field).toMatch(/^application\/problem\+json/);
      expect(response.json().type, field).toBe('about:blank#invalid-parameter');
      expect(response.json().errors, field).toEqual([{ field, message: expect.any(String) }]);
    }
    // A parameter the URL does not hold is ignored; the bytes are answered whatever the Accept.
    const extra = await changed((u) => u.searchParams.set('utm_source', 'mail'), {
      accept: 'application/json',
    });
    expect(extra.statusCode).toBe(200);
    expect(extra.headers['content-type']).toBe('application/pdf');
  });

  it('an expired URL → 403', async () => {
    const document = await firstGoverningDocument();
    const url = location(await d.get(document.href.slice(BASE.length)));
    const after = new Date((Number(url.searchParams.get('expires')) + 1) * 1000).toISOString();
    await setClock(d.gateway.runtime.gateway.pool, 'sandbox', after);
    await d.gateway.runtime.clocks.reload();
    const response = await fetchSigned(url);
    expect(response.statusCode).toBe(403);
    expect(response.json().errors).toEqual([{ field: 'signature', message: 'has expired' }]);
    await setClock(d.gateway.runtime.gateway.pool, 'sandbox', NOW);
    await d.gateway.runtime.clocks.reload();
  });

  it('a document of another record or type is not found; the fund update document redirects', async () => {
    const document = await firstGoverningDocument();
    expect((await d.get(`/scheme/SCH10001/governing-documents/${document.documentRecId}`)).statusCode).toBe(
      404,
    );
    expect(
      (await d.get(`/scheme/SCH10000/manager-and-supervisor-consent-documents/${document.documentRecId}`))
        .statusCode,
    ).toBe(404);
    const fund = await d.get('/fund/FND10001/fund-update-document');
    expect(fund.statusCode).toBe(302);
    expect((await fetchSigned(location(fund))).statusCode).toBe(200);
  });

  it('the document store holds at most 20 MB a document', async () => {
    const store = folderDocumentFiles(process.env.RSG_DISCLOSE_DOCUMENTS_DIR!);
    await expect(store.put('big.pdf', Buffer.alloc(MAX_DOCUMENT_BYTES + 1))).rejects.toThrow('20 MB');
  });
});
