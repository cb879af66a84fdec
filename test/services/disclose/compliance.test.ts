import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../../src/identity/store/memberships.ts';
import { findOrganisation } from '../../../src/identity/store/organisations.ts';
import { setClock } from '../../../src/platform/environment-clocks.ts';
import { withIsinCheckDigit } from '../../../src/services/disclose/domain/isin.ts';
import { fingerprint } from '../../support/fingerprint.ts';
import { signedInUser } from '../../support/oauth.ts';
import { OpenApi } from '../../support/openapi.ts';
import { BASE, type DiscloseGateway, discloseGateway } from './support/api.ts';

let d: DiscloseGateway;
let api: OpenApi;
beforeAll(async () => {
  d = await discloseGateway();
  api = await OpenApi.fetch(d.gateway.app, BASE);
}, 120_000);
afterAll(() => d?.close());

const FUND = '/offer/OFR10001/fund/FND10001';

async function call(method: string, url: string, options: Parameters<DiscloseGateway['call']>[2] = {}) {
  const response = await d.call(method, url, options);
  api.conformsUrl(method, `${BASE}${url}`, response);
  return response;
}
const etagOf = async (url = FUND) => (await call('GET', url)).headers.etag as string;
const moveClock = async (iso: string) => {
  await setClock(d.gateway.runtime.gateway.pool, 'sandbox', iso);
  await d.gateway.runtime.clocks.reload();
};

function holdings(count: number) {
  const each = Math.floor(10_000 / count) / 100;
  return Array.from({ length: count }, (_, i) => ({
    assetName: `Holding ${i}`,
    assetType: i % 2 ? 'INTERNATIONAL_EQUITIES' : 'NEW_ZEALAND_FIXED_INTEREST',
    isin: withIsinCheckDigit(`NZ${String(100_000_000 + i)}`),
    value: 1000 + i,
    percentageOfFund: i === 0 ? Math.round((100 - each * (count - 1)) * 100) / 100 : each,
    currency: 'NZD',
  }));
}

type Activity = {
  fundNumber: string;
  activityType: string;
  periodEndDate: string;
  status: string;
  late: boolean | null;
};
const activities = async (organisation?: string) =>
  (await call('GET', '/activities', organisation ? { organisation } : {})).json().activities as Activity[];

describe('activities', () => {
  it('lists the funds the organisation has authority over: filed, upcoming and overdue', async () => {
    const list = await activities();
    const funds = new Set(list.map((a) => a.fundNumber));
    expect(funds.has('FND10001')).toBe(true);
    expect(funds.has('FND10012')).toBe(true);
    expect(funds.has('FND10014')).toBe(false);
    const fph = list.filter(
      (a) => a.fundNumber === 'FND10001' && a.activityType === 'FULL_PORTFOLIO_HOLDINGS',
    );
    expect(fph.find((a) => a.status === 'Filed')?.periodEndDate).toBe('2025-09-30');
    expect(fph.find((a) => a.periodEndDate === '2026-03-31')?.status).toBe('Upcoming');
    expect(new Set(list.map((a) => a.status))).toContain('Filed');
  });

  it('an organisation with no authority sees none', async () => {
    expect(await activities(d.otherOrganisation)).toEqual([]);
  });
});

describe('filing full portfolio holdings', () => {
  it('needs If-Match (428), a current one (412), and authority (403); writes nothing when refused', async () => {
    const body = { periodEndDate: '2026-03-31', holdings: holdings(12) };
    const before = await etagOf();
    const missing = await call('PUT', `${FUND}/submit-fph-compliance`, { body });
    expect(missing.statusCode).toBe(428);
    expect(missing.json().type).toBe('about:blank#precondition-required');
    const stale = await call('PUT', `${FUND}/submit-fph-compliance`, {
      body,
      headers: { 'if-match': '"old"' },
    });
    expect(stale.statusCode).toBe(412);
    const foreign = await call('PUT', `${FUND}/submit-fph-compliance`, {
      body,
      headers: { 'if-match': before },
      organisation: d.otherOrganisation,
    });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().type).toBe('about:blank#no-fund-authority');
    expect(await etagOf()).toBe(before);
  });

  it('names every problem of the body at once', async () => {
    const bad = holdings(4);
    bad[0]!.isin = 'NZ0000000001';
    bad[1]!.assetType = 'GOLD_BARS';
    bad[2]!.value = -5;
    bad[3]!.currency = 'XYZ';
    const response = await call('PUT', `${FUND}/submit-fph-compliance`, {
      body: { periodEndDate: '2026-04-30', holdings: [...bad, { assetName: '' }] },
      headers: { 'if-match': await etagOf() },
    });
    expect(response.statusCode).toBe(400);
    const fields = response.json().errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'periodEndDate',
        'holdings.0.isin',
        'holdings.1.assetType',
        'holdings.2.value',
        'holdings.3.currency',
        'holdings.4.assetName',
        'holdings.4.assetType',
        'holdings.4.value',
      ]),
    );
    const sum = await call('PUT', `${FUND}/submit-fph-compliance`, {
      body: {
        periodEndDate: '2026-03-31',
        holdings: holdings(3).map((h) => ({ ...h, percentageOfFund: 30 })),
      },
      headers: { 'if-match': await etagOf() },
    });
    expect(sum.json().errors).toEqual([
      { field: 'holdings', message: expect.stringContaining('sum to 100') },
    ]);
    const broken = await call('PUT', `${FUND}/submit-fph-compliance`, {
      body: '{"periodEndDate": "2026-03-31", "holdings": [',
      headers: { 'if-match': await etagOf() },
    });
    expect(broken.statusCode).toBe(400);
  });

  it('files on time: a new fund version, the activity filed, a filing-history entry; the same period again is 409', async () => {
    const etag = await etagOf();
    const filed = await call('PUT', `${FUND}/submit-fph-compliance`, {
      body: { periodEndDate: '2026-03-31', holdings: holdings(25) },
      headers: { 'if-match': etag },
    });
    expect(filed.statusCode, filed.body).toBe(200);
    expect(filed.json()).toMatchObject({ late: false, periodEndDate: '2026-03-31', filedDate: '2026-05-20' });
    expect(filed.headers.etag).not.toBe(etag);
    // Every answer with an ETag carries Last-Modified: the receipt's is the fund's change, the filing.
    expect(filed.headers['last-modified']).toBeDefined();
    expect((await call('GET', FUND)).headers['last-modified']).toBe(filed.headers['last-modified']);
    expect(await etagOf()).toBe(filed.headers.etag);
    const fund = (await call('GET', FUND)).json();
    expect(fund.versionId).toBe(filed.json().versionId);
    expect(fund.holdingsPeriodEndDate).toBe('2026-03-31');
    expect(fund.holdings).toHaveLength(10);
    expect(fund.links.find((l: { rel: string }) => l.rel === 'holdings').count).toBe(25);
    const all = (await call('GET', '/fund/FND10001/holdings?page-size=100')).json();
    expect(all.items).toHaveLength(25);
    const history = (await call('GET', '/scheme/SCH10000/filing-history')).json();
    expect(history.items[0]).toMatchObject({
      fundNumber: 'FND10001',
      filingType: 'FULL_PORTFOLIO_HOLDINGS',
      late: false,
    });
    const fph = (await activities()).filter(
      (a) => a.fundNumber === 'FND10001' && a.activityType === 'FULL_PORTFOLIO_HOLDINGS',
    );
    expect(fph.find((a) => a.status === 'Filed')?.periodEndDate).toBe('2026-03-31');
    const again = await call('PUT', `${FUND}/submit-fph-compliance`, {
      body: { periodEndDate: '2026-03-31', holdings: holdings(5) },
      headers: { 'if-match': filed.headers.etag as string },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().type).toBe('about:blank#period-already-filed');
  });

  it('a filing after the due date is marked late, and the overdue activity shows it before', async () => {
    await moveClock('2026-12-10T00:00:00Z');
    const overdue = (await activities()).find(
      (a) =>
        a.fundNumber === 'FND10001' &&
        a.activityType === 'FULL_PORTFOLIO_HOLDINGS' &&
        a.periodEndDate === '2026-09-30',
    );
    expect(overdue?.status).toBe('Overdue');
    const filed = await call('PUT', `${FUND}/submit-fph-compliance`, {
      body: { periodEndDate: '2026-09-30', holdings: holdings(3) },
      headers: { 'if-match': await etagOf() },
    });
    expect(filed.statusCode, filed.body).toBe(200);
    expect(filed.json().late).toBe(true);
    const history = (await call('GET', '/scheme/SCH10000/filing-history')).json();
    expect(history.items[0].description).toContain('filed late');
  });
});

describe('the filings’ preconditions (instead of the conformance matrix’s write cases)', () => {
  const LONG_AGO = 'Sat, 01 Jan 2000 00:00:00 GMT';
  const written = () =>
    fingerprint({ pool: d.gateway.runtime.environments.sandbox.pool, prefixes: ['disclose_'] });
  const bodies = {
    'submit-fph-compliance': { periodEndDate: '2026-03-31', holdings: holdings(4) },
    'submit-fund-compliance': { periodEndDate: '2026-03-31' },
  };

  it.each(Object.entries(bodies))(
    '%s: a stale If-Match is 412 with or without a past If-Unmodified-Since, which cannot stand in for it (428); nothing written',
    async (suffix, body) => {
      const cases: [Record<string, string>, number][] = [
        [{ 'if-match': '"stale"' }, 412],
        [{ 'if-match': '"stale"', 'if-unmodified-since': LONG_AGO }, 412],
        [{ 'if-unmodified-since': LONG_AGO }, 428],
      ];
      for (const [headers, status] of cases) {
        const before = await written();
        const response = await call('PUT', `${FUND}/${suffix}`, { body, headers });
        expect(response.statusCode, JSON.stringify(headers)).toBe(status);
        expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(await written(), JSON.stringify(headers)).toBe(before);
      }
    },
  );
});

describe('a filing’s path', () => {
  const written = () =>
    fingerprint({ pool: d.gateway.runtime.environments.sandbox.pool, prefixes: ['disclose_'] });

  it.each(['submit-fph-compliance', 'submit-fund-compliance'])(
    '%s: an offer or fund that is not there is 404 naming it, before the body is read; nothing written',
    async (suffix) => {
      const etag = await etagOf();
      const cases: [string, string][] = [
        ['/offer/OFR1/fund/FND10001', 'offerNumber'],
        [`/offer/OFR${'1'.repeat(40)}/fund/FND10001`, 'offerNumber'],
        ['/offer/OFR10001/fund/FUND-1', 'fundNumber'],
        ['/offer/OFR10002/fund/FND10001', 'fundNumber'],
        ['/offer/OFR10001/fund/FND99999', 'fundNumber'],
      ];
      for (const [path, field] of cases) {
        const before = await written();
        // The body is not JSON: a 404 rather than a 400 shows it was never parsed.
        const response = await call('PUT', `${path}/${suffix}`, {
          body: 'not JSON',
          headers: { 'if-match': etag },
        });
        expect(response.statusCode, path).toBe(404);
        expect(response.json().errors, path).toEqual([{ field, message: expect.any(String) }]);
        expect(await written(), path).toBe(before);
      }
    },
  );
});

describe('filing a fund update', () => {
  const update = {
    periodEndDate: '2026-06-30',
    unitPrice: { price: 1.2345, currency: 'NZD' },
    returns: [{ period: '1y', percentage: 5.5 }],
    fees: [{ feeType: 'TOTAL_ANNUAL', percentage: 0.9 }],
    assetAllocation: [
      { assetType: 'CASH_AND_CASH_EQUIVALENTS', actualPercentage: 10, targetPercentage: 10 },
      { assetType: 'INTERNATIONAL_EQUITIES', actualPercentage: 90, targetPercentage: 90 },
    ],
  };

  it('names every problem at once', async () => {
    const response = await call('PUT', `${FUND}/submit-fund-compliance`, {
      body: {
        periodEndDate: '2026-06-29',
        unitPrice: { price: -1, currency: 'NZ' },
        returns: [{ period: 'forever', percentage: 5 }],
        fees: [],
        assetAllocation: [
          { assetType: 'CASH_AND_CASH_EQUIVALENTS', actualPercentage: 50, targetPercentage: 50 },
        ],
      },
      headers: { 'if-match': await etagOf() },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors.map((e: { field: string }) => e.field)).toEqual([
      'periodEndDate',
      'unitPrice.price',
      'unitPrice.currency',
      'returns.0.period',
      'fees',
      'assetAllocation',
    ]);
  });

  it('files and changes the fund’s unit price; late after the due date', async () => {
    const filed = await call('PUT', `${FUND}/submit-fund-compliance`, {
      body: update,
      headers: { 'if-match': await etagOf() },
    });
    expect(filed.statusCode, filed.body).toBe(200);
    expect(filed.json().late).toBe(true);
    expect((await call('GET', '/fund/FND10001')).json().unitPrice).toEqual({
      price: 1.2345,
      currency: 'NZD',
    });
  });
});

describe('hostile holdings bodies', () => {
  it('deep nesting, NUL characters and bytes that are not UTF-8 are refused, naming the field', async () => {
    const headers = { 'if-match': '*' };
    const deep = await call('PUT', `${FUND}/submit-fph-compliance`, {
      body: `{"holdings":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
      headers,
    });
    expect(deep.statusCode).toBe(400);
    expect(deep.json().errors[0].field).toBe('body');
    const nul = await call('PUT', `${FUND}/submit-fph-compliance`, {
      body: { periodEndDate: '2026-03-31', holdings: [{ ...holdings(1)[0], assetName: 'a\u0000b' }] },
      headers,
    });
    expect(nul.statusCode).toBe(400);
    expect(nul.json().errors[0].field).toBe('holdings.0.assetName');
    const bytes = await d.gateway.app.inject({
      method: 'PUT',
      url: `${BASE}${FUND}/submit-fph-compliance`,
      headers: {
        'Ocp-Apim-Subscription-Key': d.key,
        'x-organisation': d.organisation,
        'content-type': 'application/json',
        ...headers,
      },
      payload: Buffer.concat([
        Buffer.from('{"periodEndDate": "'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}'),
      ]),
    });
    expect(bytes.statusCode).toBe(400);
    expect(bytes.json().errors[0]).toEqual({ field: 'body', message: 'is not valid UTF-8' });
  });
});

describe('an OAuth token', () => {
  it('is honoured: its user acts, so x-organisation must be one of the user’s organisations', async () => {
    const user = await signedInUser(d.gateway);
    const authorization = `Bearer ${user.token}`;
    // Not yet a member of the subscriber's organisation: the token's user is the one who acts.
    const refused = await call('GET', '/activities', { headers: { authorization } });
    expect(refused.statusCode).toBe(403);
    const organisation = await findOrganisation(d.gateway.runtime.gateway.pool, 'sandbox', d.organisation);
    await addMember(d.gateway.runtime.gateway.pool, organisation!.id, user.userId, 'member');
    const allowed = await call('GET', '/activities', { headers: { authorization } });
    expect(allowed.statusCode).toBe(200);
    expect(allowed.json().activities.length).toBeGreaterThan(0);
    const broken = await call('GET', '/activities', { headers: { authorization: 'Bearer not.a.jwt' } });
    expect(broken.statusCode).toBe(401);
  });
});
