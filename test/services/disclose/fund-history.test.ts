import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setClock } from '../../../src/platform/environment-clocks.ts';
import { OpenApi } from '../../support/openapi.ts';
import { BASE, type DiscloseGateway, discloseGateway } from './support/api.ts';

// A fund's own sub-resources, from outside over HTTP at the published address.
let d: DiscloseGateway;
let api: OpenApi;
beforeAll(async () => {
  d = await discloseGateway({ schemes: 3, standaloneOffers: 2 });
  api = await OpenApi.fetch(d.gateway.app, BASE);
}, 120_000);
afterAll(() => d?.close());

const FUND = '/offer/OFR10001/fund/FND10001';

async function call(method: string, url: string, options: Parameters<DiscloseGateway['call']>[2] = {}) {
  const response = await d.call(method, url, options);
  api.conformsUrl(method, `${BASE}${url}`, response);
  return response;
}
const get = (url: string) => call('GET', url);
const linkOf = (body: { links: { rel: string; href: string }[] }, rel: string) =>
  body.links.find((l) => l.rel === rel)?.href;
const moveClock = async (iso: string) => {
  await setClock(d.gateway.runtime.gateway.pool, 'sandbox', iso);
  await d.gateway.runtime.clocks.reload();
};

type Filing = {
  filedDate: string;
  filingType: string;
  description: string;
  fundNumber: string;
  late: boolean;
};

const update = (periodEndDate: string, price: number, extra: Record<string, unknown> = {}) => ({
  periodEndDate,
  unitPrice: { price, currency: 'NZD' },
  returns: [
    { period: '1y', percentage: 5.5 },
    { period: '5y', percentage: 4.25 },
  ],
  fees: [{ feeType: 'TOTAL_ANNUAL', percentage: 0.9 }],
  assetAllocation: [
    { assetType: 'CASH_AND_CASH_EQUIVALENTS', actualPercentage: 10, targetPercentage: 10 },
    { assetType: 'INTERNATIONAL_EQUITIES', actualPercentage: 90, targetPercentage: 90 },
  ],
  ...extra,
});

async function fileUpdate(body: unknown, fund = FUND) {
  const etag = (await get(fund)).headers.etag as string;
  return call('PUT', `${fund}/submit-fund-compliance`, { body, headers: { 'if-match': etag } });
}

describe('a fund’s filing history', () => {
  it('is linked from the fund and holds the entries that name it, newest first', async () => {
    const fund = (await get('/fund/FND10001')).json();
    const href = linkOf(fund, 'filing-history');
    expect(href).toBe(`${BASE}/fund/FND10001/filing-history`);
    const history = await get('/fund/FND10001/filing-history?page-size=100');
    expect(history.statusCode, history.body).toBe(200);
    const items = history.json().items as Filing[];
    expect(items.length).toBeGreaterThan(0);
    expect(new Set(items.map((i) => i.fundNumber))).toEqual(new Set(['FND10001']));
    const dates = items.map((i) => i.filedDate);
    expect([...dates].sort().reverse()).toEqual(dates);
    // The same entries as the scheme's history holds for the fund.
    const ofScheme: Filing[] = [];
    for (let page = 1, pages = 1; page <= pages; page++) {
      const scheme = (await get(`/scheme/SCH10000/filing-history?page=${page}&page-size=100`)).json();
      pages = scheme.totalPages;
      ofScheme.push(...(scheme.items as Filing[]).filter((i) => i.fundNumber === 'FND10001'));
    }
    expect(history.json().totalItems).toBe(ofScheme.length);
    expect(items).toEqual(ofScheme);
  });

  it('pages, and is 404 for a fund not on the register', async () => {
    const page = (await get('/fund/FND10001/filing-history?page=2&page-size=2')).json();
    expect(page.page).toBe(2);
    expect(page.items.length).toBeLessThanOrEqual(2);
    expect(page.links.map((l: { rel: string }) => l.rel)).toContain('prev');
    const missing = await get('/fund/FND99999/filing-history');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().errors[0].field).toBe('fundNumber');
  });

  it('shows a new filing first', async () => {
    const filed = await fileUpdate(update('2026-03-31', 1.5));
    expect(filed.statusCode, filed.body).toBe(200);
    const first = (await get('/fund/FND10001/filing-history?page-size=1')).json().items[0] as Filing;
    expect(first.filingType).toBe('FUND_UPDATE');
    expect(first.description).toContain('2026-03-31');
  });
});
