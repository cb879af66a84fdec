/**
 * Where an environment's documents live (ours): the folder `RSG_IPONZ_DOCUMENTS_DIR`, else
 * `<RSG_DATA_DIR or ./data>/iponz-documents`, then one subfolder per database (its name), so the
 * sandbox and production — and each test's database — never share a document
 * (platform/documents/location.ts). Tests set `RSG_IPONZ_DOCUMENTS_DIR` to a temporary folder.
 */
import type { Database } from '../../../platform/db/pool.ts';
import type { FolderDocumentStore } from '../../../platform/documents/folder-store.ts';
import {
  type DocumentsPlace,
  documentsFolder as folderOf,
  folderStoreFor,
} from '../../../platform/documents/location.ts';

export const PLACE: DocumentsPlace = { variable: 'RSG_IPONZ_DOCUMENTS_DIR', folder: 'iponz-documents' };

export const documentsFolder = (databaseUrl: string, env: NodeJS.ProcessEnv = process.env): string =>
  folderOf(PLACE, databaseUrl, env);

/** One store per database, shared by the routes of every process that uses it. */
export const documentStoreFor = (database: Pick<Database, 'url'>): FolderDocumentStore =>
  folderStoreFor(PLACE, database);
