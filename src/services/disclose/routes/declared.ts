import type { TObject, TSchema } from '@sinclair/typebox';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteShorthandOptions,
} from 'fastify';
import {
  declareOperation,
  type OperationDeclaration,
  type TypeBoxProvider,
  typed,
} from '../../../platform/http/operation.ts';
import { ORGANISATION_NOTE, pathParameters, readResponses } from '../schemas.ts';
import type { RenderedAnswer } from '../store/answer-cache.ts';
import { type ReadValidators, requireOrganisation, sendJson, sendJsonText } from './support.ts';

/** What the register's operations produce: JSON answers, and the documents its redirects lead to. */
export const JSON_ANSWER = ['application/json'] as const;
export const DOCUMENT = ['application/pdf'] as const;

type Done = (error?: Error) => void;

/** `x-organisation` on every operation, first: 400 before anything else of the request is looked at. */
const organisationFirst = (request: FastifyRequest, _reply: FastifyReply, done: Done) => {
  try {
    requireOrganisation(request);
    done();
  } catch (error) {
    done(error as Error);
  }
};

const asList = (hooks: unknown): unknown[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];

/**
 * An operation of the offers register, declared through the platform's kit (`declareOperation`: schemas
 * validated, conditional requests, preconditions), with the register's two rules in front of the kit's:
 * `x-organisation` first, and an `Accept` it cannot serve answered with its first type (no 406).
 */
export function declareOffersOperation<Options extends RouteShorthandOptions>(
  options: Options,
  declaration: OperationDeclaration,
): Options {
  // The register answers whatever the `Accept` (its behaviour since it was built, written in its README).
  const declared = declareOperation(options, { unacceptable: 'first', ...declaration });
  return { ...declared, onRequest: [organisationFirst, ...asList(declared.onRequest)] } as Options;
}

/** A read's answer: a body with its validators, or one already rendered (a kept detail answer). */
export type ReadAnswer = ({ body: unknown } & ReadValidators) | RenderedAnswer;

/** A query as the kit's type provider gives it to a handler, from the operation's query schema. */
export type DeclaredQuery<Query extends TSchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  { querystring: Query },
  TypeBoxProvider
>['query'];

/**
 * A JSON read of the register: its path and query validated against their schemas, JSON whatever the
 * `Accept`, and the answer through the kit's conditional read (ETag, Last-Modified, 304).
 */
export function readRoute<Query extends TObject>(
  app: FastifyInstance,
  url: string,
  spec: {
    summary: string;
    response: TSchema;
    query: Query;
    /** OpenAPI extensions of the operation (`x-…`), e.g. which of its parameters are ours. */
    extensions?: Readonly<Record<`x-${string}`, unknown>>;
  },
  handler: (input: {
    query: NoInfer<DeclaredQuery<Query>>;
    params: Readonly<Record<string, string>>;
  }) => Promise<ReadAnswer>,
): void {
  typed(app).get(
    url,
    declareOffersOperation(
      {
        schema: {
          summary: spec.summary,
          description: ORGANISATION_NOTE,
          params: pathParameters(url),
          querystring: spec.query,
          response: readResponses(spec.response),
          ...spec.extensions,
        },
      },
      { produces: JSON_ANSWER, conditional: 'read' },
    ),
    async (request, reply) => {
      const answer = await handler({ query: request.query, params: request.params });
      if ('text' in answer) return sendJsonText(request, reply, answer.text, answer);
      return sendJson(request, reply, answer.body, answer);
    },
  );
}
