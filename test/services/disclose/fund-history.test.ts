import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setClock } from '../../../src/platform/environment-clocks.ts';
import { BASE, type DiscloseGateway, discloseGateway } from './support/api.ts';
import { linkOf, type Outside, outside } from './support/reading.ts';

// A fund's own sub-resources, from outside over HTTP at the published address.
let d: DiscloseGateway;
let call: Outside['call'];
let get: Outside['get'];
beforeAll(async () => {
  d = await discloseGateway({ schemes: 3, standaloneOffers: 2 });
  ({ call, get } = await outside(d));
}, 120_000);
afterAll(() => d?.close());

const FUND = '/offer/OFR10001/fund/FND10001';

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
    const href = linkOf(fund, 'filing-history')?.href;
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
});

type Returns = {
  periodEndDate: string;
  filedDate: string;
  late: boolean;
  versionId: string;
  unitPrice: { price: number; currency: string } | null;
  returns: { period: string; percentage: number }[];
  fundSize: number | null;
  numberOfInvestors: number | null;
  riskIndicator: number | null;
};

async function allReturns(fund: string): Promise<Returns[]> {
  const items: Returns[] = [];
  for (let page = 1, pages = 1; page <= pages; page++) {
    const answer = await get(`/fund/${fund}/fund-returns?page=${page}&page-size=3`);
    expect(answer.statusCode, answer.body).toBe(200);
    pages = answer.json().totalPages;
    items.push(...answer.json().items);
  }
  return items;
}

describe('a fund’s returns over time', () => {
  it('is linked from the fund: one item per fund update filed, newest period first, paged', async () => {
    const fund = (await get('/fund/FND10002')).json();
    expect(linkOf(fund, 'fund-returns')?.href).toBe(`${BASE}/fund/FND10002/fund-returns`);
    const items = await allReturns('FND10002');
    expect(items.length).toBeGreaterThan(1);
    const periods = items.map((i) => i.periodEndDate);
    expect([...periods].sort().reverse()).toEqual(periods);
    // The fund updates of the fund's filing history, period for period.
    const history = (await get('/fund/FND10002/filing-history?page-size=100')).json().items as Filing[];
    const updates = history.filter((h) => h.filingType === 'FUND_UPDATE');
    expect(items.length).toBe(updates.length);
    expect(new Set(items.map((i) => i.periodEndDate))).toEqual(
      new Set(updates.map((u) => /(\d{4}-\d{2}-\d{2})/.exec(u.description)![1])),
    );
    for (const item of items) {
      const entry = updates.find((u) => u.description.includes(item.periodEndDate))!;
      expect(item.filedDate).toBe(entry.filedDate);
      expect(item.late).toBe(entry.late);
    }
    // The newest holds what the fund shows when no later fund update changed it.
    expect(items[0]!.unitPrice).toEqual(fund.unitPrice);
    expect(items[0]!.returns).toEqual(fund.returns);
    const missing = await get('/fund/FND99999/fund-returns');
    expect(missing.statusCode).toBe(404);
  });

  it('a filing with the optional figures: shown on the fund and in its returns', async () => {
    const filed = await fileUpdate(
      update('2026-03-31', 1.5, { fundSize: 125_000_000.5, numberOfInvestors: 4200, riskIndicator: 4 }),
    );
    expect(filed.statusCode, filed.body).toBe(200);
    const fund = (await get('/fund/FND10001')).json();
    expect(fund).toMatchObject({ fundSize: 125_000_000.5, numberOfInvestors: 4200, riskIndicator: 4 });
    const [newest] = await allReturns('FND10001');
    expect(newest).toMatchObject({
      periodEndDate: '2026-03-31',
      versionId: fund.versionId,
      unitPrice: { price: 1.5, currency: 'NZD' },
      returns: update('2026-03-31', 1.5).returns,
      fundSize: 125_000_000.5,
      numberOfInvestors: 4200,
      riskIndicator: 4,
    });
    const first = (await get('/fund/FND10001/filing-history?page-size=1')).json().items[0] as Filing;
    expect(first.filingType).toBe('FUND_UPDATE');
    expect(first.description).toContain('2026-03-31');
  });

  it('a filing without them is still accepted: the fund shows them as not reported', async () => {
    await moveClock('2026-07-10T00:00:00Z');
    const filed = await fileUpdate(update('2026-06-30', 1.6));
    expect(filed.statusCode, filed.body).toBe(200);
    const fund = (await get('/fund/FND10001')).json();
    expect(fund).toMatchObject({ fundSize: null, numberOfInvestors: null, riskIndicator: null });
    const [newest, previous] = await allReturns('FND10001');
    expect(newest).toMatchObject({ periodEndDate: '2026-06-30', unitPrice: { price: 1.6, currency: 'NZD' } });
    expect(newest!.fundSize).toBeNull();
    expect(previous).toMatchObject({ periodEndDate: '2026-03-31', fundSize: 125_000_000.5 });
  });

  it('refuses optional figures that break their rules, naming each, and writes nothing', async () => {
    const before = (await get('/fund/FND10001')).json().versionId;
    const refused = await fileUpdate(
      update('2026-06-30', 1.7, { fundSize: -1, numberOfInvestors: 2.5, riskIndicator: 8 }),
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors.map((e: { field: string }) => e.field)).toEqual([
      'fundSize',
      'numberOfInvestors',
      'riskIndicator',
    ]);
    const text = await fileUpdate(update('2026-06-30', 1.7, { riskIndicator: '4', fundSize: 1.234 }));
    expect(text.statusCode).toBe(400);
    expect(
      text
        .json()
        .errors.map((e: { field: string }) => e.field)
        .sort(),
    ).toEqual(['fundSize', 'riskIndicator']);
    expect((await get('/fund/FND10001')).json().versionId).toBe(before);
  });
});

type FundVersion = {
  versionId: string;
  versionDate: string;
  change: string;
  offerVersionId: string;
  href: string;
};

describe('a fund’s own versions', () => {
  it('are listed newest first, linked from the fund, each readable with fund-version', async () => {
    const fund = (await get('/fund/FND10002')).json();
    expect(linkOf(fund, 'versions')?.href).toBe(`${BASE}/fund/FND10002/versions`);
    const list = await get('/fund/FND10002/versions?page-size=100');
    expect(list.statusCode, list.body).toBe(200);
    const items = list.json().items as FundVersion[];
    expect(items[0]!.versionId).toBe(fund.versionId);
    expect(items.at(-1)!.versionId).toBe('FND10002-v1');
    expect(items.at(-1)!.change).toBe('Fund registered');
    expect(list.json().totalItems).toBe(items.length);
    for (const item of [items[0]!, items[1]!, items.at(-1)!]) {
      expect(item.href).toBe(`${BASE}/fund/FND10002?fund-version=${item.versionId}`);
      const shown = await get(item.href.slice(BASE.length));
      expect(shown.statusCode, shown.body).toBe(200);
      expect(shown.json().versionId).toBe(item.versionId);
      expect(shown.json().offerVersionId).toBe(item.offerVersionId);
      expect(shown.json().versionDate).toBe(item.versionDate);
      expect(linkOf(shown.json(), 'self')?.href).toBe(
        `${BASE}/offer/OFR10001/fund/FND10002?fund-version=${item.versionId}`,
      );
    }
    // On the offer's path too.
    const onOffer = await get(`/offer/OFR10001/fund/FND10002?fund-version=FND10002-v1`);
    expect(onOffer.json().versionId).toBe('FND10002-v1');
  });

  it('reads a fund version made after the offer’s last version, which version cannot', async () => {
    const offer = (await get('/offer/OFR10001')).json();
    const items = (await get('/fund/FND10002/versions?page-size=100')).json().items as FundVersion[];
    const underLast = items.filter((i) => i.offerVersionId === offer.currentVersionId);
    expect(underLast.length).toBeGreaterThan(1);
    const older = underLast.at(-1)!;
    const byOffer = (await get(`/fund/FND10002?version=${offer.currentVersionId}`)).json();
    expect(byOffer.versionId).toBe(underLast[0]!.versionId);
    expect((await get(`/fund/FND10002?fund-version=${older.versionId}`)).json().versionId).toBe(
      older.versionId,
    );
  });

  it('refuses a fund version of another fund, both selectors at once, and a missing one', async () => {
    const other = await get('/fund/FND10002?fund-version=FND10001-v1');
    expect(other.statusCode).toBe(400);
    expect(other.json().errors[0].field).toBe('fund-version');
    const both = await get('/fund/FND10002?fund-version=FND10002-v1&version=OFR10001-v1');
    expect(both.statusCode).toBe(400);
    expect(both.json().errors[0].field).toBe('fund-version');
    const missing = await get('/fund/FND10002?fund-version=FND10002-v999');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().errors[0].field).toBe('fund-version');
    expect((await get('/fund/FND99999/versions')).statusCode).toBe(404);
  });

  it('is marked as ours in the OpenAPI document', async () => {
    const document = (await d.gateway.app.inject({ url: `${BASE}/openapi.json` })).json();
    for (const path of ['/fund/{fundNumber}', '/offer/{offerNumber}/fund/{fundNumber}']) {
      const parameter = document.paths[path].get.parameters.find(
        (p: { name: string }) => p.name === 'fund-version',
      );
      expect(parameter, path).toBeDefined();
      expect(parameter.description).toMatch(/^Ours/);
      expect(document.paths[path].get['x-ours-parameters']).toEqual(['fund-version']);
    }
    const list = document.paths['/fund/{fundNumber}/versions'].get;
    expect(list.summary).toMatch(/\(ours\)/);
    expect(list['x-ours']).toBe(true);
  });
});
