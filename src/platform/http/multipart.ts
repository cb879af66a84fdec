/**
 * `multipart/form-data` uploads, read with `@fastify/multipart` (busboy) in the scope of the routes that
 * take them, and nowhere else: every other route of the app refuses a multipart body (415) as before.
 * Used by the portal's data-request answers and the business number register's document uploads. A
 * multipart body becomes the request's body in a `preValidation` hook (before the portal's CSRF check and
 * before a declared operation's validators): its text fields as strings (64 KiB in all, strict UTF-8,
 * each given once), and its one file part streamed straight to a temporary file in the given folder with
 * its size and SHA-256 counted on the way, so a 200 MB body never sits in memory. The whole body is
 * bounded: a declared length past `limit` is refused before a byte is read, and past `limit` bytes
 * received the read stops with a 413. Any refusal is a 4xx naming the field or `body` (in the dialect of
 * the API that reads it), and leaves no file behind: the temporary file is removed when the read fails
 * and, unless the handler moved it into place, before the answer goes out.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PLATFORM_ERRORS } from './error-codes.ts';
import { bodyTooLarge, HttpError } from './errors.ts';

export interface UploadedFile {
  /** Where the bytes are (the handler renames it into place, or it is removed). */
  temporary: string;
  /** The name the browser gave, without any folder part, characters outside a safe set as `_`. */
  fileName: string;
  contentType: string;
  bytes: number;
  sha256: string;
}

export type MultipartBody = Record<string, string | UploadedFile>;

export interface UploadOptions {
  /** Where the temporary file is written (the folder the handler moves it within). */
  folder: string;
  /** The largest body, in bytes. */
  limit: number;
  /** The one part that may be a file. */
  fileField: string;
}

const FIELDS_LIMIT = 64 * 1024;
const HEADER_LIMIT = 8 * 1024;
/** Parts a body may hold: a form has a handful (the CSRF token, a note, the file). */
const MAX_PARTS = 100;
const decoder = new TextDecoder('utf-8', { fatal: true });

const malformed = (rule: string) =>
  new HttpError(PLATFORM_ERRORS.invalidParameter, `body: ${rule}`, [{ field: 'body', message: rule }]);

/** The boundary the body's type names: 1 to 70 characters (RFC 2046), else a 400 naming the body. */
export function boundaryOf(contentType: string | undefined): string {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType ?? '');
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) throw malformed('a multipart body needs a boundary of 1 to 70 characters');
  return boundary;
}

/**
 * Lets the scope's routes take `multipart/form-data` bodies, read as described above into
 * `request.body` (a `MultipartBody`). Hooks the scope adds before this run first: a `preParsing` check
 * refuses a body before any of it is read.
 */
export async function multipartUploads(scope: FastifyInstance, options: UploadOptions): Promise<void> {
  await scope.register(multipart, {
    // Every part as a stream of its bytes: a text field (a part without a file name) is read and
    // checked here, as UTF-8, whatever charset it claims; the parser decodes nothing.
    isPartAFile: () => true,
    // The file's name as the browser sent it (folders and all): `temporaryFile` makes it safe.
    preservePath: true,
    throwFileSizeLimit: true,
    limits: { fileSize: options.limit, files: MAX_PARTS, parts: MAX_PARTS, headerPairs: 20 },
  });
  scope.addHook('preValidation', async (request) => {
    if (request.isMultipart()) request.body = await readBody(request, options);
  });
  scope.addHook('onSend', async (request) => {
    const file = uploadedFile(request.body, options.fileField);
    if (file) await rm(file.temporary, { force: true });
  });
}

/**
 * The files this reader wrote: only these are uploaded files (a body of another type that merely looks
 * like one, a JSON object with a `temporary` path, is not one, so nothing reads or removes its path).
 */
const written = new WeakSet<object>();

/** The uploaded file of a read body, if any. */
export const uploadedFile = (body: unknown, name: string): UploadedFile | undefined => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return value && typeof value === 'object' && written.has(value) ? (value as UploadedFile) : undefined;
};

async function readBody(request: FastifyRequest, options: UploadOptions): Promise<MultipartBody> {
  boundaryOf(request.headers['content-type']);
  if (Number(request.headers['content-length'] ?? 0) > options.limit) throw bodyTooLarge(options.limit);
  const body: MultipartBody = {};
  const text = { bytes: 0 };
  let file: UploadedFile | undefined;
  // Counted from here, before the parts are asked for (which is when the body starts to flow).
  const stopCounting = countBody(request, options.limit);
  try {
    for await (const part of request.parts({ limits: { headerSize: HEADER_LIMIT } })) {
      if (part.type !== 'file') continue; // none: every part is read as a stream (above)
      const name = part.fieldname;
      if (!name) throw refusePart(part, 'every part needs a Content-Disposition with a name');
      if (part.filename === undefined) {
        body[name] = await readField(body, part, text);
        continue;
      }
      if (name !== options.fileField) throw refusePart(part, `only ${options.fileField} may be a file`);
      if (file || name in body) throw refusePart(part, `${name}: one file only`);
      file = await temporaryFile(part, options);
      body[name] = file;
      await saveFile(part, file, options.limit);
    }
    return body;
  } catch (error) {
    if (file) await rm(file.temporary, { force: true });
    throw refusal(error, options.limit);
  } finally {
    stopCounting();
  }
}

/** A text field: its bytes UTF-8, given once, all fields together at most FIELDS_LIMIT bytes. */
async function readField(body: MultipartBody, part: MultipartFile, text: { bytes: number }): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of part.file as AsyncIterable<Buffer>) {
    text.bytes += chunk.length;
    // Leaving the loop ends the part's stream, and with it the parse.
    if (text.bytes > FIELDS_LIMIT) throw malformed(`the text fields are larger than ${FIELDS_LIMIT} bytes`);
    chunks.push(chunk);
  }
  let value: string;
  try {
    value = decoder.decode(Buffer.concat(chunks));
  } catch {
    throw malformed(`${part.fieldname} is not UTF-8`);
  }
  if (part.fieldname in body) throw malformed(`${part.fieldname} is given twice`);
  return value;
}

/** A refused part: its file is dropped (so the parser stops at once), and the 400 naming the rule. */
function refusePart(part: { type: string; file?: MultipartFile['file'] }, rule: string): HttpError {
  if (part.type === 'file') part.file?.destroy();
  return malformed(rule);
}

/** The file part's name made safe, its type, and where it goes. */
async function temporaryFile(part: MultipartFile, options: UploadOptions): Promise<UploadedFile> {
  const fileName = path
    .basename(part.filename.replaceAll('\\', '/'))
    .replace(/[^\w. ()-]/g, '_')
    .slice(0, 200);
  if (!fileName || fileName === '.' || fileName === '..') {
    throw refusePart(part, `${part.fieldname}: choose a file to send`);
  }
  const contentType = /^[\w.+-]{1,100}\/[\w.+-]{1,100}$/.test(part.mimetype)
    ? part.mimetype
    : 'application/octet-stream';
  await mkdir(options.folder, { recursive: true });
  const temporary = path.join(options.folder, `upload-${randomBytes(12).toString('hex')}.tmp`);
  const file = { temporary, fileName, contentType, bytes: 0, sha256: '' };
  written.add(file);
  return file;
}

/** Streams the file part to its temporary file, counting its size and SHA-256; 413 past the limit. */
async function saveFile(part: MultipartFile, file: UploadedFile, limit: number): Promise<void> {
  const hash = createHash('sha256');
  let bytes = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      hash.update(chunk);
      done(null, chunk);
    },
  });
  await pipeline(part.file, count, createWriteStream(file.temporary, { flags: 'wx' }));
  if (part.file.truncated) throw bodyTooLarge(limit);
  file.bytes = bytes;
  file.sha256 = hash.digest('hex');
}

/**
 * Counts the body's bytes as they arrive; past `limit` the parse ends with a 413 (the plugin ends its
 * parse on the request stream's error, as it does when the request fails). Answers how to stop.
 */
function countBody(request: FastifyRequest, limit: number): () => void {
  const raw = request.raw;
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received <= limit) return;
    raw.removeListener('data', count);
    raw.emit('error', bodyTooLarge(limit));
  };
  raw.on('data', count);
  return () => raw.removeListener('data', count);
}

/** What the parser and the plugin throw, as the 4xx of the body it is about; anything else as it is. */
function refusal(error: unknown, limit: number): unknown {
  if (error instanceof HttpError) return error;
  const { code, message } = error as { code?: unknown; message?: unknown };
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return bodyTooLarge(limit);
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
      return malformed(`at most ${MAX_PARTS} parts`);
    case 'FST_PROTO_VIOLATION':
      return malformed('a part’s name is not allowed');
    case 'FST_MP_PREMATURE_CLOSE':
      return malformed('the multipart body ends before its closing boundary');
  }
  if (typeof message !== 'string') return error;
  if (/unexpected end of multipart data|terminated early/i.test(message)) {
    return malformed('the multipart body ends before its closing boundary');
  }
  if (/boundary/i.test(message)) return malformed('a multipart body needs a boundary of 1 to 70 characters');
  return error;
}
