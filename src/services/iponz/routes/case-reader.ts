/** Reading a case for an answer: from the case cache when it is kept and trusted, else from the store. */
import type pg from 'pg';
import type { CaseKind } from '../domain/renewals.ts';
import { type CachedCase, type CaseCache, caseKey } from '../store/case-cache.ts';
import { findCase } from '../store/cases.ts';

export async function readCase(
  pool: pg.Pool,
  cache: CaseCache,
  kind: CaseKind,
  caseNumber: number,
): Promise<CachedCase | null> {
  const key = caseKey(kind, caseNumber);
  const kept = cache.get(key);
  if (kept) return kept;
  const mark = cache.mark();
  const record = await findCase(pool, kind, caseNumber);
  return record ? cache.keep(key, record, mark) : null;
}

/** A document made from a kept case once and encoded once (UTF-8), then sent as the same bytes. */
export function documentOf(cached: CachedCase, format: string, make: () => string): Buffer {
  let bytes = cached.documents.get(format);
  if (bytes === undefined) {
    bytes = Buffer.from(make(), 'utf8');
    cached.documents.set(format, bytes);
  }
  return bytes;
}
