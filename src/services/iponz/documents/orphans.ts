/**
 * Orphan files: bytes in the store with no row in `iponz_case_documents` — a write whose transaction
 * failed after the file was put (the file is written first, its row in the transaction), a staged
 * attachment left by a process that stopped mid-request, a temporary file of a cut write. Removed when
 * older than `olderThanMs` (an hour when the routes start), so a write under way is never touched
 * (platform/documents/orphans.ts).
 */
import type pg from 'pg';
import type { FolderDocumentStore } from '../../../platform/documents/folder-store.ts';
import { deleteOrphanFiles } from '../../../platform/documents/orphans.ts';
import { recordedDocuments } from '../store/documents.ts';

export const deleteOrphanDocuments = (
  store: FolderDocumentStore,
  pool: pg.Pool,
  olderThanMs: number,
  now = Date.now(),
): Promise<number> => deleteOrphanFiles(store, (ids) => recordedDocuments(pool, ids), olderThanMs, now);
