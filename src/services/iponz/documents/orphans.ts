/**
 * Orphan files: bytes in the store with no row in `iponz_case_documents` — a write whose transaction
 * failed after the file was put (the file is written first, its row in the transaction), a staged
 * attachment left by a process that stopped mid-request, a temporary file of a cut write. Removed when
 * older than `olderThanMs` (an hour when the routes start), so a write under way is never touched.
 */
import type pg from 'pg';
import { recordedDocuments } from '../store/documents.ts';
import type { FolderDocumentStore } from './fs-store.ts';

export async function deleteOrphanDocuments(
  store: FolderDocumentStore,
  pool: pg.Pool,
  olderThanMs: number,
  now = Date.now(),
): Promise<number> {
  let removed = await store.cleanTemporaries(olderThanMs, now);
  let batch: string[] = [];
  const flush = async () => {
    const recorded = await recordedDocuments(
      pool,
      batch.filter((id) => !id.startsWith('staged-')),
    );
    for (const id of batch) if (!recorded.has(id) && (await store.delete(id))) removed++;
    batch = [];
  };
  for await (const { id, modifiedMs } of store.list()) {
    if (now - modifiedMs <= olderThanMs) continue;
    batch.push(id);
    if (batch.length >= 500) await flush();
  }
  if (batch.length) await flush();
  return removed;
}
