import type { FastifyReply, FastifyRequest } from 'fastify';
import { strongEtag } from '../../../platform/http/conditional.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { conditionalRead } from '../../../platform/http/operation.ts';
import { parsePage } from '../../../platform/http/pagination.ts';
import { PAGE_RULES } from '../domain/records.ts';
import { DISCLOSE_ERRORS } from '../errors.ts';

/** A query string as Fastify parses it (a repeated parameter arrives as an array). */
type Query = Readonly<Record<string, unknown>>;

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

/** `page` (from 1) and `page-size` (1 to 100, default 20), validated by the operation's query schema. */
export const pageFrom = (query: Query) => parsePage(query, PAGE_RULES);

/** What a read answers with: its Last-Modified always, its ETag when not the bytes' own. */
export interface ReadValidators {
  lastModified: Date;
  etag?: string | undefined;
}

/** A JSON answer with a strong ETag over its bytes and Last-Modified; 304 / 412 as the table says. */
export function sendJson(
  request: FastifyRequest,
  reply: FastifyReply,
  body: unknown,
  validators: ReadValidators,
): FastifyReply {
  const text = JSON.stringify(body);
  return sendJsonText(request, reply, text, {
    etag: validators.etag ?? strongEtag(text),
    lastModified: validators.lastModified,
  });
}

/** A JSON answer without validators (a computation, a filing's receipt). */
export const sendJsonBody = (reply: FastifyReply, body: unknown): FastifyReply =>
  reply.type('application/json; charset=utf-8').send(JSON.stringify(body));

/** JSON already rendered (a kept answer): the same headers and conditional table as `sendJson`. */
export function sendJsonText(
  request: FastifyRequest,
  reply: FastifyReply,
  text: string,
  validators: { etag: string; lastModified: Date },
): FastifyReply {
  if (conditionalRead(request, reply, validators)) return reply;
  return reply.type('application/json; charset=utf-8').send(text);
}
