/**
 * Where a register's documents live: a folder per register, from its own variable (the IP office's
 * `RSG_IPONZ_DOCUMENTS_DIR`, the business number register's `RSG_NZBN_DOCUMENTS_DIR`), else
 * `<RSG_DATA_DIR or ./data>/<its folder name>`, then one subfolder per database (its name), so the
 * sandbox and production — and each test's database — never share a document. Read from the
 * environment, not the settings: service settings are numbers. Tests set the variables to temporary
 * folders (test/support/worker-folders.ts).
 */
import path from 'node:path';
import type { Database } from '../db/pool.ts';
import { FolderDocumentStore } from './folder-store.ts';

/** A register's place for its documents: the variable that moves it, and its folder's default name. */
export interface DocumentsPlace {
  variable: string;
  folder: string;
}

export function documentsFolder(
  place: DocumentsPlace,
  databaseUrl: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, '')) || 'default';
  return databaseFolder(documentsRoot(place, env), name);
}

/** The folder that holds a register's per-database folders. */
export function documentsRoot(place: DocumentsPlace, env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env[place.variable] || path.join(env.RSG_DATA_DIR || 'data', place.folder));
}

/** The documents folder of the database named `database` under a register's root. */
export function databaseFolder(root: string, database: string): string {
  return path.resolve(root, database.replace(/[^A-Za-z0-9_-]/g, '_'));
}

/** One store per folder, shared by the routes of every process that uses it. */
const stores = new Map<string, FolderDocumentStore>();
export function folderStoreFor(place: DocumentsPlace, database: Pick<Database, 'url'>): FolderDocumentStore {
  const folder = documentsFolder(place, database.url);
  let store = stores.get(folder);
  if (!store) {
    store = new FolderDocumentStore(folder);
    stores.set(folder, store);
  }
  return store;
}
