/**
 * Documents beside a transfer file: a register whose records carry documents (the offers register's,
 * the business number register's filings) writes their bytes as files in a folder beside the NDJSON,
 * each named by the document's identifier and its file name's extension, checked on import by size and
 * SHA-256.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** The documents folder of a transfer file: `<name without .gz, .ndjson, .jsonl, .json>.documents`. */
export function documentsFolderOf(file: string): string {
  return `${file.replace(/\.gz$/, '').replace(/\.(ndjson|jsonl|json)$/, '')}.documents`;
}

/** A document's file in the folder: its identifier and its file name's extension (when a plain one). */
export function documentFileName(id: string, fileName: string | null): string {
  const extension = path.extname(fileName ?? '');
  return `${id}${/^\.[A-Za-z0-9]{1,10}$/.test(extension) ? extension.toLowerCase() : ''}`;
}

export const sha256Hex = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** The folder `--documents` names, else the one beside `file`; undefined for standard output. */
export function documentsFolderFor(option: unknown, file: string | undefined): string | undefined {
  if (typeof option === 'string') return option;
  return file ? documentsFolderOf(file) : undefined;
}

/**
 * What is wrong with a document's file in the documents folder, given the size and SHA-256 its line
 * declares (the size under the field name `sizeField` of the register's format): no such file, another
 * size, other bytes; undefined when it is as declared.
 */
export function documentFileProblem(
  folder: string,
  file: string,
  size: number,
  sha256: string,
  sizeField = 'size',
): string | undefined {
  const full = path.join(folder, file);
  let actual: number;
  try {
    const info = statSync(full);
    if (!info.isFile()) return `no such file in ${folder}`;
    actual = info.size;
  } catch {
    return `no such file in ${folder}`;
  }
  if (actual !== size) return `has ${actual} bytes, not ${sizeField} (${size})`;
  if (sha256Hex(readFileSync(full)) !== sha256) return 'does not match sha256';
  return undefined;
}
