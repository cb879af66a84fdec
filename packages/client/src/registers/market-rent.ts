/** The rental statistics (v2): every operation under its operation id (ours: the register publishes none). */
import { pagingOf } from '../core/register.ts';
import type { KnownOperation } from '../core/typing.ts';
import { basePath, etagOf, mediaTypes, operationIds, type paths } from '../generated/market-rent.ts';

export type MarketRentPaths = paths;
export const marketRentOperations = operationIds satisfies Record<string, KnownOperation<paths>>;
export const marketRent = {
  basePath,
  mediaTypes,
  etagOf,
  operations: marketRentOperations,
  paging: pagingOf(1, ['items'], []),
};
