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

/** A document made from a kept case once, then sent as the same text. */
export function documentOf(cached: CachedCase, format: string, make: () => string): string {
  let text = cached.documents.get(format);
  if (text === undefined) {
    text = make();
    cached.documents.set(format, text);
  }
  return text;
}
