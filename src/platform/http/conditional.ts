import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PLATFORM_ERRORS } from './error-codes.ts';
import { HttpError } from './errors.ts';

/**
 * Conditional requests, as the spec's table says (RFC 9110 §13):
 * If-None-Match matching → 304 (GET/HEAD) or 412 (other methods); If-Match not matching → 412;
 * If-Modified-Since not modified → 304 (ignored when If-None-Match is present);
 * If-Unmodified-Since modified → 412 (ignored when If-Match is present).
 */
export interface Validators {
  etag: string;
  lastModified?: Date;
}

/** A strong ETag over the representation's bytes: it changes whenever the item changes. */
export function strongEtag(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
}

function parseEtagList(header: string): string[] | '*' {
  if (header.trim() === '*') return '*';
  return (header.match(/(?:W\/)?"[^"]*"/g) ?? []).map((tag) => tag.trim());
}

const strip = (tag: string) => tag.replace(/^W\//, '');

/** Strong comparison for If-Match, weak comparison for If-None-Match (RFC 9110 §8.8.3.2). */
function matches(list: string[] | '*', etag: string, weak: boolean): boolean {
  if (list === '*') return true;
  return list.some((tag) => (weak ? strip(tag) === strip(etag) : !tag.startsWith('W/') && tag === etag));
}

function parseHttpDate(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : new Date(time);
}

/** HTTP dates have whole seconds; compare at that precision. */
const seconds = (date: Date): number => Math.floor(date.getTime() / 1000);

export type Outcome = 'proceed' | 'not-modified';

const preconditionFailed = () =>
  new HttpError(
    PLATFORM_ERRORS.preconditionFailed,
    'Precondition Failed: the item has changed since the version you supplied',
  );

/**
 * The outcome of the request's preconditions against the item's validators (undefined: no such item).
 * A failed precondition throws 412: the platform's message, or the one `failed` makes (a service that
 * names the version it holds).
 */
export function evaluatePreconditions(
  request: FastifyRequest,
  validators: Validators | undefined,
  failed: () => HttpError = preconditionFailed,
): Outcome {
  const headers = request.headers;
  const ifMatch = headers['if-match'];
  const ifNoneMatch = headers['if-none-match'];
  const unmodifiedSince = headers['if-unmodified-since'] as string | undefined;
  const modifiedSince = headers['if-modified-since'] as string | undefined;
  // Most requests carry no precondition at all.
  if (ifMatch === undefined && ifNoneMatch === undefined && !unmodifiedSince && !modifiedSince)
    return 'proceed';
  const safe = request.method === 'GET' || request.method === 'HEAD';
  const ifUnmodifiedSince = parseHttpDate(unmodifiedSince);
  const ifModifiedSince = parseHttpDate(modifiedSince);

  if (ifMatch !== undefined) {
    if (!validators || !matches(parseEtagList(ifMatch), validators.etag, false)) throw failed();
  } else if (ifUnmodifiedSince && validators?.lastModified) {
    if (seconds(validators.lastModified) > seconds(ifUnmodifiedSince)) throw failed();
  }
  if (ifNoneMatch !== undefined) {
    if (validators && matches(parseEtagList(ifNoneMatch), validators.etag, true)) {
      if (safe) return 'not-modified';
      throw failed();
    }
  } else if (safe && ifModifiedSince && validators?.lastModified) {
    if (seconds(validators.lastModified) <= seconds(ifModifiedSince)) return 'not-modified';
  }
  return 'proceed';
}

/** The last Last-Modified written, so an item read again and again is not formatted every time. */
let lastModifiedTime = Number.NaN;
let lastModifiedText = '';

export function setValidators(reply: FastifyReply, validators: Validators): void {
  reply.header('ETag', validators.etag);
  const lastModified = validators.lastModified;
  if (lastModified) {
    const time = lastModified.getTime();
    if (time !== lastModifiedTime) {
      lastModifiedText = lastModified.toUTCString();
      lastModifiedTime = time;
    }
    reply.header('Last-Modified', lastModifiedText);
  }
}

/**
 * For a read: sets ETag and Last-Modified, then either sends 304 with an empty body (returns true) or
 * lets the handler send the item (returns false). Throws 412 for failed If-Match / If-Unmodified-Since.
 */
export function answeredConditionally(
  request: FastifyRequest,
  reply: FastifyReply,
  validators: Validators,
): boolean {
  const outcome = evaluatePreconditions(request, validators);
  setValidators(reply, validators);
  if (outcome === 'not-modified') {
    reply.code(304).send();
    return true;
  }
  return false;
}
