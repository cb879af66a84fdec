import { withIsinCheckDigit } from '../../../../src/services/disclose/domain/isin.ts';
import { DISCLOSE_ERRORS } from '../../../../src/services/disclose/errors.ts';
import type { ServiceFixture } from '../../../support/service-fixture.ts';
import { discloseGateway, NOW } from './api.ts';
import { registerAsSeeded } from './companies.ts';

/**
 * The offers register's fixture for the shared harnesses: every operation needs a key and
 * `x-organisation` (sent on every call: the subject's headers), none a user's token; the filings also
 * If-Match (`*`: any current version) and authority over the fund, which the fixtures' organisation has
 * for FND10001 (its fund update and FPH for the period ending 31 March 2026 unfiled on the sandbox clock).
 */
const PAGING = ['page=1&page-size=5', 'page=2&page-size=1'];

/** The documents of the fixed cases, as the seed makes them (record ids do not depend on the clock). */
const register = registerAsSeeded(6, 4, NOW);
const offerDocument = register.offers[0]!.documents[0]!;
const schemeDocument = register.schemes[0]!.documents[0]!;
/** The regulator's notices of the fixed cases: SCH10000's first, and OFR10003's (OFR10001 has none). */
const schemeNotice = register.schemes[0]!.notices[0]!.noticeRecId;
const offerNotice = { offerNumber: 'OFR10003', noticeRecId: register.offers[2]!.notices[0]!.noticeRecId };
const holdings = Array.from({ length: 4 }, (_, i) => ({
  assetName: `Holding ${i}`,
  assetType: 'INTERNATIONAL_EQUITIES',
  isin: withIsinCheckDigit(`US${String(200_000_000 + i)}`),
  value: 100 + i,
  percentageOfFund: 25,
  currency: 'USD',
}));

export const discloseFixture: ServiceFixture = {
  service: 'disclose',
  otherService: 'nzbn',
  refusals: { noAuthority: DISCLOSE_ERRORS.noFundAuthority },
  async setup() {
    const d = await discloseGateway();
    return {
      gateway: d.gateway,
      key: d.key,
      headers: { 'x-organisation': d.organisation },
      ids: {
        offerNumber: 'OFR10001',
        schemeNumber: 'SCH10000',
        fundNumber: 'FND10001',
        noticeRecId: schemeNotice,
      },
      values: (name) =>
        (
          ({
            documentType: {
              valid: [offerDocument.documentType, schemeDocument.documentType],
              odd: ['fund', '..', 'governing-documents%2F..'],
            },
            noticeRecId: {
              valid: [schemeNotice, offerNotice.noticeRecId],
              odd: ['DOC1', 'notice', 'DOC999999', schemeDocument.documentRecId],
            },
            documentRecId: {
              valid: [offerDocument.documentRecId, schemeDocument.documentRecId],
              odd: ['DOC1', '../etc', 'DOC999999'],
            },
            offerNumber: {
              valid: ['OFR10001'],
              odd: ['OFR1', 'ofr10001', 'SCH10000', 'OFR99999'],
            },
            schemeNumber: { valid: ['SCH10000', 'SCH10001'], odd: ['SCH1', 'OFR10001', 'SCH99999'] },
            fundNumber: {
              valid: ['FND10001', 'FND10002', 'FND10012'],
              odd: ['FND1', 'FND99999', 'fnd10001'],
            },
            version: {
              valid: ['OFR10001-v1', 'OFR10001-v2', 'SCH10000-v1'],
              odd: ['v1', 'OFR10001-v0', 'OFR10001-v999999'],
            },
            'fund-version': {
              valid: ['FND10001-v1', 'FND10001-v2'],
              odd: ['v1', 'FND10002-v1', 'FND10001-v0', 'FND10001-v999999'],
            },
            'start-date': { valid: ['2020-01-01', '2026-05-01'], odd: ['2026-02-30', '20260101', ''] },
            'end-date': { valid: ['2026-05-20', '2026-12-31'], odd: ['2026-13-01', 'today'] },
            startDate: { valid: ['2020-01-01'], odd: ['2026-02-30'] },
            endDate: { valid: ['2026-05-20'], odd: ['x'] },
            periodEndDate: {
              valid: ['2026-03-31', '2025-09-30'],
              odd: ['2026-03-30', '2026-09-30', '3000-03-31'],
            },
          }) as Record<string, { valid: unknown[]; odd: unknown[] }>
        )[name],
      close: () => d.close(),
    };
  },
  operations: {
    'GET /offers': {
      organisation: true,
      query: [
        'name-or-number=OFR1',
        ...PAGING,
        'status=Open&product-type=Debt%20securities',
        'offer-or-issuer-name-or-number=Harbour&type=Debt%20securities',
      ],
    },
    'GET /schemes': {
      organisation: true,
      query: ['issuer=Harbour', ...PAGING, 'scheme-type=KiwiSaver%20scheme'],
    },
    'GET /new-or-changed-offers': {
      organisation: true,
      query: ['start-date=2020-01-01&end-date=2026-05-20', 'startDate=2026-01-01&endDate=2026-05-20'],
    },
    'GET /new-or-changed-schemes': {
      organisation: true,
      query: [
        'start-date=2020-01-01&end-date=2026-05-20',
        'startDate=2026-01-01&endDate=2026-05-20&page-size=2',
      ],
    },
    'GET /offer/{offerNumber}': { organisation: true, query: ['', 'version=OFR10001-v1'] },
    'GET /offer/{offerNumber}/versions': { organisation: true, query: PAGING },
    'GET /offer/{offerNumber}/filing-history': { organisation: true, query: PAGING },
    'GET /offer/{offerNumber}/participants': { organisation: true, query: PAGING },
    'GET /offer/{offerNumber}/documents': { organisation: true, query: PAGING },
    'GET /offer/{offerNumber}/fma-notice/{noticeRecId}/financial-markets-authority-notice-documents': {
      organisation: true,
      query: PAGING,
      path: offerNotice,
      etag: true,
    },
    'GET /offer/{offerNumber}/fma-notices': {
      organisation: true,
      query: PAGING,
      path: { offerNumber: offerNotice.offerNumber },
      etag: true,
    },
    'GET /offer/{offerNumber}/fma-notice/{noticeRecId}': {
      organisation: true,
      path: offerNotice,
      etag: true,
    },
    'GET /offer/{offerNumber}/funds': { organisation: true, query: ['', 'version=OFR10001-v1', ...PAGING] },
    'GET /offer/{offerNumber}/fund/{fundNumber}': { organisation: true, query: ['', 'version=OFR10001-v1'] },
    'GET /scheme/{schemeNumber}': { organisation: true, query: ['', 'version=SCH10000-v1'] },
    'GET /scheme/{schemeNumber}/versions': { organisation: true, query: PAGING },
    'GET /scheme/{schemeNumber}/filing-history': { organisation: true, query: PAGING },
    'GET /scheme/{schemeNumber}/participants': { organisation: true, query: PAGING },
    'GET /scheme/{schemeNumber}/documents': { organisation: true, query: PAGING },
    'GET /scheme/{schemeNumber}/fma-notice/{noticeRecId}/financial-markets-authority-notice-documents': {
      organisation: true,
      query: PAGING,
      etag: true,
    },
    'GET /scheme/{schemeNumber}/fma-notices': { organisation: true, query: PAGING, etag: true },
    'GET /scheme/{schemeNumber}/fma-notice/{noticeRecId}': { organisation: true, etag: true },
    'GET /scheme/{schemeNumber}/offers': { organisation: true, query: PAGING, etag: true },
    'GET /scheme/{schemeNumber}/governing-documents': { organisation: true, query: PAGING },
    'GET /scheme/{schemeNumber}/manager-and-supervisor-consent-documents': {
      organisation: true,
      query: PAGING,
    },
    'GET /fund/{fundNumber}': {
      organisation: true,
      query: ['', 'version=OFR10001-v1', 'fund-version=FND10001-v1'],
    },
    'GET /fund/{fundNumber}/holdings': { organisation: true, query: ['', ...PAGING] },
    'GET /fund/{fundNumber}/filing-history': { organisation: true, query: PAGING },
    'GET /fund/{fundNumber}/fund-returns': { organisation: true, query: PAGING },
    'GET /fund/{fundNumber}/versions': { organisation: true, query: PAGING },
    'GET /activities': { organisation: true },
    'GET /offer/{offerNumber}/{documentType}/{documentRecId}': {
      organisation: true,
      path: { documentType: offerDocument.documentType, documentRecId: offerDocument.documentRecId },
    },
    'GET /scheme/{schemeNumber}/{documentType}/{documentRecId}': {
      organisation: true,
      path: { documentType: schemeDocument.documentType, documentRecId: schemeDocument.documentRecId },
    },
    'GET /fund/{fundNumber}/fund-update-document': { organisation: true },
    'PUT /offer/{offerNumber}/fund/{fundNumber}/submit-fund-compliance': {
      organisation: true,
      headers: { 'if-match': '*' },
      body: {
        periodEndDate: '2026-03-31',
        unitPrice: { price: 1.5, currency: 'NZD' },
        returns: [{ period: '1y', percentage: 4.2 }],
        fees: [{ feeType: 'TOTAL_ANNUAL', percentage: 1.1 }],
        assetAllocation: [
          { assetType: 'CASH_AND_CASH_EQUIVALENTS', actualPercentage: 20, targetPercentage: 20 },
          { assetType: 'AUSTRALASIAN_EQUITIES', actualPercentage: 80, targetPercentage: 80 },
        ],
      },
    },
    'PUT /offer/{offerNumber}/fund/{fundNumber}/submit-fph-compliance': {
      organisation: true,
      headers: { 'if-match': '*' },
      body: { periodEndDate: '2026-03-31', holdings },
    },
  },
};
