/**
 * The operations of the published business number register v5 definition that this register serves:
 * each one's published code, method, path and operation id, as the definition states them
 * (reference-data/nzbn/v5-operations.md). A route declares its code with `published(code)`, which puts
 * the operation id and `x-operation-code` into its OpenAPI entry; `checkPublishedRoute` (run for every
 * route as it is added) refuses to start when a route's method or path is not its code's.
 * `test/services/nzbn/published.test.ts` holds this table, and our OpenAPI document, to the definition.
 */
import type { RouteOptions } from 'fastify';

type Served = readonly [method: string, path: string, operationId: string];

export const SERVED_OPERATIONS = {
  NZBN_001_1: ['GET', '/entities', 'EntitiesGet'],
  NZBN_003: ['POST', '/entities', 'registerNzbn'],
  NZBN_001_2: ['GET', '/entities/changes', 'EntitiesChangesGet'],
  OP001: ['GET', '/entities/organisation-parts', 'EntitiesOrganisationPartsFind'],
  OP024: ['GET', '/entities/organisation-parts-purchase/{transaction_id}', 'checkOrganisationPartPurchase'],
  OP025: [
    'POST',
    '/entities/organisation-parts/action-request-access',
    'EntitiesOrganisationPartRequestAccess',
  ],
  OP002: ['GET', '/entities/organisation-parts/gln/{gln}', 'EntitiesEntityFindByGln'],
  NZBN_002: ['GET', '/entities/{nzbn}', 'EntitiesByNzbnGet'],
  NZBN_005_1: [
    'POST',
    '/entities/{nzbn}/action-update-australian-business-numbers',
    'EntitiesABNActionUpdate',
  ],
  NZBN_004_1: ['GET', '/entities/{nzbn}/addresses', 'EntitiesAddressesByNzbnGet'],
  NZBN_024_1: ['POST', '/entities/{nzbn}/addresses', 'EntitiesAddressesByNzbnPost'],
  NZBN_044_1: ['DELETE', '/entities/{nzbn}/addresses/{id}', 'EntitiesAddressesByNzbnDelete'],
  NZBN_004_20: [
    'GET',
    '/entities/{nzbn}/business-ethnicity-identifiers',
    'EntitiesBusinessEthnicityByNzbnGet',
  ],
  NZBN_024_13: [
    'POST',
    '/entities/{nzbn}/business-ethnicity-identifiers',
    'EntitiesBusinessEthnicitiesByNzbnPost',
  ],
  NZBN_004_2: ['GET', '/entities/{nzbn}/company-details', 'EntitiesCompanyDetailsByNzbnGet'],
  NZBN_002_1: ['GET', '/entities/{nzbn}/discoverable', 'EntitiesByNzbnGetDiscoverable'],
  NZBN_004_10: ['GET', '/entities/{nzbn}/email-addresses', 'EntitiesEmailAddressesByNzbnGet'],
  NZBN_024_10: ['POST', '/entities/{nzbn}/email-addresses', 'EntitiesEmailAddressesByNzbnPost'],
  NZBN_004_11: ['GET', '/entities/{nzbn}/gst-numbers', 'EntitiesGstNumbersByNzbnGet'],
  NZBN_024_11: ['POST', '/entities/{nzbn}/gst-numbers', 'EntitiesGstNumbersByNzbnPost'],
  NZBN_004_14: ['GET', '/entities/{nzbn}/history', 'EntitiesHistoryByNzbnGet'],
  NZBN_004_15: ['GET', '/entities/{nzbn}/history/addresses', 'EntitiesHistoryAddressesByNzbnGet'],
  NZBN_004_16: ['GET', '/entities/{nzbn}/history/entity-names', 'EntitiesHistoryEntityNamesByNzbnGet'],
  NZBN_004_19: ['GET', '/entities/{nzbn}/history/entity-statuses', 'EntitiesHistoryEntityStatusesByNzbnGet'],
  NZBN_014: [
    'GET',
    '/entities/{nzbn}/history/hibernation-statuses',
    'EntitiesHistoryHibernationStatusesByNzbnGet',
  ],
  NZBN_004_18: ['GET', '/entities/{nzbn}/history/trading-areas', 'EntitiesHistoryTradingAreasByNzbnGet'],
  NZBN_004_17: ['GET', '/entities/{nzbn}/history/trading-names', 'EntitiesHistoryTradingNamesByNzbnGet'],
  NZBN_004_6: [
    'GET',
    '/entities/{nzbn}/industry-classifications',
    'EntitiesIndustryClassificationsByNzbnGet',
  ],
  NZBN_024_6: [
    'POST',
    '/entities/{nzbn}/industry-classifications',
    'EntitiesIndustryClassificationsByNzbnPost',
  ],
  NZBN_004_13: ['GET', '/entities/{nzbn}/filings', 'EntitiesFilingsByNzbnGet'],
  NZBN_004_2b: ['GET', '/entities/{nzbn}/non-company-details', 'EntitiesNonCompanyDetailsByNzbnGet'],
  OP003: ['GET', '/entities/{nzbn}/organisation-parts', 'EntitiesOrganisationPartsByNzbnGet'],
  OP005: ['POST', '/entities/{nzbn}/organisation-parts', 'EntitiesOrganisationPartByNzbnPost'],
  OP023: [
    'GET',
    '/entities/{nzbn}/organisation-parts-allocation',
    'EntitiesOrganisationPartsByNzbnGetAllocation',
  ],
  OP004: ['GET', '/entities/{nzbn}/organisation-parts/{opn}', 'EntitiesOrganisationPartByNzbnGet'],
  OP006: ['PUT', '/entities/{nzbn}/organisation-parts/{opn}', 'EntitiesOrganisationPartByNzbnPut'],
  // The items of an organisation part and its share list (routes/org-part-items.ts).
  OP018: [
    'POST',
    '/entities/{nzbn}/organisation-parts/{opn}/action-append-nzbns',
    'EntitiesOrganisationPartAddNzbn',
  ],
  OP019: [
    'POST',
    '/entities/{nzbn}/organisation-parts/{opn}/action-delete-nzbns',
    'EntitiesOrganisationPartRemoveNzbn',
  ],
  OP007: [
    'POST',
    '/entities/{nzbn}/organisation-parts/{opn}/addresses',
    'EntitiesOrganisationPartByNzbnAddressesPost',
  ],
  OP008: [
    'DELETE',
    '/entities/{nzbn}/organisation-parts/{opn}/addresses/{uid}',
    'EntitiesOrganisationPartAddressByNzbnDelete',
  ],
  OP015: [
    'POST',
    '/entities/{nzbn}/organisation-parts/{opn}/custom-data',
    'EntitiesOrganisationPartByNzbnCustomDataPost',
  ],
  OP017: [
    'DELETE',
    '/entities/{nzbn}/organisation-parts/{opn}/custom-data/{uid}',
    'EntitiesOrganisationParByNzbnCustomDataDelete',
  ],
  OP016: [
    'PUT',
    '/entities/{nzbn}/organisation-parts/{opn}/custom-data/{uid}',
    'EntitiesOrganisationPartByNzbnCustomDataPut',
  ],
  OP012: [
    'POST',
    '/entities/{nzbn}/organisation-parts/{opn}/email-addresses',
    'EntitiesOrganisationPartByNzbnEmailPost',
  ],
  OP014: [
    'DELETE',
    '/entities/{nzbn}/organisation-parts/{opn}/email-addresses/{uid}',
    'EntitiesOrganisationPartEmailByNzbnDelete',
  ],
  OP013: [
    'PUT',
    '/entities/{nzbn}/organisation-parts/{opn}/email-addresses/{uid}',
    'EntitiesOrganisationPartEmailAddressByNzbnPut',
  ],
  OP009: [
    'POST',
    '/entities/{nzbn}/organisation-parts/{opn}/phone-numbers',
    'EntitiesOrganisationPartByNzbnPhoneNumberPost',
  ],
  OP011: [
    'DELETE',
    '/entities/{nzbn}/organisation-parts/{opn}/phone-numbers/{uid}',
    'EntitiesOrganisationPartPhoneNumberByNzbnDelete',
  ],
  OP010: [
    'PUT',
    '/entities/{nzbn}/organisation-parts/{opn}/phone-numbers/{uid}',
    'EntitiesOrganisationPartPhoneNumberByNzbnPut',
  ],
  OP020: [
    'POST',
    '/entities/{nzbn}/organisation-parts/{opn}/purpose',
    'EntitiesOrganisationPartByNzbnPurposePost',
  ],
  OP022: [
    'DELETE',
    '/entities/{nzbn}/organisation-parts/{opn}/purpose/{uid}',
    'EntitiesOrganisationPartPurposeByNzbnDelete',
  ],
  OP021: [
    'PUT',
    '/entities/{nzbn}/organisation-parts/{opn}/purpose/{uid}',
    'EntitiesOrganisationPartPurposeByNzbnPut',
  ],
  NZBN_004_4: ['GET', '/entities/{nzbn}/payment-bank-accounts', 'EntitiesPaymentBankAccountsByNzbnGet'],
  NZBN_024_4: ['POST', '/entities/{nzbn}/payment-bank-accounts', 'EntitiesPaymentBankAccountsByNzbnPost'],
  NZBN_004_9: ['GET', '/entities/{nzbn}/phone-numbers', 'EntitiesPhoneNumbersByNzbnGet'],
  NZBN_024_9: ['POST', '/entities/{nzbn}/phone-numbers', 'EntitiesPhoneNumbersByNzbnPost'],
  NZBN_004_5: ['GET', '/entities/{nzbn}/privacy-settings', 'EntitiesPrivacySettingsByNzbnGet'],
  NZBN_034_5: ['PUT', '/entities/{nzbn}/privacy-settings', 'EntitiesPrivacySettingsByNzbnPut'],
  NZBN_004_3: ['GET', '/entities/{nzbn}/roles', 'EntitiesRolesByNzbnGet'],
  NZBN_024_3: ['POST', '/entities/{nzbn}/roles', 'EntitiesRolesByNzbnPost'],
  NZBN_034_3: ['PUT', '/entities/{nzbn}/roles/{id}', 'EntitiesRolesByNzbnPut'],
  NZBN_024_2: ['POST', '/entities/{nzbn}/statuses', 'EntitiesEntityStatusPost'],
  NZBN_004_12: ['GET', '/entities/{nzbn}/trading-areas', 'EntitiesTradingAreasByNzbnGet'],
  NZBN_024_12: ['POST', '/entities/{nzbn}/trading-areas', 'EntitiesTradingAreasByNzbnPost'],
  NZBN_004_7: ['GET', '/entities/{nzbn}/trading-names', 'EntitiesTradingNamesByNzbnGet'],
  NZBN_024_7: ['POST', '/entities/{nzbn}/trading-names', 'EntitiesTradingNamesByNzbnPost'],
  NZBN_004_8: ['GET', '/entities/{nzbn}/websites', 'EntitiesWebsitesByNzbnGet'],
  NZBN_024_8: ['POST', '/entities/{nzbn}/websites', 'EntitiesWebsitesByNzbnPost'],
  NZBN_008: ['GET', '/watchlists', 'WatchlistsGet'],
  NZBN_009: ['POST', '/watchlists', 'WatchlistsPost'],
  NZBN_011_1: ['DELETE', '/watchlists/{watchlistId}', 'WatchlistsByWatchlistIdDelete'],
  NZBN_007: ['GET', '/watchlists/{watchlistId}', 'WatchlistsByWatchlistIdGet'],
  NZBN_010_1: ['PUT', '/watchlists/{watchlistId}', 'WatchlistsByWatchlistIdPut'],
  NZBN_010_2: [
    'POST',
    '/watchlists/{watchlistId}/action-append-nzbns',
    'WatchlistsActionAppendNzbnsByWatchlistIdPost',
  ],
  NZBN_011_2: [
    'POST',
    '/watchlists/{watchlistId}/action-delete-nzbns',
    'WatchlistsActionDeleteNzbnsByWatchlistIdPost',
  ],
  NZBN_012: [
    'POST',
    '/watchlists/{watchlistId}/action-send-test-notification',
    'WatchlistsActionSendTestNotificationByWatchlistIdPost',
  ],
  NZBN_007_1: ['GET', '/watchlists/{watchlistId}/nzbns', 'WatchlistsNzbnsByWatchlistIdGet'],
  NZBN_105: ['POST', '/documents', 'DocumentsPost'],
  NZBN_905: ['POST', '/companies-document-upload', 'CompaniesDocumentPost'],
  NZBN_103_1: ['GET', '/authorities', 'AuthoritiesGet'],
  NZBN_103_2: ['POST', '/authorities', 'AuthoritiesPost'],
  NZBN_103_3: ['PUT', '/authorities/{authorityId}', 'AuthoritiesByAuthorityIdPut'],
  NZBN_101_1: ['GET', '/users', 'UsersGet'],
  NZBN_101_4: ['POST', '/users', 'UsersPost'],
  NZBN_101_2: ['GET', '/users/{userId}', 'UsersByUserIdGet'],
  NZBN_101_3: ['PUT', '/users/{userId}', 'UsersByUserIdPut'],
  NZBN_102_1: ['GET', '/organisations', 'OrganisationsGet'],
  NZBN_102_2: ['POST', '/organisations', 'OrganisationsPost'],
  NZBN_104_3: [
    'POST',
    '/organisations/activateOrganisationUser',
    'OrganisationsActivateOrganisationUserPost',
  ],
  NZBN_102_3: ['GET', '/organisations/{organisationId}', 'OrganisationsByOrganisationIdGet'],
  NZBN_102_4: ['PUT', '/organisations/{organisationId}', 'OrganisationsByOrganisationIdPut'],
  NZBN_104_1: [
    'GET',
    '/organisations/{organisationId}/organisationUsers',
    'OrganisationsOrganisationUsersByOrganisationIdGet',
  ],
  NZBN_104_2: [
    'POST',
    '/organisations/{organisationId}/organisationUsers',
    'OrganisationsOrganisationUsersByOrganisationIdPost',
  ],
  NZBN_104_6: [
    'DELETE',
    '/organisations/{organisationId}/organisationUsers/{organisationUserId}',
    'OrganisationsOrganisationUsersByOrganisationIdAndOrganisationUserIdDelete',
  ],
  NZBN_104_4: [
    'GET',
    '/organisations/{organisationId}/organisationUsers/{organisationUserId}',
    'OrganisationsOrganisationUsersByOrganisationIdAndOrganisationUserIdGet',
  ],
  NZBN_104_5: [
    'PUT',
    '/organisations/{organisationId}/organisationUsers/{organisationUserId}',
    'OrganisationsOrganisationUsersByOrganisationIdAndOrganisationUserIdPut',
  ],
} as const satisfies Record<string, Served>;

export type OperationCode = keyof typeof SERVED_OPERATIONS;

/**
 * Paths of ours the published definition does not have: the owner's side of the requests for access to
 * organisation parts (routes/org-part-access.ts), which the definition lacks. Each is marked in the
 * OpenAPI document (`x-ours: true` and its tag) and in the guide.
 */
export const UNPUBLISHED_PATHS: readonly string[] = [
  '/entities/{nzbn}/organisation-parts-access-requests',
  '/entities/{nzbn}/organisation-parts/{opn}/access-requests/{requestingNzbn}',
];

/** The OpenAPI entries a route's schema carries for its published operation. */
export function published(code: OperationCode): { operationId: string; 'x-operation-code': string } {
  return { operationId: SERVED_OPERATIONS[code][2], 'x-operation-code': code };
}

/** `/entities/:nzbn/roles/:id` as the definition writes it: `/entities/{nzbn}/roles/{id}`. */
export const openApiPath = (routePath: string): string => routePath.replace(/:([A-Za-z_]+)/g, '{$1}');

/**
 * Refuses a route whose published code names another method or path, and one with none that is not
 * among `UNPUBLISHED_PATHS` (HEAD routes Fastify adds for GETs are left alone).
 */
export function checkPublishedRoute(route: Pick<RouteOptions, 'method' | 'schema'> & { routePath: string }) {
  const methods = (Array.isArray(route.method) ? route.method : [route.method]).map(String);
  if (methods.every((method) => method === 'HEAD')) return;
  const path = openApiPath(route.routePath);
  const code = (route.schema as Record<string, unknown> | undefined)?.['x-operation-code'];
  if (code === undefined) {
    if (UNPUBLISHED_PATHS.includes(path)) return;
    throw new Error(`${methods.join(',')} ${path}: no published operation code`);
  }
  const served = SERVED_OPERATIONS[code as OperationCode] as Served | undefined;
  if (!served || !methods.includes(served[0]) || served[1] !== path) {
    throw new Error(
      `${methods.join(',')} ${path}: the published ${String(code)} is ${served?.slice(0, 2).join(' ')}`,
    );
  }
}
