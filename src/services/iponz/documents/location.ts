/**
 * Where an environment's documents live (ours): the folder `RSG_IPONZ_DOCUMENTS_DIR`, else
 * `<RSG_DATA_DIR or ./data>/iponz-documents`, then one subfolder per database (its name), so the
 * sandbox and production — and each test's database — never share a document. Tests set
 * `RSG_IPONZ_DOCUMENTS_DIR` to a temporary folder. Read from the environment, not the settings:
 * service settings are numbers.
 */
import path from 'node:path';
import type { Database } from '../../../platform/db/pool.ts';
import { FolderDocumentStore } from './fs-store.ts';

export function documentsFolder(databaseUrl: string, env: NodeJS.ProcessEnv = process.env): string {
  const root = env.RSG_IPONZ_DOCUMENTS_DIR || path.join(env.RSG_DATA_DIR || 'data', 'iponz-documents');
  const name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, '')) || 'default';
  return path.resolve(root, name.replace(/[^A-Za-z0-9_-]/g, '_'));
}

/** One store per database, shared by the routes of every process that uses it. */
const stores = new Map<string, FolderDocumentStore>();
export function documentStoreFor(database: Pick<Database, 'url'>): FolderDocumentStore {
  const folder = documentsFolder(database.url);
  let store = stores.get(folder);
  if (!store) {
    store = new FolderDocumentStore(folder);
    stores.set(folder, store);
  }
  return store;
}
