// A file of a cache folder written whole or not at all, in plain JavaScript: the harness's loader
// (testing/loader.js) uses it before TypeScript can be loaded, the schema compilers after.
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Writes `text` to `file` (written aside, then renamed over it); a failure is no loss, only no cache. */
export function keepFile(file, text) {
  const aside = `${file}.${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(aside, text);
    renameSync(aside, file);
  } catch {}
}
