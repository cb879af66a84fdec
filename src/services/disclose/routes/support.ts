import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { RuleError } from '../../../platform/errors.ts';
import { answeredConditionally, strongEtag } from '../../../platform/http/conditional.ts';
import { DISCLOSE_ERRORS, PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { parsePage } from '../../../platform/http/pagination.ts';
import { ENVIRONMENT_PREFIX } from '../../contract.ts';
import { PAGE_SIZE } from '../domain/records.ts';

export type Query = Record<string, unknown>;

/** Where the service's operations are, from the gateway root (`/sandbox/disclose-register/v1`). */
export const apiBase = (context: ServiceContext): string =>
  `${ENVIRONMENT_PREFIX[context.environment]}${context.service.path}`;

/** The online register's public pages of this environment, from the gateway root. */
export const registerBase = (context: ServiceContext): string => `${apiBase(context)}/online-register`;

/** An absolute URL of the online register for a path under it (`/offer/OFR10001`). */
export function registerUrl(context: ServiceContext, path: string): string {
  return context.absoluteUrl(`${registerBase(context)}${path}`);
}

export const notFound = (what: string, field?: string, message?: string): HttpError =>
  new HttpError(
    PLATFORM_ERRORS.notFound,
    `${what} is not on the register.`,
    field ? [{ field, message: message ?? 'not found' }] : [],
  );

/** `x-organisation` is required on every call (the gateway refused one the caller is not a member of). */
export function requireOrganisation(request: FastifyRequest): string {
  const header = request.headers['x-organisation'];
  const value = typeof header === 'string' ? header.trim() : '';
  if (!value || !request.caller?.organisationId) {
    throw new HttpError(
      DISCLOSE_ERRORS.organisationRequired,
      'The x-organisation header is required: it names the register organisation the call is made for.',
      [{ field: 'x-organisation', message: 'is required' }],
    );
  }
  return value;
}

/** `page` (from 1) and `page-size` (1 to 100, default 20). */
export const pageFrom = (query: Query) =>
  parsePage(query, { defaultSize: PAGE_SIZE.default, maxSize: PAGE_SIZE.max, firstPage: 1 });

/** A path parameter that must match a record's number pattern; otherwise the record is not there (404). */
export function numberParam(value: string, pattern: RegExp, name: string, what: string): string {
  if (!pattern.test(value))
    throw notFound(`${what} ${JSON.stringify(value.slice(0, 40))}`, name, 'is not a number of this register');
  return value;
}

/** A JSON answer with a strong ETag over its bytes and Last-Modified; 304 / 412 as the table says. */
export function sendJson(
  request: FastifyRequest,
  reply: FastifyReply,
  body: unknown,
  lastModified?: Date,
  etag?: string,
): FastifyReply {
  const text = JSON.stringify(body);
  return sendJsonText(request, reply, text, etag ?? strongEtag(text), lastModified);
}

/** JSON already rendered (a kept answer): the same headers and conditional table as `sendJson`. */
export function sendJsonText(
  request: FastifyRequest,
  reply: FastifyReply,
  text: string,
  etag: string,
  lastModified?: Date,
): FastifyReply {
  const validators = lastModified ? { etag, lastModified } : { etag };
  if (answeredConditionally(request, reply, validators)) return reply;
  return reply.type('application/json; charset=utf-8').send(text);
}

/** A query parameter given once at most, as text. */
export function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw new RuleError(name, 'must be given once');
  return String(value);
}

export const iso = (date: Date | string): string => (typeof date === 'string' ? date : date.toISOString());
