import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
} from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { RuleError } from '../../../platform/errors.ts';
import { HttpError, toHttpError } from '../../../platform/http/errors.ts';
import { declareOperation, type TypeBoxProvider, typed } from '../../../platform/http/operation.ts';
import { registerBase, type Subject } from '../operations/common.ts';
import {
  listRecordsPage,
  notAFund,
  notARecordNumber,
  readFundPage,
  readRecordPage,
} from '../operations/online-register.ts';
import { PageParams, PageQuery } from '../parameters.ts';
import {
  fundView,
  listView,
  type PageView,
  recordView,
  refusalView,
  registerPage,
} from './online-register-views.ts';

const SECURITY_HEADERS = {
  'Cache-Control': 'no-cache',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

/**
 * A page, declared through the kit: HTML whatever the `Accept` (a page for people, as it always was),
 * hidden from the OpenAPI document. Its path and query are validated against their schemas, and what
 * they refuse is given to the page (`attachValidation`), which answers it as a page (`guarded`), never
 * with the API's JSON error.
 */
const pageRoute = <Schema extends { params?: typeof PageParams; querystring?: typeof PageQuery }>(
  schema: Schema,
) =>
  declareOperation(
    { schema: { hide: true, ...schema }, attachValidation: true },
    { produces: ['text/html'], unacceptable: 'first' },
  );

/** An offer's, scheme's or fund's page: its number and the version shown. */
const recordPageInput = { params: PageParams, querystring: PageQuery };

/** The request of a record's page, typed by the kit from `recordPageInput`. */
type RecordPageRequest = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  typeof recordPageInput,
  TypeBoxProvider
>;

/** A query a page cannot read: the 400 page, naming each parameter and its rule. */
function pageInputRefusal(invalid: Error): RuleError {
  const fields = toHttpError(invalid).fields;
  const first = fields[0] ?? { field: 'query', message: 'is not valid' };
  return RuleError.stated(first.field, fields.map((f) => `${f.field}: ${f.message}`).join('; '));
}

/**
 * The online register: public, server-rendered pages of offers, schemes and funds (no key), the page
 * each answer's `registerUrl` names, with their versions, participants, documents (signed links) and,
 * for funds, unit price, returns, fees, allocation and holdings. What a page shows is read by
 * operations/online-register.ts and rendered by online-register-views.ts.
 */
export function onlineRegisterRoutes(plugin: FastifyInstance, context: ServiceContext): void {
  const app = typed(plugin);
  const base = registerBase(context);
  const prefix = '/online-register';
  const send = (reply: FastifyReply, view: PageView, status = 200) =>
    reply
      .code(status)
      .headers(SECURITY_HEADERS)
      .type('text/html; charset=utf-8')
      .send(registerPage(context.environment, base, view));
  /**
   * A page's answer, or the page of its refusal: 404 for a record that is not there (`refusedPath` for
   * a path its schema refused: the page's own 404), 400 for a query it cannot read, naming the parameter.
   */
  const guarded =
    <Request extends FastifyRequest>(
      render: (request: Request, reply: FastifyReply) => Promise<FastifyReply>,
      refusedPath?: (request: Request) => HttpError,
    ) =>
    async (request: Request, reply: FastifyReply) => {
      try {
        const invalid = request.validationError;
        if (invalid) {
          throw invalid.validationContext === 'params' && refusedPath
            ? refusedPath(request)
            : pageInputRefusal(invalid);
        }
        return await render(request, reply);
      } catch (error) {
        if (error instanceof RuleError || (error instanceof HttpError && error.status < 500)) {
          const notFoundPage = !(error instanceof RuleError) && error.status === 404;
          return send(reply, refusalView(notFoundPage, error.message), notFoundPage ? 404 : 400);
        }
        throw error;
      }
    };
  /** A record's page: `notOne` is its 404 for a number that cannot be one of its records. */
  const recordGuarded = (
    notOne: (number: string) => HttpError,
    render: (request: RecordPageRequest, reply: FastifyReply) => Promise<FastifyReply>,
  ) => guarded(render, (request) => notOne(request.params.number));

  const recordPage = (subject: Subject) =>
    recordGuarded(
      (number) => notARecordNumber(subject, number),
      async (request, reply) => {
        const { number } = request.params;
        const shown = await readRecordPage(context, { subject, number, version: request.query.version });
        return send(reply, recordView(base, shown));
      },
    );
  app.get(`${prefix}/offer/:number`, pageRoute(recordPageInput), recordPage('offer'));
  app.get(`${prefix}/scheme/:number`, pageRoute(recordPageInput), recordPage('scheme'));

  app.get(
    `${prefix}/fund/:number`,
    pageRoute(recordPageInput),
    recordGuarded(notAFund, async (request, reply) => {
      const shown = await readFundPage(context, {
        fundNumber: request.params.number,
        version: request.query.version,
      });
      return send(reply, fundView(base, shown));
    }),
  );

  const listPage = (subject: Subject) =>
    guarded(async (_request, reply) =>
      send(reply, listView(base, subject, await listRecordsPage(context, { subject }))),
    );
  // The lists and the funds' address take no input: a query parameter is ignored.
  app.get(`${prefix}/offers`, pageRoute({}), listPage('offer'));
  app.get(`${prefix}/schemes`, pageRoute({}), listPage('scheme'));
  app.get(
    `${prefix}/funds`,
    pageRoute({}),
    guarded(async (_request, reply) => reply.redirect(`${base}/offers`, 302)),
  );
}
