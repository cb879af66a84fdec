/** The business number register (v5): every operation under its published operation id. */
import { pagingOf } from '../core/register.ts';
import type { KnownOperation } from '../core/typing.ts';
import { basePath, operationIds, type paths } from '../generated/nzbn.ts';

export type NzbnPaths = paths;
export const nzbnOperations = operationIds satisfies Record<string, KnownOperation<paths>>;
/** An entity's ETag covers its parts: a write to `/entities/{nzbn}/…` matches `/entities/{nzbn}`'s. */
const etagScope = (path: string): string => /^\/entities\/\d{13}(?=\/|$)/.exec(path)?.[0] ?? path;

export const nzbn = {
  basePath,
  operations: nzbnOperations,
  paging: pagingOf(0, ['items'], ['totalItems']),
  etagScope,
};
