/**
 * The offers register (v1): every operation under its operation id, the register's published draft
 * names (searchOffers, getOffer, …) and, where it published none, names of the same pattern.
 */
import { pagingOf } from '../core/register.ts';
import type { KnownOperation } from '../core/typing.ts';
import { basePath, etagOf, mediaTypes, operationIds, type paths } from '../generated/disclose.ts';

export type DisclosePaths = paths;
export const discloseOperations = operationIds satisfies Record<string, KnownOperation<paths>>;
export const disclose = {
  basePath,
  mediaTypes,
  etagOf,
  operations: discloseOperations,
  paging: pagingOf(1, ['items'], ['totalItems']),
};
