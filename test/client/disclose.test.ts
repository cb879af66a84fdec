import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClient,
  type DiscloseClient,
  PreconditionFailedError,
  RegisterError,
} from '../../packages/client/src/index.ts';
import { type DiscloseGateway, discloseGateway } from '../services/disclose/support/api.ts';
import { listening, servesCommittedDocuments } from './support.ts';

/**
 * The offers register through the client, against a running gateway with the sandbox seed: its
 * `x-organisation` on every call, searches and sub-resources paged, conditional reads, and problem+json.
 */
let t: DiscloseGateway;
let baseUrl: string;
let disclose: DiscloseClient;

beforeAll(async () => {
  t = await discloseGateway();
  baseUrl = await listening(t.gateway);
  disclose = createClient({
    register: 'disclose',
    environment: 'sandbox',
    baseUrl,
    key: t.key,
    organisation: t.organisation,
  });
}, 180_000);
afterAll(async () => t?.close());

it('is served the documents its types were made from', async () => {
  await servesCommittedDocuments(baseUrl, 'disclose', '/companies-office/disclose-register/v1');
});

describe('reads', () => {
  it('reads an offer and pages through its funds', async () => {
    const offer = await disclose.getOffer({ path: { offerNumber: 'OFR10001' } });
    expect(offer.offerNumber).toBe('OFR10001');
    const funds = [];
    for await (const fund of disclose.paginate('getOfferFunds', {
      path: { offerNumber: 'OFR10001' },
      query: { 'page-size': 5 },
    })) {
      funds.push(fund);
    }
    expect(funds).toHaveLength(11);
  });

  it('searches offers and reads a fund with its ETag (304 answered from memory)', async () => {
    const found = await disclose.searchOffers({ query: { 'page-size': 2 } });
    expect(found.items.length).toBeGreaterThan(0);
    const offer = await disclose.getOfferFunds({
      path: { offerNumber: 'OFR10001' },
      query: { 'page-size': 1 },
    });
    const fundNumber = (offer.items[0] as { fundNumber: string }).fundNumber;
    const fund = await disclose.getFundByNumber({ path: { fundNumber } });
    const again = await disclose.send('getFundByNumber', { path: { fundNumber } });
    expect(again.body).toEqual(fund);
  });

  it('lists the organisation’s compliance activities (x-organisation)', async () => {
    const activities = await disclose.getActivities();
    expect(activities).toBeDefined();
  });
});

describe('a filing and a document', () => {
  it('files a fund update with the fund’s ETag as If-Match (its x-etag-of); a stale one is a typed 412', async () => {
    const sent: { method: string; ifMatch: string | null }[] = [];
    const filer = createClient({
      register: 'disclose',
      environment: 'sandbox',
      baseUrl,
      key: t.key,
      organisation: t.organisation,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        sent.push({ method: request.method, ifMatch: request.headers.get('if-match') });
        return fetch(request);
      },
    });
    const path = { offerNumber: 'OFR10001', fundNumber: 'FND10001' };
    await filer.getFund({ path });
    const fundEtag = filer.transport.etagOf('/offer/OFR10001/fund/FND10001');
    expect(fundEtag).toMatch(/"/);
    const body = {
      periodEndDate: '2026-03-31',
      unitPrice: { price: 1.5, currency: 'NZD' },
      returns: [{ period: '1y', percentage: 5.5 }],
      fees: [{ feeType: 'TOTAL_ANNUAL', percentage: 0.9 }],
      assetAllocation: [
        { assetType: 'CASH_AND_CASH_EQUIVALENTS', actualPercentage: 10, targetPercentage: 10 },
        { assetType: 'INTERNATIONAL_EQUITIES', actualPercentage: 90, targetPercentage: 90 },
      ],
    };
    await filer.submitFundCompliance({ path, body: body as never, requestId: crypto.randomUUID() });
    expect(sent.at(-1)).toEqual({ method: 'PUT', ifMatch: fundEtag });
    const stale = await filer
      .submitFundCompliance({ path, body: body as never, ifMatch: fundEtag! })
      .catch((e) => e);
    expect(stale).toBeInstanceOf(PreconditionFailedError);
    expect(stale.status).toBe(412);
  });

  it('downloads a fund update document (a redirect to its signed URL) as a Blob', async () => {
    const document: Blob = await disclose.getFundUpdateDocument({ path: { fundNumber: 'FND10001' } });
    expect(document).toBeInstanceOf(Blob);
    expect(document.size).toBeGreaterThan(0);
    expect(document.type).toMatch(/^application\/pdf/);
  });
});

describe('errors', () => {
  it('gives problem+json for an unknown offer', async () => {
    const missing = await disclose.getOffer({ path: { offerNumber: 'OFR99999' } }).catch((e) => e);
    expect(missing).toBeInstanceOf(RegisterError);
    expect(missing.details.kind).toBe('problem');
    expect(missing.status).toBe(404);
  });

  it('is refused for an organisation the caller does not belong to', async () => {
    const stranger = createClient({
      register: 'disclose',
      environment: 'sandbox',
      baseUrl,
      key: t.key,
      organisation: 'not-a-member-of-this-one',
    });
    const refused = await stranger.getActivities().catch((e) => e);
    expect(refused).toBeInstanceOf(RegisterError);
    expect([400, 403]).toContain(refused.status);
  });
});
