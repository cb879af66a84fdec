/** The rental statistics (v2): four operations, named after what they get (none are published). */
import { pagingOf } from '../core/register.ts';
import type { KnownOperation } from '../core/typing.ts';
import { basePath, type paths } from '../generated/market-rent.ts';

export type MarketRentPaths = paths;
export const marketRentOperations = {
  getStatistics: 'GET /statistics',
  getAreaDefinitions: 'GET /area-definitions',
  getAreaDefinition: 'GET /area-definitions/{areaDefinition}',
  getAreaLabels: 'GET /area-definition/{areaDefinition}/area-labels',
} as const satisfies Record<string, KnownOperation<paths>>;
export const marketRent = { basePath, operations: marketRentOperations, paging: pagingOf(1, ['items'], []) };
