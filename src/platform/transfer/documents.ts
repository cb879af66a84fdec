/**
 * Documents beside a transfer file: a register whose records carry documents (the offers register's,
 * the business number register's filings) writes their bytes as files in a folder beside the NDJSON,
 * each named by the document's identifier and its file name's extension, checked on import by size and
 * SHA-256.
 */
import { createHash } from 'node:crypto';
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
