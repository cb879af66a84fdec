/**
 * A streaming `multipart/form-data` reader for the operators' data-request answer (ours; the project
 * takes no multipart dependency): text fields are kept (64 KiB in all, strict UTF-8), the one file part
 * goes straight to a temporary file in the given folder with its size and SHA-256 counted on the way, so
 * a 200 MB answer never sits in memory. The whole body is bounded: past `limit` bytes the read stops
 * with a 413 and the temporary file is removed. Malformed bodies are a 400 naming `body`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { drained } from '../../platform/drained.ts';
import { PLATFORM_ERRORS } from '../../platform/http/error-codes.ts';
import { bodyTooLarge, HttpError } from '../../platform/http/errors.ts';

export interface UploadedFile {
  /** Where the bytes are (the caller renames it into place or removes it). */
  temporary: string;
  /** The name the browser gave, without any folder part. */
  fileName: string;
  contentType: string;
  bytes: number;
  sha256: string;
}

export type MultipartBody = Record<string, string | UploadedFile>;

const FIELDS_LIMIT = 64 * 1024;
const HEADER_LIMIT = 8 * 1024;
const decoder = new TextDecoder('utf-8', { fatal: true });

const malformed = (rule: string) =>
  new HttpError(PLATFORM_ERRORS.invalidParameter, `body: ${rule}`, [{ field: 'body', message: rule }]);

export function boundaryOf(contentType: string | undefined): string {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType ?? '');
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) throw malformed('a multipart body needs a boundary of 1 to 70 characters');
  return boundary;
}

interface Part {
  name: string;
  file?: { out: WriteStream; hash: ReturnType<typeof createHash>; upload: UploadedFile };
  chunks: Buffer[];
  size: number;
}

/** Reads the body; the one file part must be named `fileField`. */
export async function readMultipart(
  stream: Readable,
  contentType: string | undefined,
  options: { folder: string; limit: number; fileField: string },
): Promise<MultipartBody> {
  const delimiter = Buffer.from(`\r\n--${boundaryOf(contentType)}`);
  const body: MultipartBody = {};
  let pending: Buffer = Buffer.from('\r\n');
  let state: 'preamble' | 'after' | 'headers' | 'body' | 'done' = 'preamble';
  let part: Part | undefined;
  let total = 0;
  let fieldBytes = 0;
  let file: UploadedFile | undefined;

  const emit = async (bytes: Buffer) => {
    if (!part || bytes.length === 0) return;
    part.size += bytes.length;
    if (part.file) {
      part.file.hash.update(bytes);
      if (!part.file.out.write(bytes))
        await drained(part.file.out, () => new Error('the uploaded file closed before it was written'));
      return;
    }
    fieldBytes += bytes.length;
    if (fieldBytes > FIELDS_LIMIT) throw malformed(`the text fields are larger than ${FIELDS_LIMIT} bytes`);
    part.chunks.push(bytes);
  };

  const finishPart = async () => {
    if (!part) return;
    if (part.file) {
      const { out, hash, upload } = part.file;
      await new Promise<void>((resolve, reject) =>
        out.end((error?: Error | null) => (error ? reject(error) : resolve())),
      );
      upload.bytes = part.size;
      upload.sha256 = hash.digest('hex');
      file = upload;
      body[part.name] = upload;
    } else {
      let text: string;
      try {
        text = decoder.decode(Buffer.concat(part.chunks));
      } catch {
        throw malformed(`${part.name} is not UTF-8`);
      }
      if (part.name in body) throw malformed(`${part.name} is given twice`);
      body[part.name] = text;
    }
    part = undefined;
  };

  const startPart = async (headerText: string) => {
    const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(headerText)?.[1] ?? '';
    const name = /;\s*name="([^"]{1,100})"/i.exec(disposition)?.[1];
    if (!name) throw malformed('every part needs a Content-Disposition with a name');
    const fileName = /;\s*filename="([^"]{0,255})"/i.exec(disposition)?.[1];
    if (fileName === undefined) {
      part = { name, chunks: [], size: 0 };
      return;
    }
    if (name !== options.fileField) throw malformed(`only ${options.fileField} may be a file`);
    if (file || name in body) throw malformed(`${name}: one file only`);
    const base = path
      .basename(fileName.replaceAll('\\', '/'))
      .replace(/[^\w. ()-]/g, '_')
      .slice(0, 200);
    if (!base || base === '.' || base === '..') throw malformed(`${name}: choose a file to send`);
    const type =
      /^content-type:\s*([\w.+-]{1,100}\/[\w.+-]{1,100})/im.exec(headerText)?.[1] ??
      'application/octet-stream';
    await mkdir(options.folder, { recursive: true });
    const temporary = path.join(options.folder, `upload-${randomBytes(12).toString('hex')}.tmp`);
    const out = createWriteStream(temporary, { flags: 'wx' });
    const upload: UploadedFile = { temporary, fileName: base, contentType: type, bytes: 0, sha256: '' };
    file = upload;
    part = { name, chunks: [], size: 0, file: { out, hash: createHash('sha256'), upload } };
  };

  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > options.limit) throw bodyTooLarge(options.limit);
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (;;) {
        if (state === 'done') {
          pending = Buffer.alloc(0);
          break;
        }
        if (state === 'preamble' || state === 'body') {
          const at = pending.indexOf(delimiter);
          if (at < 0) {
            const keep = delimiter.length - 1;
            if (state === 'body' && pending.length > keep)
              await emit(pending.subarray(0, pending.length - keep));
            if (pending.length > keep) pending = Buffer.from(pending.subarray(pending.length - keep));
            break;
          }
          if (state === 'body') {
            await emit(pending.subarray(0, at));
            await finishPart();
          }
          pending = pending.subarray(at + delimiter.length);
          state = 'after';
          continue;
        }
        if (state === 'after') {
          if (pending.length < 2) break;
          const two = pending.subarray(0, 2).toString('latin1');
          if (two === '--') {
            state = 'done';
            continue;
          }
          if (two !== '\r\n') throw malformed('a boundary must be followed by CRLF or --');
          pending = pending.subarray(2);
          state = 'headers';
          continue;
        }
        // headers
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) {
          if (pending.length > HEADER_LIMIT) throw malformed('a part’s headers are too long');
          break;
        }
        await startPart(pending.subarray(0, end).toString('latin1'));
        pending = pending.subarray(end + 4);
        state = 'body';
      }
    }
    if (state !== 'done') throw malformed('the multipart body ends before its closing boundary');
    return body;
  } catch (error) {
    // The file is opened asynchronously: wait until the stream has closed (its open done or failed)
    // before removing it, or the open could create the file after the removal.
    const out = part?.file?.out;
    if (out && !out.closed) {
      await new Promise<void>((resolve) => {
        out.once('close', () => resolve());
        out.destroy();
      });
    }
    if (file) await rm(file.temporary, { force: true });
    throw error;
  }
}

/** The uploaded file of a parsed body, if any. */
export const uploadedFile = (body: unknown, name: string): UploadedFile | undefined => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return value && typeof value === 'object' && 'temporary' in value ? (value as UploadedFile) : undefined;
};
