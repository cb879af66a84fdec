import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Each test worker keeps the files the product writes beside its databases (bulk data exports, the offers
 * register's, the IP office's and the business number register's documents) in a temporary folder of its
 * own, removed when the worker ends — never in the checkout's `data/`, where workers running at once would write the same files. A
 * test that needs a folder of its own still sets the variable itself.
 *
 * The suite runs without isolation (vitest.config.ts): a worker process runs file after file, and this
 * setup runs before each. The folder is made once per process; before each file the variables are put
 * back to what the worker started with (the caller's own setting, or the worker's folders), so a file that
 * pointed one elsewhere does not leave it so for the next.
 */
const VARIABLES = [
  ['RSG_BULK_DATA_DIR', 'bulk-data'],
  ['RSG_DISCLOSE_DOCUMENTS_DIR', 'disclose-documents'],
  ['RSG_IPONZ_DOCUMENTS_DIR', 'iponz-documents'],
  ['RSG_NZBN_DOCUMENTS_DIR', 'nzbn-documents'],
] as const;

const KEPT = Symbol.for('rsg.test.worker-folders');
type Kept = Record<string, string>;
const holder = globalThis as { [KEPT]?: Kept };

if (!holder[KEPT]) {
  const root = mkdtempSync(path.join(tmpdir(), 'rsg-worker-'));
  const kept: Kept = {};
  for (const [variable, folder] of VARIABLES)
    kept[variable] = process.env[variable] ?? path.join(root, folder);
  holder[KEPT] = kept;
  process.once('exit', () => rmSync(root, { recursive: true, force: true }));
}
Object.assign(process.env, holder[KEPT]);
