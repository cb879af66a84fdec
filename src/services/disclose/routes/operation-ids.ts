import type { OperationIds } from '../../../platform/http/operation-ids.ts';

/**
 * The operation ids of the offers register (`operationId` in its document, and the typed client's
 * method names): the register's published draft names (searchOffers, getOffer, getFund, getScheme,
 * getNewOrChanged…, getActivities, submit…Compliance) exactly, and names of the same pattern (ours) for
 * the operations it published no name for.
 */
export const DISCLOSE_OPERATION_IDS = {
  // Published draft names.
  'GET /offers': 'searchOffers',
  'GET /schemes': 'searchSchemes',
  'GET /new-or-changed-offers': 'getNewOrChangedOffers',
  'GET /new-or-changed-schemes': 'getNewOrChangedSchemes',
  'GET /offer/{offerNumber}': 'getOffer',
  'GET /offer/{offerNumber}/fund/{fundNumber}': 'getFund',
  'GET /scheme/{schemeNumber}': 'getScheme',
  'GET /activities': 'getActivities',
  'PUT /offer/{offerNumber}/fund/{fundNumber}/submit-fund-compliance': 'submitFundCompliance',
  'PUT /offer/{offerNumber}/fund/{fundNumber}/submit-fph-compliance': 'submitFullPortfolioHoldingsCompliance',
  // Ours, in the same pattern.
  'GET /offer/{offerNumber}/versions': 'getOfferVersions',
  'GET /offer/{offerNumber}/filing-history': 'getOfferFilingHistory',
  'GET /offer/{offerNumber}/participants': 'getOfferParticipants',
  'GET /offer/{offerNumber}/documents': 'getOfferDocuments',
  'GET /offer/{offerNumber}/fma-notices': 'getOfferFmaNotices',
  'GET /offer/{offerNumber}/fma-notice/{noticeRecId}': 'getOfferFmaNotice',
  'GET /offer/{offerNumber}/fma-notice/{noticeRecId}/financial-markets-authority-notice-documents':
    'getOfferFmaNoticeDocuments',
  'GET /offer/{offerNumber}/funds': 'getOfferFunds',
  'GET /offer/{offerNumber}/{documentType}/{documentRecId}': 'getOfferDocument',
  'GET /fund/{fundNumber}': 'getFundByNumber',
  'GET /fund/{fundNumber}/holdings': 'getFundHoldings',
  'GET /fund/{fundNumber}/filing-history': 'getFundFilingHistory',
  'GET /fund/{fundNumber}/fund-returns': 'getFundReturns',
  'GET /fund/{fundNumber}/versions': 'getFundVersions',
  'GET /fund/{fundNumber}/fund-update-document': 'getFundUpdateDocument',
  'GET /scheme/{schemeNumber}/versions': 'getSchemeVersions',
  'GET /scheme/{schemeNumber}/filing-history': 'getSchemeFilingHistory',
  'GET /scheme/{schemeNumber}/participants': 'getSchemeParticipants',
  'GET /scheme/{schemeNumber}/documents': 'getSchemeDocuments',
  'GET /scheme/{schemeNumber}/fma-notices': 'getSchemeFmaNotices',
  'GET /scheme/{schemeNumber}/fma-notice/{noticeRecId}': 'getSchemeFmaNotice',
  'GET /scheme/{schemeNumber}/fma-notice/{noticeRecId}/financial-markets-authority-notice-documents':
    'getSchemeFmaNoticeDocuments',
  'GET /scheme/{schemeNumber}/governing-documents': 'getSchemeGoverningDocuments',
  'GET /scheme/{schemeNumber}/manager-and-supervisor-consent-documents':
    'getSchemeManagerAndSupervisorConsentDocuments',
  'GET /scheme/{schemeNumber}/offers': 'getSchemeOffers',
  'GET /scheme/{schemeNumber}/{documentType}/{documentRecId}': 'getSchemeDocument',
} as const satisfies OperationIds;
