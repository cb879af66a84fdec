import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Each test worker keeps the files the product writes beside its databases (bulk data exports, the offers
 * register's and the IP office's documents) in a temporary folder of its own, removed when the worker
 * ends — never in the checkout's `data/`, where workers running at once would write the same files. A
 * test that needs a folder of its own still sets the variable itself.
 */
const root = mkdtempSync(path.join(tmpdir(), 'rsg-worker-'));
for (const [variable, folder] of [
  ['RSG_BULK_DATA_DIR', 'bulk-data'],
  ['RSG_DISCLOSE_DOCUMENTS_DIR', 'disclose-documents'],
  ['RSG_IPONZ_DOCUMENTS_DIR', 'iponz-documents'],
] as const) {
  process.env[variable] ??= path.join(root, folder);
}
process.once('exit', () => rmSync(root, { recursive: true, force: true }));
