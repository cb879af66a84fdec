/** The business number register (v5): every operation under its published operation id. */
import { pagingOf } from '../core/register.ts';
import type { KnownOperation } from '../core/typing.ts';
import { basePath, etagOf, mediaTypes, operationIds, type paths } from '../generated/nzbn.ts';

export type NzbnPaths = paths;
export const nzbnOperations = operationIds satisfies Record<string, KnownOperation<paths>>;

export const nzbn = {
  basePath,
  mediaTypes,
  operations: nzbnOperations,
  paging: pagingOf(0, ['items'], ['totalItems']),
  /** Writes to an entity's parts hold against the entity's ETag, to a part's items against the part's. */
  etagOf,
};
