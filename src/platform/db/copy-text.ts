/**
 * PostgreSQL COPY text format for bulk loads (the registers' sandbox seeds, imports): one line per row,
 * fields separated by tabs, `\N` for null, backslash, tab and line breaks escaped; arrays as array
 * literals; and `copyText`, which streams such lines into `COPY … FROM STDIN`.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** One field in COPY text format. */
export function copyField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return NEEDS_ESCAPE.test(value)
    ? value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r')
    : value;
}

const NEEDS_ESCAPE = /[\\\t\n\r]/;

/** A text[] literal, `{"a","b \"c\""}`: every element quoted, quotes and backslashes escaped. */
export function arrayLiteral(values: readonly string[]): string {
  if (values.length === 0) return '{}';
  return `{${values.map((value) => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}

/** One COPY line (with its newline) from already-ordered field values. */
export function copyLine(fields: readonly (string | number | boolean | null | undefined)[]): string {
  let line = '';
  for (let i = 0; i < fields.length; i++) line += (i === 0 ? '' : '\t') + copyField(fields[i]);
  return `${line}\n`;
}

/** COPY text is sent in pieces of about this many characters (lines joined), not a message a line. */
const PIECE = 64 * 1024;

/** The lines joined into pieces of about `PIECE` characters (a longer line is a piece of its own). */
async function* pieces(text: Iterable<string> | AsyncIterable<string>): AsyncGenerator<string> {
  let piece = '';
  for await (const line of text) {
    piece += line;
    if (piece.length >= PIECE) {
      yield piece;
      piece = '';
    }
  }
  if (piece !== '') yield piece;
}

/**
 * Streams COPY text into `COPY … FROM STDIN` on the client (inside the caller's transaction, if any).
 * The lines go in pieces of about 64 KiB: a CopyData message and a socket write a line cost both sides
 * more than the rows themselves.
 */
export async function copyText(
  client: pg.Client | pg.PoolClient,
  sql: string,
  text: Iterable<string> | AsyncIterable<string>,
): Promise<void> {
  await pipeline(Readable.from(pieces(text)), client.query(copyFrom(sql)));
}
