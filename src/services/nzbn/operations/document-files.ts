/**
 * Where the register's uploaded documents live: the platform's folder store (platform/documents/) in
 * `RSG_NZBN_DOCUMENTS_DIR`, else `<RSG_DATA_DIR>/nzbn-documents`, a subfolder per database (the
 * sandbox's and production's never meet), with `uploads/` beside the stored files for the multipart
 * reader's temporary files. What is left there by a failure — bytes no row names (a transaction that
 * failed after the file was written), an upload a stopped process never finished — is removed when the
 * routes start, once older than an hour (`cleanDocumentFiles`).
 */
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Database } from '../../../platform/db/pool.ts';
import type { FolderDocumentStore } from '../../../platform/documents/folder-store.ts';
import {
  type DocumentsPlace,
  documentsFolder,
  folderStoreFor,
} from '../../../platform/documents/location.ts';
import { deleteOrphanFiles } from '../../../platform/documents/orphans.ts';
import { recordedStorage } from '../store/documents.ts';

export const PLACE: DocumentsPlace = { variable: 'RSG_NZBN_DOCUMENTS_DIR', folder: 'nzbn-documents' };

/** An hour: no upload or write under way is that old. */
export const ORPHAN_AGE_MS = 60 * 60 * 1000;

export const documentFilesOf = (database: Pick<Database, 'url'>): FolderDocumentStore =>
  folderStoreFor(PLACE, database);

/** The folder of the multipart reader's temporary files. */
export const uploadFolderOf = (database: Pick<Database, 'url'>): string =>
  path.join(documentsFolder(PLACE, database.url), 'uploads');

/** Removes the files no document's row names, and uploads left unfinished, older than `olderThanMs`. */
export async function cleanDocumentFiles(
  database: Database,
  olderThanMs = ORPHAN_AGE_MS,
  now = Date.now(),
): Promise<number> {
  let removed = await deleteOrphanFiles(
    documentFilesOf(database),
    (ids) => recordedStorage(database.pool, ids),
    olderThanMs,
    now,
  );
  const uploads = uploadFolderOf(database);
  for (const name of await readdir(uploads).catch(() => [] as string[])) {
    const file = path.join(uploads, name);
    const info = await stat(file).catch(() => undefined);
    if (info && now - info.mtimeMs > olderThanMs) {
      await rm(file, { force: true });
      removed++;
    }
  }
  return removed;
}
