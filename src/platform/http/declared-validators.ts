/**
 * Declared validators: the operation kit's way for an operation whose input is not all checked by its
 * TypeBox schemas (`declareOperation`'s `validators`). Every part of the request still has a validator,
 * declared beside the operation:
 *
 * - **A streamed body** (`streamed`): Fastify leaves it unread, and the operation checks it as it streams
 *   (the IP office's SOAP envelopes against the XSDs); or (`checkedWhileParsed`) the route's own stream
 *   parser checks it as it reads it (the offers register's holdings filing). Its schema still documents
 *   it in the OpenAPI document.
 * - **A body the register checks itself** (`checked`): the register's own check, which lists every
 *   problem at once, or replaces the body with the typed input it makes.
 * - **A part of its own rules** (`headers`, say the SOAPAction header, answered as a SOAP fault).
 * - **Every other part** is checked against its declared TypeBox schema, its text converted to the
 *   schema's types first as Fastify's own validation does (`"2"` for an integer); its problems are refused
 *   as the operation says (`refuse`, in the register's dialect), every problem named.
 *
 * A body of a content type with no validator declared is a fault of the route, found when the route is
 * compiled at start-up, never a request that goes unchecked.
 */
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldError } from './errors.ts';

/** A part's validator: accepts, refuses with the error to answer, or replaces the part with its value. */
export type PartCheck = (data: unknown) => true | { error: Error } | { value: unknown };

/** The request parts Fastify validates. */
export type RequestPart = 'body' | 'headers' | 'params' | 'querystring';

export interface DeclaredParts {
  /** The body's validator, one for any content type or one per declared content type. */
  body?: PartCheck | Readonly<Record<string, PartCheck>>;
  /** The headers' validator, where the operation checks them by rules of its own. */
  headers?: PartCheck;
  /** The refusal of a part checked against its schema: every problem, named. */
  refuse(problems: readonly FieldError[], part: RequestPart): Error;
}

/** A body the operation checks as it streams: Fastify must have left it unread. */
export const streamed: PartCheck = (body) =>
  body === undefined || body === null
    ? true
    : { error: new Error('a streamed body was parsed before it was checked') };

/**
 * A body checked while it streamed by the route's own content-type parser (bytes, depth, each item's
 * rules): what reaches validation is that parser's product, already checked.
 */
export const checkedWhileParsed: PartCheck = () => true;

/**
 * A body the register checks itself: `problems` lists every problem (none: accepted), or `parse` makes the
 * operation's typed input from it (throwing the refusal).
 */
export function checked(
  check: { problems(body: unknown): readonly FieldError[] },
  refuse: (problems: readonly FieldError[]) => Error,
): PartCheck;
export function checked(check: { parse(body: unknown): unknown }): PartCheck;
export function checked(
  check: { problems(body: unknown): readonly FieldError[] } | { parse(body: unknown): unknown },
  refuse?: (problems: readonly FieldError[]) => Error,
): PartCheck {
  if ('parse' in check) {
    return (body) => {
      try {
        // Fastify hands an absent body over as null; `value` replaces the body (the handler's input).
        return { value: check.parse(body) };
      } catch (error) {
        return { error: error as Error };
      }
    };
  }
  return (body) => {
    const problems = check.problems(body);
    return problems.length === 0 ? true : { error: refuse!(problems) };
  };
}

/** `holdings.0.isin` from the TypeBox error path `/holdings/0/isin`; the part itself when empty. */
const fieldOf = (path: string, part: string) => path.replace(/^\//, '').replaceAll('/', '.') || part;

function schemaCheck(schema: TSchema, part: RequestPart, refuse: DeclaredParts['refuse']): PartCheck {
  const compiled = TypeCompiler.Compile(schema);
  return (data) => {
    if (compiled.Check(data)) return true;
    const converted = Value.Convert(schema, data);
    if (compiled.Check(converted)) return { value: converted };
    const problems = [...compiled.Errors(converted)].map((error) => ({
      field: fieldOf(error.path, part),
      message: error.message,
    }));
    return { error: refuse(problems, part) };
  };
}

/** The route's `validatorCompiler` for its declared parts (`declareOperation`'s `validators`). */
export function declaredValidators(parts: DeclaredParts): FastifySchemaCompiler<unknown> {
  return ({ schema, httpPart, contentType, method, url }) => {
    const route = `${method} ${url}`;
    const part = (httpPart ?? 'body') as RequestPart;
    if (part === 'body' && parts.body) {
      if (typeof parts.body === 'function') return parts.body;
      const check = contentType === undefined ? undefined : parts.body[contentType];
      if (check) return check;
      throw new Error(`${route}: no validator is declared for a body of ${contentType ?? 'any type'}`);
    }
    if (part === 'headers' && parts.headers) return parts.headers;
    if (!schema) throw new Error(`${route}: the ${part} has neither a schema nor a declared validator`);
    return schemaCheck(schema as TSchema, part, parts.refuse);
  };
}

/** The route options `auditDeclaredInput` reads (Fastify's `onRoute` hook's). */
interface AuditedRoute {
  method: string | string[];
  url: string;
  schema?: { params?: unknown; body?: unknown; hide?: boolean } | undefined;
  validatorCompiler?: unknown;
}

const TAKES_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * A register's route that would take input no validator checks: a path parameter its schema does not
 * declare, or a body (POST, PUT, PATCH) with neither a schema nor declared validators. Installed as an
 * `onRoute` hook on every register's scope (gateway/http/mount.ts), so such a route fails at start-up.
 */
export function auditDeclaredInput(route: AuditedRoute): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const where = `${methods.join(',')} ${route.url}`;
  const names = [...route.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
  const params = route.schema?.params as { properties?: Record<string, unknown> } | undefined;
  const missing = names.filter((name) => !params?.properties?.[name]);
  if (missing.length > 0)
    throw new Error(`${where}: the path parameter ${missing.join(', ')} has no declared schema`);
  if (methods.some((method) => TAKES_BODY.has(method)) && !route.schema?.body && !route.validatorCompiler)
    throw new Error(`${where}: the body has neither a declared schema nor declared validators`);
}
