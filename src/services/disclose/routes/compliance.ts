import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { LARGE_UPLOAD } from '../../../platform/http/body-deadline.ts';
import { setValidators } from '../../../platform/http/conditional.ts';
import { checkedWhileParsed, type PartCheck } from '../../../platform/http/declared-validators.ts';
import { preconditionsOf, typed } from '../../../platform/http/operation.ts';
import type { ActivityKind } from '../domain/activities.ts';
import { fundUpdateProblems } from '../domain/fund-update.ts';
import { listActivities } from '../operations/activities.ts';
import {
  type AuthorisedFiling,
  authoriseFiling,
  type FilingContent,
  fileActivity,
} from '../operations/filings.ts';
import {
  Activities,
  FilingHeaders,
  FundUpdateBody,
  filingResponses,
  HoldingsBody,
  ORGANISATION_NOTE,
  pathParameters,
  readResponses,
} from '../schemas.ts';
import type { AnswerCache } from '../store/answer-cache.ts';
import { MAX_DOCUMENT_BYTES } from '../store/document-files.ts';
import { declareOffersOperation, JSON_ANSWER } from './declared.ts';
import { everyProblem, filingValidators } from './filing-validators.ts';
import { holdingsOf, installStreamedHoldingsParser } from './holdings-parser.ts';
import { requireOrganisation, sendJsonBody } from './support.ts';

/**
 * Compliance: `GET /activities`, and the two filings (operations/activities.ts, operations/filings.ts).
 * The holdings filing's JSON is read by a stream parser (@streamparser/json, holdings-parser.ts):
 * holdings are checked one by one as they arrive and kept as columns, so a 50,000-line filing never
 * exists as a list of objects.
 */
export async function complianceRoutes(
  app: FastifyInstance,
  context: ServiceContext,
  answers: AnswerCache,
): Promise<void> {
  // Computed from the clock and the organisation's authorities: answered without validators.
  typed(app).get(
    '/activities',
    declareOffersOperation(
      {
        schema: {
          summary:
            'Last filed, upcoming and overdue compliance activities of the funds the organisation has authority over',
          description: ORGANISATION_NOTE,
          response: readResponses(Activities),
        },
      },
      { produces: JSON_ANSWER },
    ),
    async (request, reply) => {
      const organisation = requireOrganisation(request);
      return sendJsonBody(reply, await listActivities(context, { organisation, caller: request.caller }));
    },
  );

  /** The filing's content as the route read it: the fund update's body, or the streamed holdings. */
  const contentOf = (kind: ActivityKind, request: FastifyRequest): FilingContent =>
    kind === 'FULL_PORTFOLIO_HOLDINGS'
      ? { kind, holdings: holdingsOf(request) }
      : { kind, body: request.body as Record<string, unknown> | null };

  const putRoute = (
    scope: FastifyInstance,
    suffix: string,
    kind: ActivityKind,
    summary: string,
    body: { schema: object; check: PartCheck },
  ) =>
    typed(scope).put(
      `/offer/:offerNumber/fund/:fundNumber/${suffix}`,
      {
        ...declareOffersOperation(
          {
            bodyLimit: MAX_DOCUMENT_BYTES,
            // Twenty megabytes may take longer than an ordinary body, at the minimum rate.
            config: LARGE_UPLOAD as object,
            schema: {
              summary,
              description: ORGANISATION_NOTE,
              // If-Match holds against the fund as it stands (its ETag from the fund's read).
              'x-etag-of': '/offer/{offerNumber}/fund/{fundNumber}',
              params: FilingParams,
              headers: FilingHeaders,
              body: body.schema,
              response: filingResponses,
            },
          },
          // If-Match is mandatory on a filing (428), as the register has always published.
          {
            produces: JSON_ANSWER,
            conditional: { required: 'If-Match' },
            validators: filingValidators(body.check),
          },
        ),
        // Who may file, before any byte of the body is read: a refused filing's body is never parsed.
        // Typed by the declared path schema beside it. The router gives every path parameter as text,
        // which is all the schema asks, so the path is as declared before the body is read.
        preParsing: async (request, _reply, payload) => {
          const filing = await authoriseFiling(context, {
            organisation: requireOrganisation(request),
            caller: request.caller,
            offerNumber: request.params.offerNumber,
            fundNumber: request.params.fundNumber,
            preconditions: preconditionsOf(request),
          });
          authorised.set(request, filing);
          return payload;
        },
      },
      async (request, reply) => {
        const filing = authorised.get(request);
        if (!filing) throw new Error('a filing reached its handler without its preParsing check');
        const receipt = await fileActivity(context, filing, contentOf(kind, request), {
          preconditions: preconditionsOf(request),
          answers,
        });
        setValidators(reply, receipt.validators);
        return sendJsonBody(reply, receipt.body);
      },
    );
  putRoute(app, 'submit-fund-compliance', 'FUND_UPDATE', 'File a fund update (If-Match: the fund’s ETag)', {
    schema: FundUpdateBody,
    check: everyProblem(fundUpdateProblems),
  });
  // The holdings filing in a scope of its own: its JSON is stream-parsed; every other operation keeps
  // the platform's parser.
  await app.register(async (scope) => {
    installStreamedHoldingsParser(scope, MAX_DOCUMENT_BYTES);
    putRoute(
      scope,
      'submit-fph-compliance',
      'FULL_PORTFOLIO_HOLDINGS',
      'File full portfolio holdings (If-Match: the fund’s ETag)',
      { schema: HoldingsBody, check: checkedWhileParsed },
    );
  });
}

/** A filing's path: the offer and the fund (their patterns are checked as the record's, a 404). */
const FilingParams = pathParameters('/offer/:offerNumber/fund/:fundNumber');

/** What the preParsing check found, for the handler. */
const authorised = new WeakMap<FastifyRequest, AuthorisedFiling>();
