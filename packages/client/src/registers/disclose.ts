/**
 * The offers register (v1): its document names no operation ids, so the methods take the register's
 * published draft operation names (searchOffers, getOffer, …) and, where it published none, names of
 * the same pattern. Each is checked against the generated `paths`: a path the document drops fails tsc.
 */
import { pagingOf } from '../core/register.ts';
import type { KnownOperation } from '../core/typing.ts';
import { basePath, type paths } from '../generated/disclose.ts';

export type DisclosePaths = paths;
export const discloseOperations = {
  searchOffers: 'GET /offers',
  searchSchemes: 'GET /schemes',
  getNewOrChangedOffers: 'GET /new-or-changed-offers',
  getNewOrChangedSchemes: 'GET /new-or-changed-schemes',
  getOffer: 'GET /offer/{offerNumber}',
  getOfferVersions: 'GET /offer/{offerNumber}/versions',
  getOfferFilingHistory: 'GET /offer/{offerNumber}/filing-history',
  getOfferParticipants: 'GET /offer/{offerNumber}/participants',
  getOfferDocuments: 'GET /offer/{offerNumber}/documents',
  getOfferFmaNotices: 'GET /offer/{offerNumber}/fma-notices',
  getOfferFmaNotice: 'GET /offer/{offerNumber}/fma-notice/{noticeRecId}',
  getOfferFmaNoticeDocuments:
    'GET /offer/{offerNumber}/fma-notice/{noticeRecId}/financial-markets-authority-notice-documents',
  getOfferFunds: 'GET /offer/{offerNumber}/funds',
  getOfferDocument: 'GET /offer/{offerNumber}/{documentType}/{documentRecId}',
  getFund: 'GET /offer/{offerNumber}/fund/{fundNumber}',
  getFundByNumber: 'GET /fund/{fundNumber}',
  getFundHoldings: 'GET /fund/{fundNumber}/holdings',
  getFundFilingHistory: 'GET /fund/{fundNumber}/filing-history',
  getFundReturns: 'GET /fund/{fundNumber}/fund-returns',
  getFundVersions: 'GET /fund/{fundNumber}/versions',
  getFundUpdateDocument: 'GET /fund/{fundNumber}/fund-update-document',
  getScheme: 'GET /scheme/{schemeNumber}',
  getSchemeVersions: 'GET /scheme/{schemeNumber}/versions',
  getSchemeFilingHistory: 'GET /scheme/{schemeNumber}/filing-history',
  getSchemeParticipants: 'GET /scheme/{schemeNumber}/participants',
  getSchemeDocuments: 'GET /scheme/{schemeNumber}/documents',
  getSchemeFmaNotices: 'GET /scheme/{schemeNumber}/fma-notices',
  getSchemeFmaNotice: 'GET /scheme/{schemeNumber}/fma-notice/{noticeRecId}',
  getSchemeFmaNoticeDocuments:
    'GET /scheme/{schemeNumber}/fma-notice/{noticeRecId}/financial-markets-authority-notice-documents',
  getSchemeGoverningDocuments: 'GET /scheme/{schemeNumber}/governing-documents',
  getSchemeManagerAndSupervisorConsentDocuments:
    'GET /scheme/{schemeNumber}/manager-and-supervisor-consent-documents',
  getSchemeOffers: 'GET /scheme/{schemeNumber}/offers',
  getSchemeDocument: 'GET /scheme/{schemeNumber}/{documentType}/{documentRecId}',
  getActivities: 'GET /activities',
  submitFundCompliance: 'PUT /offer/{offerNumber}/fund/{fundNumber}/submit-fund-compliance',
  submitFullPortfolioHoldingsCompliance: 'PUT /offer/{offerNumber}/fund/{fundNumber}/submit-fph-compliance',
} as const satisfies Record<string, KnownOperation<paths>>;
export const disclose = {
  basePath,
  operations: discloseOperations,
  paging: pagingOf(1, ['items'], ['totalItems']),
};
