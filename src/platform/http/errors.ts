import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../db/faults.ts';
import { RuleError } from '../errors.ts';
import { lingerAfterTooLarge } from './body-limit.ts';
import { clientWentAway, logClientWentAway } from './client-gone.ts';
import { headerAsDeclared } from './declared-headers.ts';
import {
  type Dialect,
  type ErrorCode,
  frameworkError,
  PLATFORM_ERRORS,
  type SoapFaultCode,
  soapFaultCode,
} from './error-codes.ts';

export type { Dialect } from './error-codes.ts';

/**
 * One error mechanism, one renderer per dialect. Handlers throw `HttpError` built from a catalogue code
 * (`error-codes.ts`), domain code throws `RuleError` (`../errors.ts`), or Fastify's schema validation
 * fails; the error handler renders it in the dialect of the API the request was for.
 */

export interface FieldError {
  field: string;
  message: string;
}

export class HttpError extends Error {
  readonly status: number;
  /** Short machine-readable code from the catalogue, e.g. `not-found` or the API's own error code. */
  readonly code: string;
  /** The SOAP fault code this error is answered with in the `soap` dialect. */
  readonly fault: SoapFaultCode;
  /** A refusal before a register starts the request (its code's `beforeStart`): kept under no request id. */
  readonly beforeStart: boolean;

  constructor(
    error: ErrorCode,
    message: string,
    readonly fields: FieldError[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.status = error.status;
    this.code = error.code;
    this.fault = soapFaultCode(error);
    this.beforeStart = error.beforeStart === true;
  }
}

/** A broken rule as the client sees it: its code's status, the message, one field naming the rule. */
export const ruleHttpError = (error: RuleError): HttpError =>
  new HttpError(error.code, error.message, [{ field: error.field, message: error.rule }]);

export const badRequest = (field: string, rule: string): HttpError =>
  ruleHttpError(new RuleError(field, rule));

/** A dependency (the database) is not there right now: 503 with `Retry-After`. */
export const serviceUnavailable = (): HttpError =>
  new HttpError(
    PLATFORM_ERRORS.serviceUnavailable,
    `The service is temporarily unavailable. Try again in ${DATABASE_RETRY_AFTER_SECONDS} seconds.`,
    [],
    { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
  );

/** A body over the route's limit, named as `body`: nothing past the limit is read. */
export const bodyTooLarge = (limit: number): HttpError => {
  const rule = `is larger than the limit of ${limit} bytes`;
  return new HttpError(PLATFORM_ERRORS.bodyTooLarge, `body: ${rule}`, [{ field: 'body', message: rule }]);
};

export const notFound = (what = 'Object Not Found'): HttpError =>
  new HttpError(PLATFORM_ERRORS.notFound, what);

const TITLES: Record<number, string> = {
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

export const statusTitle = (status: number): string => TITLES[status] ?? 'Error';

function xmlEscape(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

interface Rendered {
  contentType: string;
  body: string;
}

export function render(dialect: Dialect, error: HttpError, instance?: string): Rendered {
  switch (dialect) {
    case 'apim':
      return {
        contentType: 'application/json; charset=utf-8',
        body: JSON.stringify({ statusCode: error.status, message: error.message }),
      };
    case 'nzbn':
      return {
        contentType: 'application/json; charset=utf-8',
        body: JSON.stringify({
          status: String(error.status),
          errorCode: error.code,
          errorDescription: error.message,
          list: error.fields.map((f) => ({ field: f.field, message: f.message })),
        }),
      };
    case 'soap': {
      const faultCode = error.fault;
      const detail = error.fields
        .map(
          (f) =>
            `<FieldError><Field>${xmlEscape(f.field)}</Field><Message>${xmlEscape(f.message)}</Message></FieldError>`,
        )
        .join('');
      return {
        contentType: 'text/xml; charset=utf-8',
        body:
          '<?xml version="1.0" encoding="UTF-8"?>' +
          '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault>' +
          `<faultcode>${faultCode}</faultcode><faultstring>${xmlEscape(error.message)}</faultstring>` +
          `<detail><ErrorCode>${xmlEscape(error.code)}</ErrorCode><HttpStatus>${error.status}</HttpStatus>${detail}</detail>` +
          '</soap:Fault></soap:Body></soap:Envelope>',
      };
    }
    case 'problem':
      return {
        contentType: 'application/problem+json; charset=utf-8',
        body: JSON.stringify({
          type: `about:blank#${error.code}`,
          title: statusTitle(error.status),
          status: error.status,
          detail: error.message,
          ...(instance ? { instance } : {}),
          ...(error.fields.length ? { errors: error.fields } : {}),
        }),
      };
  }
}

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: HttpError,
  dialect?: Dialect,
): FastifyReply {
  const rendered = render(dialect ?? request.dialect ?? 'problem', error, request.url.split('?')[0]);
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  reply.code(error.status);
  // A body over its limit: the rest of it is read away before the connection closes (body-limit.ts).
  if (error.status === 413) lingerAfterTooLarge(request, reply);
  return reply.type(rendered.contentType).send(rendered.body);
}

/**
 * Fastify's schema errors name the field by JSON pointer or by the missing property; a header the route
 * declares is named as declared (its published spelling, not Node's lower case), with its declared rule.
 */
function validationFields(error: FastifyError, request?: FastifyRequest): FieldError[] {
  const where = error.validationContext ?? 'request';
  return (error.validation ?? []).map((issue) => {
    const params = issue.params as Record<string, unknown>;
    // JSON pointer segments (RFC 6901): `~1` is a `/` and `~0` a `~` of the field's own name.
    const pointer = issue.instancePath
      .replace(/^\//, '')
      .split('/')
      .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
      .join('.');
    const missing = typeof params.missingProperty === 'string' ? params.missingProperty : undefined;
    const extra = typeof params.additionalProperty === 'string' ? params.additionalProperty : undefined;
    const name = [pointer, missing ?? extra].filter(Boolean).join('.') || where;
    // A member refused by `additionalProperties: Type.Never()` (kept, so that it is refused, not dropped).
    const unknown = issue.keyword === 'not' && issue.schemaPath.endsWith('/additionalProperties/not');
    const rule = missing
      ? 'is required'
      : extra || unknown
        ? 'is not a known field'
        : params.allowedValues
          ? `must be one of ${(params.allowedValues as unknown[]).join(', ')}`
          : (issue.message ?? 'is invalid');
    const header =
      where === 'headers' ? headerAsDeclared(request?.routeOptions.schema?.headers, name) : undefined;
    if (header) return { field: header.name, message: missing ? rule : (header.rule ?? rule) };
    return { field: name, message: rule };
  });
}

/** The client error a thrown value stands for; `request` supplies the route's body limit for a 413. */
export function toHttpError(error: unknown, request?: FastifyRequest): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof RuleError) return ruleHttpError(error);
  const fastifyError = error as FastifyError;
  if (fastifyError?.code === 'FST_ERR_CTP_BODY_TOO_LARGE' && request) {
    return bodyTooLarge(request.routeOptions.bodyLimit);
  }
  if (fastifyError?.validation) {
    const fields = validationFields(fastifyError, request);
    const summary = fields.map((f) => `${f.field} ${f.message}`).join('; ');
    return new HttpError(PLATFORM_ERRORS.invalidParameter, summary || 'the request is invalid', fields);
  }
  // Text PostgreSQL cannot store (a NUL character that reached it some other way, an encoding it
  // cannot convert): the client's input, not a server fault. The transaction has rolled back.
  const code = (error as { code?: unknown; severity?: unknown } | undefined)?.code;
  if ((code === '22021' || code === '22P05') && (error as { severity?: unknown }).severity) {
    return new HttpError(
      PLATFORM_ERRORS.invalidParameter,
      'the request holds a character the register cannot store (such as U+0000)',
    );
  }
  // The client closed the connection mid-request: its own doing, not a fault here nor the database's
  // (the body's error has the code a database connection reset has). Every error handler comes here:
  // this is the one line it gets.
  if (request && clientWentAway(request, error)) {
    logClientWentAway(request, error);
    return badRequest('body', 'the connection closed before the request was complete');
  }
  // The database is unreachable, restarting, overloaded or timed out: the client may try again soon.
  // Whatever the request had begun to write was rolled back with its transaction.
  if (isDatabaseUnavailable(error)) return serviceUnavailable();
  const status = fastifyError?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Fastify's own client errors: malformed JSON, body too large, unsupported media type …
    return new HttpError(frameworkError(status, fastifyError.code), fastifyError.message);
  }
  return new HttpError(
    PLATFORM_ERRORS.internalError,
    'The server could not complete the request. It has been logged.',
  );
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The error dialect of the API this request is for; set by each service's context. */
    dialect?: Dialect;
  }
}

export function installErrorHandling(
  app: FastifyInstance,
  /** Runs before the root's 404 answer (the app marks it there: answer-marks.ts). */
  beforeNotFound?: (request: FastifyRequest, reply: FastifyReply) => void,
): void {
  app.decorateRequest('dialect', undefined);
  app.setErrorHandler((error, request, reply) => {
    const httpError = toHttpError(error, request);
    if (httpError.status === 503 && isDatabaseUnavailable(error)) {
      // One line per request, without a stack: an outage is the database's fault, not a bug here.
      request.log.warn({ reason: (error as Error).message }, 'database unavailable; answered 503');
    } else if (httpError.status >= 500) request.log.error({ err: error }, 'request failed');
    // A database error answered as the client's (text it cannot store): logged, in case it is ours.
    else if ((error as { severity?: unknown }).severity) {
      request.log.warn({ err: error }, 'database refused the request’s text');
    }
    return sendError(request, reply, httpError);
  });
  app.setNotFoundHandler((request, reply) => {
    beforeNotFound?.(request, reply);
    return sendError(
      request,
      reply,
      new HttpError(
        PLATFORM_ERRORS.notFound,
        `Resource not found: ${request.method} ${request.url.split('?')[0]}`,
      ),
    );
  });
}
