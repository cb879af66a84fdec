/**
 * What the IP office's operations share: the not-found error, the paged envelope, the case cache an operation reads through
 * and keeps in step when it has one (the routes' process has; a tool's need not), and a case read for
 * an answer.
 */
import type pg from 'pg';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import type { PageRequest } from '../../../platform/http/pagination.ts';
import type { CaseKind } from '../domain/renewals.ts';
import { type CachedCase, type CaseCache, caseKey } from '../store/case-cache.ts';
import { findCase } from '../store/cases.ts';

export const notFound = (what: string): HttpError => new HttpError(PLATFORM_ERRORS.notFound, `No ${what}`);

/** The register's one paged envelope: `totalResults`, `page`, `pageSize`, then the page's items. */
export function pagedAnswer<Key extends string, Item>(
  paging: PageRequest,
  totalResults: number,
  key: Key,
  items: Item[],
) {
  return { totalResults, page: paging.page, pageSize: paging.pageSize, [key]: items } as {
    totalResults: number;
    page: number;
    pageSize: number;
  } & Record<Key, Item[]>;
}

/**
 * The process's case cache (store/case-cache.ts), when it keeps one: reads go through it, and a write
 * drops its case from it at commit and waits for its notice. Without one (the CLI, an import) reads go to
 * the store and the notice a write sends still reaches every process that keeps one.
 */
export interface CaseCacheOption {
  cases?: CaseCache | undefined;
}

/** A case read for an answer: from the case cache when it is kept and trusted, else from the store. */
export async function readCase(
  pool: pg.Pool,
  cache: CaseCache | undefined,
  kind: CaseKind,
  caseNumber: number,
): Promise<CachedCase | null> {
  if (!cache) {
    const record = await findCase(pool, kind, caseNumber);
    return record ? { record, documents: new Map() } : null;
  }
  const key = caseKey(kind, caseNumber);
  const kept = cache.get(key);
  if (kept) return kept;
  const mark = cache.mark();
  const record = await findCase(pool, kind, caseNumber);
  return record ? cache.keep(key, record, mark) : null;
}

/**
 * After a write's commit: drops the case from this process's cache and waits for its notice to come
 * back (`echoed`: listened for inside the transaction, before the commit sent it).
 */
export async function caseWritten(
  cache: CaseCache | undefined,
  kind: CaseKind,
  caseNumber: number,
  echoed: Promise<void> | undefined,
): Promise<void> {
  if (!cache || !echoed) return;
  cache.drop(caseKey(kind, caseNumber));
  await echoed;
}
