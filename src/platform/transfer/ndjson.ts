/**
 * NDJSON files for imports and exports: one JSON value per line, gzip or not (told apart by the file's
 * first two bytes, never its name), read and written as streams so memory stays flat whatever the size.
 */
import { closeSync, createReadStream, createWriteStream, openSync, readSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import { drained } from '../drained.ts';

const GZIP_MAGIC = [0x1f, 0x8b];

/** Does the file begin with gzip's magic bytes? */
export function isGzip(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(2);
    const read = readSync(fd, head, 0, 2, 0);
    return read === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  } finally {
    closeSync(fd);
  }
}

/** One line of a file: its number (from 1) and its text without the line break. */
export interface FileLine {
  line: number;
  text: string;
}

/**
 * The lines of a text file, gunzipped when it is gzip; `onBytes` is told the file's bytes read so far
 * (compressed bytes for a gzip file), for progress against `statSync(file).size`.
 */
export async function* fileLines(file: string, onBytes?: (bytes: number) => void): AsyncGenerator<FileLine> {
  const raw = createReadStream(file, { highWaterMark: 256 * 1024 });
  let bytes = 0;
  if (onBytes) {
    raw.on('data', (chunk) => {
      bytes += chunk.length;
      onBytes(bytes);
    });
  }
  const text: Readable = isGzip(file) ? raw.pipe(createGunzip()) : raw;
  if (text !== raw) raw.on('error', (error) => text.destroy(error));
  const lines = createInterface({ input: text, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  try {
    for await (const value of lines) {
      line++;
      yield { line, text: value };
    }
  } finally {
    lines.close();
    raw.destroy();
  }
}

/** The file's size in bytes (what progress counts against). */
export const fileSize = (file: string): number => statSync(file).size;

/** Where an export writes: one record a line, gzip when the file's name ends in `.gz`. */
export interface NdjsonOutput {
  write(record: unknown): Promise<void>;
  /** Writes a line as is (a CSV export's rows). */
  writeLine(text: string): Promise<void>;
  close(): Promise<void>;
}

/** An output to `file` (gzip when it ends in `.gz`), or to `stream` (standard output) when no file. */
export function ndjsonOutput(file: string | undefined, stream: Writable = process.stdout): NdjsonOutput {
  const target: Writable = file ? createWriteStream(file) : stream;
  const gzip = file?.endsWith('.gz') ? createGzip() : undefined;
  if (gzip) gzip.pipe(target);
  const head: Writable = gzip ?? target;
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure ??= error;
  };
  head.on('error', fail);
  if (gzip) target.on('error', fail);
  const closedFirst = () => failure ?? new Error(`output ${file ?? 'stream'} closed before the export ended`);
  const writeLine = async (text: string) => {
    if (failure) throw failure;
    if (!head.write(`${text}\n`)) await drained(head, closedFirst);
  };
  return {
    write: (record) => writeLine(JSON.stringify(record)),
    writeLine,
    async close() {
      if (failure) throw failure;
      if (!file) return;
      await new Promise<void>((resolve, reject) => {
        target.once('finish', resolve);
        target.once('error', reject);
        head.end();
      });
      if (failure) throw failure;
    },
  };
}
