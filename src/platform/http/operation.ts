import type { Static, TSchema } from '@sinclair/typebox';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyTypeProvider,
  RouteShorthandOptions,
} from 'fastify';
import { answeredConditionally, evaluatePreconditions, type Validators } from './conditional.ts';
import { type DeclaredParts, declaredValidators } from './declared-validators.ts';
import { PLATFORM_ERRORS } from './error-codes.ts';
import { HttpError } from './errors.ts';
import { negotiate } from './negotiate.ts';

/**
 * The operation kit: an operation is declared once — its schemas, the media types it produces, its
 * resource's validators and the preconditions it honours — and the platform enforces each rule the same
 * way in every register:
 *
 * - **Validation.** Path, query, headers and body are validated against the declared TypeBox schemas
 *   before the handler runs (a 400 naming each field and rule, in the register's dialect), and the
 *   handler's input is typed from them (`TypeBoxProvider`). No declared operation switches validation off:
 *   a body streamed to the operation, or checked by the register's own rules, is declared as such
 *   (`validators`, declared-validators.ts), and a body with no validator fails the route at start-up.
 * - **Negotiation.** An `Accept` that none of `produces` fits is 406 in the dialect, before the body is
 *   read (or, declared `unacceptable: 'first'`, answered as the first type); the handler finds the chosen
 *   type in `operationContext(request).mediaType`.
 * - **Conditional requests** (RFC 9110 §13, the specification's table). A read answers through
 *   `conditionalRead`: ETag and Last-Modified on every answer (validators without a modification time
 *   do not type-check), 304 with an empty body for a matching `If-None-Match` or an unchanged
 *   `If-Modified-Since`. A write checks `conditionalWrite` against the resource as it stands, inside its
 *   transaction before it changes anything: a stale `If-Match` or a past `If-Unmodified-Since` is 412
 *   and nothing is written, and a precondition the register publishes as mandatory is 428 when absent.
 *   A declared write that answers 2xx without having checked its preconditions is a fault of ours,
 *   logged at error level (and a test of the conformance matrix fails on its 412 case).
 */

/** Types from the declared schemas (what `@fastify/type-provider-typebox` provides, in three lines). */
export interface TypeBoxProvider extends FastifyTypeProvider {
  validator: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
  serializer: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
}

/** A resource's validators as the kit takes them: an ETag and, always, its last modification time. */
export type ResourceValidators = Required<Validators>;

/** Header names a write may honour as a precondition; `If-Modified-Since` only where it is published. */
export type WritePrecondition = 'If-Match' | 'If-Unmodified-Since' | 'If-Modified-Since';

export interface WriteConditions {
  /** What the write honours; `If-Match` and `If-Unmodified-Since` unless the register publishes others. */
  honours?: readonly WritePrecondition[];
  /** Absent → 428, only where a published rule makes the precondition mandatory. */
  required?: WritePrecondition;
}

export interface OperationDeclaration {
  /** The media types the operation produces, the preferred first. */
  produces: readonly [string, ...string[]];
  /**
   * An `Accept` none of `produces` fits: `refuse` (406 in the dialect, the default, and what a published
   * rule such as the secured interests register's asks) or `first` (answered as the first of `produces`,
   * for a register that has always answered whatever the `Accept`; its README says so).
   */
  unacceptable?: 'refuse' | 'first';
  /** `read` for a GET of a resource with validators; a write's conditions for a write of one. */
  conditional?: 'read' | WriteConditions;
  /**
   * Parts not checked by their schema alone: a streamed body, a body the register checks itself, headers
   * with rules of their own (declared-validators.ts). The other parts keep their schemas.
   */
  validators?: DeclaredParts;
}

/** What the kit knows of the request in flight, for its handler. */
export interface OperationContext {
  /** The negotiated media type: one of the declared `produces`. */
  mediaType: string;
  preconditionsChecked: boolean;
  declaration: OperationDeclaration;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The kit's context of a declared operation's request (decorated by the app: one shape for all). */
    operation?: OperationContext | undefined;
  }
}

export function operationContext(request: FastifyRequest): OperationContext {
  const context = request.operation;
  if (!context) throw new Error(`${request.method} ${request.routeOptions.url} is not a declared operation`);
  return context;
}

const STALE = 'Precondition Failed: the item has changed since the time you supplied';

const DEFAULT_HONOURED: readonly WritePrecondition[] = ['If-Match', 'If-Unmodified-Since'];

const HEADER_OF: Record<WritePrecondition, string> = {
  'If-Match': 'if-match',
  'If-Unmodified-Since': 'if-unmodified-since',
  'If-Modified-Since': 'if-modified-since',
};

function negotiateOrFirst(request: FastifyRequest, produces: OperationDeclaration['produces']): string {
  try {
    return negotiate(request, produces);
  } catch (error) {
    if (error instanceof HttpError) return produces[0];
    throw error;
  }
}

function writeConditions(declaration: OperationDeclaration): WriteConditions | undefined {
  return typeof declaration.conditional === 'object' ? declaration.conditional : undefined;
}

/**
 * Route options for a declared operation: the kit's hooks in front of the route's own. Spread into the
 * route's options (`app.get(url, declareOperation({ schema, … }, { produces }), handler)`) on an app
 * `withTypeProvider<TypeBoxProvider>()`.
 */
export function declareOperation<Options extends RouteShorthandOptions>(
  options: Options,
  declaration: OperationDeclaration,
): Options {
  if ('validatorCompiler' in options)
    throw new Error('a declared operation declares its validators (`validators`), not a validatorCompiler');
  const write = writeConditions(declaration);
  const onRequest = (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    try {
      // Before the body is read: a client that cannot take the answer need not send it.
      const mediaType =
        declaration.unacceptable === 'first'
          ? negotiateOrFirst(request, declaration.produces)
          : negotiate(request, declaration.produces);
      if (write?.required && request.headers[HEADER_OF[write.required]] === undefined) {
        throw new HttpError(
          PLATFORM_ERRORS.preconditionRequired,
          `${write.required} is required: send it with the resource's ${write.required === 'If-Match' ? 'ETag' : 'Last-Modified time'} as you last read it.`,
          [{ field: write.required, message: 'is required' }],
        );
      }
      request.operation = { mediaType, preconditionsChecked: false, declaration };
      done();
    } catch (error) {
      done(error as Error);
    }
  };
  const onSend = (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (e: null, p: unknown) => void,
  ) => {
    const context = request.operation;
    if (
      write &&
      context &&
      !context.preconditionsChecked &&
      reply.statusCode >= 200 &&
      reply.statusCode < 300
    ) {
      request.log.error(
        { route: request.routeOptions.url },
        'a declared conditional write answered without checking its preconditions (conditionalWrite)',
      );
    }
    done(null, payload);
  };
  const hooks = (existing: unknown, hook: unknown) =>
    existing === undefined ? [hook] : Array.isArray(existing) ? [hook, ...existing] : [hook, existing];
  return {
    ...options,
    ...(declaration.validators ? { validatorCompiler: declaredValidators(declaration.validators) } : {}),
    onRequest: hooks(options.onRequest, onRequest),
    ...(write ? { onSend: hooks(options.onSend, onSend) } : {}),
  } as Options;
}

/**
 * A read's answer: sets ETag and Last-Modified; then either answers 304 with an empty body (true) or
 * leaves the answer to the handler (false). A failed `If-Match`/`If-Unmodified-Since` on a read is 412.
 */
export function conditionalRead(
  request: FastifyRequest,
  reply: FastifyReply,
  validators: ResourceValidators,
): boolean {
  return answeredConditionally(request, reply, validators);
}

/**
 * A write's preconditions against the resource as it stands (undefined: it does not exist), checked
 * inside the write's transaction before anything changes: 412 (the platform's message, or `failed`'s)
 * when one fails. Honours what the operation declares: `If-Match` and `If-Unmodified-Since` by default,
 * and a published `If-Modified-Since` on a write as the same lost-update guard as `If-Unmodified-Since`.
 */
export function conditionalWrite(
  request: FastifyRequest,
  validators: ResourceValidators | undefined,
  failed?: () => HttpError,
): void {
  const context = operationContext(request);
  const honours = writeConditions(context.declaration)?.honours ?? DEFAULT_HONOURED;
  const headers = request.headers;
  // Only the honoured headers are seen by the evaluation; the others are ignored, as RFC 9110 allows.
  const seen = {
    ...request,
    method: request.method,
    headers: {
      'if-match': honours.includes('If-Match') ? headers['if-match'] : undefined,
      'if-unmodified-since': honours.includes('If-Unmodified-Since')
        ? headers['if-unmodified-since']
        : undefined,
    },
  } as unknown as FastifyRequest;
  evaluatePreconditions(seen, validators, failed);
  if (honours.includes('If-Modified-Since')) {
    // The business number register publishes If-Modified-Since on some writes, with 412: a guard against
    // lost updates, read as "the time I last read it" — the write fails when the item changed after it.
    const since = Date.parse(String(headers['if-modified-since'] ?? ''));
    if (!Number.isNaN(since) && validators) {
      const changed = Math.floor(validators.lastModified.getTime() / 1000) > Math.floor(since / 1000);
      if (changed) throw failed?.() ?? new HttpError(PLATFORM_ERRORS.preconditionFailed, STALE);
    }
  }
  context.preconditionsChecked = true;
}

/**
 * A write's preconditions as an operation (`services/<id>/operations/`) takes them, without HTTP: checked
 * against the resource as it stands (undefined: it does not exist), inside the operation's transaction
 * before anything changes; throws the 412 (the platform's, or `failed`'s). A route passes
 * `preconditionsOf(request)`; the CLI, an import or a job passes `noPreconditions`.
 */
export type Preconditions = (current: ResourceValidators | undefined, failed?: () => HttpError) => void;

/** The request's declared preconditions (`conditionalWrite`), for an operation to check. */
export const preconditionsOf =
  (request: FastifyRequest): Preconditions =>
  (current, failed) =>
    conditionalWrite(request, current, failed);

/** No preconditions: a write made by the register's own tools (the CLI, an import, a job). */
export const noPreconditions: Preconditions = () => {};

/** The app with the kit's type provider: handlers' input typed from the declared schemas. */
export const typed = (app: FastifyInstance) => app.withTypeProvider<TypeBoxProvider>();
