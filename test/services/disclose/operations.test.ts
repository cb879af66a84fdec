import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller, ServiceContext } from '../../../src/gateway/service-context.ts';
import { noPreconditions } from '../../../src/platform/http/operation.ts';
import { listActivities } from '../../../src/services/disclose/operations/activities.ts';
import { recordDocumentLocation } from '../../../src/services/disclose/operations/documents.ts';
import { authoriseFiling, fileActivity } from '../../../src/services/disclose/operations/filings.ts';
import { listHoldings, readFund } from '../../../src/services/disclose/operations/funds.ts';
import {
  listRecordsPage,
  readFundPage,
  readRecordPage,
} from '../../../src/services/disclose/operations/online-register.ts';
import {
  listDocuments,
  listFundsOfOffer,
  readRecord,
} from '../../../src/services/disclose/operations/records.ts';
import { listNewOrChanged, searchRecords } from '../../../src/services/disclose/operations/searches.ts';
import {
  fundView,
  listView,
  recordView,
  registerPage,
} from '../../../src/services/disclose/routes/online-register-views.ts';
import { BASE, type DiscloseGateway, discloseGateway, sandboxContext } from './support/api.ts';

/** A JSON answer's content as a client reads it: what an operation's body must serialise to. */
const asSent = (body: unknown) => JSON.parse(JSON.stringify(body));

const FIRST_PAGE = { page: 1, pageSize: 20, offset: 0 };

describe('operations called without HTTP (as the CLI or an import does)', () => {
  let d: DiscloseGateway;
  let context: ServiceContext;
  beforeAll(async () => {
    d = await discloseGateway();
    context = sandboxContext(d.gateway);
  }, 120_000);
  afterAll(() => d?.close());

  it('searches: the same content and Last-Modified as the API answers', async () => {
    const found = await searchRecords(context, { subject: 'offer', issuer: 'Harbour', page: FIRST_PAGE });
    const answer = await d.get('/offers?issuer=Harbour');
    expect(asSent(found.body)).toEqual(answer.json());
    expect(found.lastModified.toUTCString()).toBe(answer.headers['last-modified']);
    const changed = await listNewOrChanged(context, {
      subject: 'scheme',
      from: '2020-01-01',
      to: '2026-05-20',
      page: FIRST_PAGE,
    });
    expect(asSent(changed.body)).toEqual(
      (await d.get('/new-or-changed-schemes?start-date=2020-01-01&end-date=2026-05-20')).json(),
    );
  });

  it('searches check their rules as the API does, naming the field', async () => {
    await expect(
      listNewOrChanged(context, { subject: 'offer', from: '2026-02-30', to: '2026-03-01', page: FIRST_PAGE }),
    ).rejects.toMatchObject({ field: 'start-date' });
    await expect(
      listNewOrChanged(context, { subject: 'offer', from: '2026-03-02', to: '2026-03-01', page: FIRST_PAGE }),
    ).rejects.toMatchObject({ field: 'end-date' });
    await expect(
      searchRecords(context, { subject: 'offer', nameOrNumber: '  ', page: FIRST_PAGE }),
    ).rejects.toMatchObject({ field: 'name-or-number' });
  });

  it('an offer: the same bytes, ETag and Last-Modified as the API, current and at a version', async () => {
    const current = await readRecord(context, { subject: 'offer', number: 'OFR10001' });
    const answer = await d.get('/offer/OFR10001');
    expect(current.text).toBe(answer.body);
    expect(current.etag).toBe(answer.headers.etag);
    expect(current.lastModified.toUTCString()).toBe(answer.headers['last-modified']);
    const old = await readRecord(context, { subject: 'offer', number: 'OFR10001', version: 'OFR10001-v1' });
    expect(old.text).toBe((await d.get('/offer/OFR10001?version=OFR10001-v1')).body);
    await expect(
      readRecord(context, { subject: 'scheme', number: 'SCH10000', version: 'SCH10000-v99' }),
    ).rejects.toMatchObject({ status: 404, fields: [{ field: 'version' }] });
  });

  it("a record's sub-resources and funds, as the API pages them", async () => {
    const page = { page: 2, pageSize: 5, offset: 5 };
    const funds = await listFundsOfOffer(context, { number: 'OFR10001', page });
    expect(asSent(funds.body)).toEqual((await d.get('/offer/OFR10001/funds?page=2&page-size=5')).json());
    const docs = await listDocuments(context, {
      subject: 'scheme',
      number: 'SCH10000',
      list: 'documents',
      page,
    });
    expect(asSent(docs.body)).toEqual((await d.get('/scheme/SCH10000/documents?page=2&page-size=5')).json());
    await expect(
      listDocuments(context, {
        subject: 'offer',
        number: 'OFR10001',
        list: 'financial-markets-authority-notice-documents',
        notice: 'nonsense',
        page,
      }),
    ).rejects.toMatchObject({ status: 404, fields: [{ field: 'noticeRecId' }] });
  });

  it('a fund and its holdings: the answer and the compliance ETag a filing is compared with', async () => {
    const fund = await readFund(context, { fundNumber: 'FND10002', offerNumber: 'OFR10001' });
    const answer = await d.get('/offer/OFR10001/fund/FND10002');
    expect(asSent(fund.body)).toEqual(answer.json());
    expect(fund.etag).toBe(answer.headers.etag);
    const held = await listHoldings(context, { fundNumber: 'FND10002', page: FIRST_PAGE });
    expect(asSent(held.body)).toEqual((await d.get('/fund/FND10002/holdings')).json());
    await expect(
      readFund(context, { fundNumber: 'FND10002', offerNumber: 'OFR10002' }),
    ).rejects.toMatchObject({
      status: 404,
    });
  });

  it("a document's signed URL, for the caller named, that the document store serves", async () => {
    const listed = (await d.get('/offer/OFR10001/documents?page-size=1')).json().items[0];
    const { location } = await recordDocumentLocation(context, {
      subject: 'offer',
      number: 'OFR10001',
      documentType: listed.documentType,
      documentRecId: listed.documentRecId,
      caller: { subscriptionId: 'a-tool' },
    });
    const url = new URL(location);
    expect(url.searchParams.get('caller')).toBe('a-tool');
    const file = await d.gateway.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe(listed.contentType);
  });

  it("the online register's pages: what they show, read without HTTP, rendered as the pages are", async () => {
    const pages = `${BASE}/online-register`;
    // A document link's expiry and signature depend on the moment it is signed.
    const unsigned = (text: string) =>
      text.replace(/expires=\d+/g, 'expires=E').replace(/signature=[^&"]+/g, 'signature=S');
    const served = async (path: string) =>
      unsigned((await d.gateway.app.inject({ method: 'GET', url: `${pages}${path}` })).body);
    const rendered = (view: Parameters<typeof registerPage>[2]) =>
      unsigned(registerPage('sandbox', pages, view));

    const offer = await readRecordPage(context, {
      subject: 'offer',
      number: 'OFR10001',
      version: 'OFR10001-v1',
    });
    expect(offer.row.version).toBe(1);
    expect(offer.funds?.total).toBe(11);
    expect(offer.documents.rows[0]?.href).toMatch(/\/files\/DOC\d+\?.*caller=online-register/);
    expect(rendered(recordView(pages, offer))).toBe(await served('/offer/OFR10001?version=OFR10001-v1'));
    const scheme = await readRecordPage(context, { subject: 'scheme', number: 'SCH10000' });
    // Its first offer and its two further ones, numbered after the 10 others of the test register.
    expect(scheme.offers?.map((o) => o.offerNumber)).toEqual(['OFR10001', 'OFR10011', 'OFR10012']);
    expect(rendered(recordView(pages, scheme))).toBe(await served('/scheme/SCH10000'));
    const fund = await readFundPage(context, { fundNumber: 'FND10002' });
    expect(rendered(fundView(pages, fund))).toBe(await served('/fund/FND10002'));
    const schemes = await listRecordsPage(context, { subject: 'scheme' });
    expect(rendered(listView(pages, 'scheme', schemes))).toBe(await served('/schemes'));

    await expect(readRecordPage(context, { subject: 'offer', number: 'SCH10000' })).rejects.toMatchObject({
      status: 404,
      message: 'SCH10000 is not a offer number.',
    });
    await expect(
      readRecordPage(context, { subject: 'offer', number: 'OFR10001', version: 'OFR10001-v99' }),
    ).rejects.toMatchObject({ status: 404, message: 'OFR10001-v99 is not on the register.' });
    await expect(
      readFundPage(context, { fundNumber: 'FND10001', version: 'OFR10002-v1' }),
    ).rejects.toMatchObject({ field: 'version' });
    await expect(readFundPage(context, { fundNumber: 'FND1' })).rejects.toMatchObject({
      status: 404,
      message: 'FND1 is not on the register.',
    });
  });

  /** A tool acting for the test's organisation (its authority over the fixed funds decides). */
  const tool = (): Caller => ({
    environment: 'sandbox',
    subscriptionId: 'tool',
    productId: 'disclose',
    subscriberId: d.userId,
    userId: d.userId,
    organisationId: d.organisationId,
  });
  const FUND_UPDATE = {
    periodEndDate: '2026-03-31',
    unitPrice: { price: 2.5, currency: 'NZD' },
    returns: [{ period: '1y', percentage: 4 }],
    fees: [{ feeType: 'TOTAL_ANNUAL', percentage: 1 }],
    assetAllocation: [
      { assetType: 'CASH_AND_CASH_EQUIVALENTS', actualPercentage: 100, targetPercentage: 100 },
    ],
  };
  const target = { offerNumber: 'OFR10001', fundNumber: 'FND10001' };

  it("lists the organisation's activities as the API does", async () => {
    const listed = await listActivities(context, { organisation: d.organisation, caller: tool() });
    expect(asSent(listed)).toEqual((await d.get('/activities')).json());
    expect(listed.activities.length).toBeGreaterThan(0);
  });

  it('refuses a filing without authority, before any content, as the API does', async () => {
    await expect(
      authoriseFiling(context, {
        ...target,
        organisation: d.otherOrganisation,
        caller: { ...tool(), organisationId: undefined },
        preconditions: noPreconditions,
      }),
    ).rejects.toMatchObject({ status: 403 });
  });

  it('holds the preconditions it is given inside its transaction: a failing one writes nothing', async () => {
    const before = await d.get('/fund/FND10001');
    const filing = await authoriseFiling(context, {
      ...target,
      organisation: d.organisation,
      caller: tool(),
      preconditions: noPreconditions,
    });
    const refuse = () => {
      throw Object.assign(new Error('changed meanwhile'), { status: 412 });
    };
    await expect(
      fileActivity(context, filing, { kind: 'FUND_UPDATE', body: FUND_UPDATE }, { preconditions: refuse }),
    ).rejects.toThrow('changed meanwhile');
    expect((await d.get('/fund/FND10001')).headers.etag).toBe(before.headers.etag);
  });

  it('files a fund update without HTTP: the fund the API reads has it; the period cannot be filed twice', async () => {
    const filing = await authoriseFiling(context, {
      ...target,
      organisation: d.organisation,
      caller: tool(),
      preconditions: noPreconditions,
    });
    await expect(
      fileActivity(
        context,
        filing,
        { kind: 'FUND_UPDATE', body: { ...FUND_UPDATE, unitPrice: { price: -1, currency: 'NZD' } } },
        { preconditions: noPreconditions },
      ),
    ).rejects.toMatchObject({ status: 400, fields: [{ field: 'unitPrice.price' }] });
    const receipt = await fileActivity(
      context,
      filing,
      { kind: 'FUND_UPDATE', body: FUND_UPDATE },
      { preconditions: noPreconditions },
    );
    expect(receipt.body).toMatchObject({ fundNumber: 'FND10001', periodEndDate: '2026-03-31' });
    const fund = await d.get('/fund/FND10001');
    expect(fund.json().unitPrice).toEqual(FUND_UPDATE.unitPrice);
    expect(fund.headers.etag).toBe(receipt.validators.etag);
    const again = await authoriseFiling(context, {
      ...target,
      organisation: d.organisation,
      caller: tool(),
      preconditions: noPreconditions,
    });
    await expect(
      fileActivity(
        context,
        again,
        { kind: 'FUND_UPDATE', body: FUND_UPDATE },
        { preconditions: noPreconditions },
      ),
    ).rejects.toMatchObject({ status: 409 });
  });
});
