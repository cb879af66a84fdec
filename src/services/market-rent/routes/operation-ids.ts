import type { OperationIds } from '../../../platform/http/operation-ids.ts';

/**
 * The operation ids of the rental statistics (`operationId` in its document, and the typed client's
 * method names). The register publishes none: these are ours, each named after what it gets.
 */
export const MARKET_RENT_OPERATION_IDS = {
  'GET /statistics': 'getStatistics',
  'GET /area-definitions': 'getAreaDefinitions',
  'GET /area-definitions/{areaDefinition}': 'getAreaDefinition',
  'GET /area-definition/{areaDefinition}/area-labels': 'getAreaLabels',
} as const satisfies OperationIds;
