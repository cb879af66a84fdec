import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { nzDate } from '../../../platform/calendar.ts';
import { LARGE_UPLOAD } from '../../../platform/http/body-deadline.ts';
import { setValidators } from '../../../platform/http/conditional.ts';
import { checkedWhileParsed, type PartCheck } from '../../../platform/http/declared-validators.ts';
import { DISCLOSE_ERRORS, PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { conditionalWrite, typed } from '../../../platform/http/operation.ts';
import { type ActivityKind, activitiesOfFund, filingOf } from '../domain/activities.ts';
import { isPeriodEnd } from '../domain/compliance.ts';
import { fundUpdateProblems } from '../domain/fund-update.ts';
import type { HoldingsChecker, Problem } from '../domain/holdings.ts';
import { FUND_NUMBER, OFFER_NUMBER, versionId } from '../domain/records.ts';
import { apiBase, notFound, numberParam, registerUrl } from '../operations/common.ts';
import { fundValidators } from '../operations/funds.ts';
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
import { complianceFunds, fileCompliance } from '../store/compliance.ts';
import { MAX_DOCUMENT_BYTES } from '../store/document-files.ts';
import { fundAt } from '../store/funds.ts';
import { declareOffersOperation, JSON_ANSWER } from './declared.ts';
import { everyProblem, filingValidators } from './filing-validators.ts';
import { holdingsOf, installStreamedHoldingsParser } from './holdings-parser.ts';
import { requireOrganisation, sendJsonBody } from './support.ts';

/**
 * Compliance: `GET /activities`, and the two filings. The filings' JSON is read by a stream parser
 * (@streamparser/json): holdings are checked one by one as they arrive and kept as columns, so a
 * 50,000-line filing never exists as a list of objects.
 */
export async function complianceRoutes(
  app: FastifyInstance,
  context: ServiceContext,
  answers: AnswerCache,
): Promise<void> {
  const pool = context.database.pool;
  const base = apiBase(context);

  // Computed from the clock (what is due or overdue today) and the organisation's authorities, of which
  // the register keeps no modification time: answered without validators, as a computation.
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
      const funds = await context.identity.objectsCallerMayActOn(organisationOnly(request), 'fund');
      const today = nzDate(context.clock.now().getTime());
      const rows = await complianceFunds(
        pool,
        funds.filter((f) => FUND_NUMBER.test(f)),
      );
      const activities = rows.flatMap((fund) =>
        activitiesOfFund(
          fund.fphRequired ? ['FUND_UPDATE', 'FULL_PORTFOLIO_HOLDINGS'] : ['FUND_UPDATE'],
          fund.registeredOn,
          today,
          fund.filings,
        ).map((a) => ({
          fundNumber: fund.fundNumber,
          fundName: fund.fundName,
          offerNumber: fund.offerNumber,
          activityType: a.kind,
          periodEndDate: a.periodEndDate,
          dueDate: a.dueDate,
          status: a.status,
          filedDate: a.filedDate,
          late: a.late,
          href: `${base}/offer/${fund.offerNumber}/fund/${fund.fundNumber}/${a.kind === 'FUND_UPDATE' ? 'submit-fund-compliance' : 'submit-fph-compliance'}`,
        })),
      );
      return sendJsonBody(reply, { organisation, activities, registerUrl: registerUrl(context, '/funds') });
    },
  );

  /**
   * Who may file, checked before any byte of the body is read (a `preParsing` hook): the fund, the
   * organisation's authority over it, and the preconditions against the fund as it stands (`If-Match`,
   * required by the declaration: 428 before this). A refused filing's body is never parsed. The
   * preconditions are checked again inside the filing's transaction, against the locked fund.
   */
  const authorise = async (request: FastifyRequest, params: Static<typeof FilingParams>): Promise<void> => {
    const organisation = requireOrganisation(request);
    const offerNumber = numberParam(params.offerNumber, OFFER_NUMBER, 'offerNumber', 'Offer');
    const fundNumber = numberParam(params.fundNumber, FUND_NUMBER, 'fundNumber', 'Fund');
    const fund = await fundAt(pool, fundNumber, undefined);
    if (!fund || fund.offerNumber !== offerNumber)
      throw notFound(`Fund ${fundNumber} of offer ${offerNumber}`, 'fundNumber');
    if (!(await context.identity.mayAct(organisationOnly(request), 'fund', fundNumber))) {
      throw new HttpError(
        DISCLOSE_ERRORS.noFundAuthority,
        `The organisation ${organisation} has no authority over fund ${fundNumber}.`,
        [{ field: 'x-organisation', message: 'must name an organisation with authority over the fund' }],
      );
    }
    conditionalWrite(request, fundValidators(fundNumber, fund.version, fund.lastChanged), stale);
    authorised.set(request, { organisation, offerNumber, fundNumber, fund });
  };

  const filing = (kind: ActivityKind) => async (request: FastifyRequest) => {
    const found = authorised.get(request);
    if (!found) throw new Error('a filing reached its handler without its preParsing check');
    const { organisation, offerNumber, fundNumber, fund } = found;
    const body = request.body;
    let problems: Problem[];
    let periodEnd: unknown;
    let changes: Record<string, unknown> = {};
    let holdings: HoldingsChecker['columns'] | undefined;
    if (kind === 'FULL_PORTFOLIO_HOLDINGS') {
      const streamed = holdingsOf(request);
      if (!streamed) {
        problems = [{ field: 'body', message: 'must be a JSON object with periodEndDate and holdings' }];
      } else {
        periodEnd = streamed.periodEndDate;
        problems = [];
        if (typeof periodEnd !== 'string' || !isPeriodEnd(periodEnd)) {
          problems.push({
            field: 'periodEndDate',
            message: 'must be a period end: YYYY-03-31 or YYYY-09-30',
          });
        }
        problems.push(...streamed.checker.finish(streamed.present));
        holdings = streamed.checker.columns;
      }
    } else {
      // The body's own rules were checked as it was validated (filing-validators.ts).
      problems = [];
      const b = body as Record<string, unknown> | null;
      periodEnd = b?.periodEndDate;
      if (b) {
        changes = {
          unitPrice: b.unitPrice,
          returns: b.returns,
          fees: b.fees,
          assetAllocation: b.assetAllocation,
        };
      }
    }
    const today = nzDate(context.clock.now().getTime());
    if (
      typeof periodEnd === 'string' &&
      problems.every((p) => p.field !== 'periodEndDate') &&
      periodEnd >= today
    ) {
      problems.unshift({ field: 'periodEndDate', message: 'must be a period that has ended' });
    } else if (typeof periodEnd === 'string' && periodEnd < fund.registeredOn) {
      problems.unshift({
        field: 'periodEndDate',
        message: `must end on or after the fund's registration (${fund.registeredOn})`,
      });
    }
    if (problems.length > 0) {
      throw new HttpError(
        PLATFORM_ERRORS.invalidParameter,
        `The filing breaks ${problems.length} rule${problems.length === 1 ? '' : 's'}; every problem is listed.`,
        problems,
      );
    }
    const period = periodEnd as string;
    const { dueDate, late } = filingOf(kind, period, today);
    const now = context.clock.now();
    const noticesBefore = answers.notices();
    const outcome = await fileCompliance(pool, {
      fundNumber,
      offerNumber,
      expectedVersion: fund.version,
      kind,
      periodEnd: period,
      dueDate,
      late,
      at: now,
      organisation,
      documentChanges: changes,
      ...(holdings ? { holdings } : {}),
      // Inside the transaction, against the locked fund: 412 and nothing written when one fails.
      preconditions: (current) =>
        conditionalWrite(request, fundValidators(fundNumber, current.version, current.lastChanged), stale),
    });
    if (outcome.outcome === 'filed') {
      // Committed: no kept detail answer of this process outlives it, and its notice has gone out.
      answers.drop();
      await answers.echo(noticesBefore);
    }
    if (outcome.outcome === 'missing')
      throw notFound(`Fund ${fundNumber} of offer ${offerNumber}`, 'fundNumber');
    if (outcome.outcome === 'stale') throw stale();
    if (outcome.outcome === 'duplicate') {
      throw new HttpError(
        DISCLOSE_ERRORS.periodAlreadyFiled,
        `The ${kind === 'FUND_UPDATE' ? 'fund update' : 'full portfolio holdings'} for the period ending ${period} was filed on ${nzDate(outcome.filedAt.getTime())}.`,
        [{ field: 'periodEndDate', message: 'was filed already' }],
      );
    }
    return {
      validators: fundValidators(fundNumber, outcome.version, now),
      body: {
        fundNumber,
        offerNumber,
        activityType: kind,
        periodEndDate: period,
        dueDate,
        filedDate: today,
        late,
        versionId: versionId(fundNumber, outcome.version),
        links: [{ rel: 'fund', href: `${base}/offer/${offerNumber}/fund/${fundNumber}` }],
        registerUrl: registerUrl(context, `/fund/${fundNumber}`),
      },
    };
  };

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
        // Typed by the declared path schema beside it. The router gives every path parameter as text,
        // which is all the schema asks, so the path is as declared before the body is read.
        preParsing: async (request, _reply, payload) => {
          await authorise(request, request.params);
          return payload;
        },
      },
      async (request, reply) => {
        const result = await filing(kind)(request);
        setValidators(reply, result.validators);
        return sendJsonBody(reply, result.body);
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
interface Authorised {
  organisation: string;
  offerNumber: string;
  fundNumber: string;
  fund: NonNullable<Awaited<ReturnType<typeof fundAt>>>;
}

const authorised = new WeakMap<FastifyRequest, Authorised>();

const stale = () =>
  new HttpError(
    PLATFORM_ERRORS.preconditionFailed,
    'Precondition Failed: the fund has changed since the version you supplied',
    [{ field: 'If-Match', message: 'does not name the fund’s current version' }],
  );

/** The organisation decides the call's permissions: authority held by the organisation itself. */
const organisationOnly = (request: FastifyRequest) =>
  request.caller ? { ...request.caller, userId: undefined } : undefined;
