/**
 * Orphan files: bytes in a folder store that no row of the register records — a write whose transaction
 * failed after the file was put (a register writes the file first, its row in the transaction), a staged
 * upload left by a process that stopped mid-request, a temporary file of a cut write. Removed when older
 * than `olderThanMs`, so a write under way is never touched. The register says which identifiers it
 * records (`recorded`, asked in batches of 500); staged names are never recorded.
 */
import type { FolderDocumentStore } from './folder-store.ts';

export async function deleteOrphanFiles(
  store: FolderDocumentStore,
  recorded: (ids: readonly string[]) => Promise<ReadonlySet<string>>,
  olderThanMs: number,
  now = Date.now(),
): Promise<number> {
  let removed = await store.cleanTemporaries(olderThanMs, now);
  let batch: string[] = [];
  const flush = async () => {
    const kept = await recorded(batch.filter((id) => !id.startsWith('staged-')));
    for (const id of batch) if (!kept.has(id) && (await store.delete(id))) removed++;
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
