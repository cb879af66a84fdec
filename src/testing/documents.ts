import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { type DocumentsPlace, documentsRoot } from '../platform/documents/location.ts';
import { cacheFolder } from './machine.ts';

/**
 * Where a harness's registers keep their documents: under the machine's cache folder, unless the suite's
 * process names a place itself (`RSG_DATA_DIR`, or a register's own variable), so a suite's working
 * directory never gets a data folder. Each run's folders are named after its databases (location.ts).
 */
export function placeDocuments(
  places: readonly DocumentsPlace[],
  env: NodeJS.ProcessEnv = process.env,
  cache: string = cacheFolder(),
): void {
  for (const place of places) {
    if (!env[place.variable] && !env.RSG_DATA_DIR) env[place.variable] = path.join(cache, place.folder);
  }
}

/** The run's document folders (its databases' and its kept states': named `<prefix>…`), removed. */
export async function dropRunDocuments(
  places: readonly DocumentsPlace[],
  prefix: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  for (const place of places) {
    const root = documentsRoot(place, env);
    const names = await readdir(root).catch(() => [] as string[]);
    for (const name of names) {
      if (name.startsWith(prefix)) await rm(path.join(root, name), { recursive: true, force: true });
    }
  }
}
