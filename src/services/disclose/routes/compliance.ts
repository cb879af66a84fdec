import { JSONParser } from '@streamparser/json';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { nzDate } from '../../../platform/calendar.ts';
import { strongEtag } from '../../../platform/http/conditional.ts';
import { DISCLOSE_ERRORS, PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { badRequest, HttpError } from '../../../platform/http/errors.ts';
import { findLoneSurrogate, findNulCharacter } from '../../../platform/http/input-text.ts';
import { type ActivityKind, activitiesOfFund, filingOf } from '../domain/activities.ts';
import { isPeriodEnd } from '../domain/compliance.ts';
import { fundUpdateProblems } from '../domain/fund-update.ts';
import { HoldingsChecker, type Problem } from '../domain/holdings.ts';
import { FUND_NUMBER, OFFER_NUMBER, versionId } from '../domain/records.ts';
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
import { fundAt } from '../store/register.ts';
import { apiBase, notFound, numberParam, registerUrl, requireOrganisation, sendJson } from './support.ts';

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

  app.get(
    '/activities',
    {
      schema: {
        summary:
          'Last filed, upcoming and overdue compliance activities of the funds the organisation has authority over',
        description: ORGANISATION_NOTE,
        response: readResponses(Activities),
      },
    },
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
      return sendJson(request, reply, {
        organisation,
        activities,
        registerUrl: registerUrl(context, '/funds'),
      });
    },
  );

  const filing = (kind: ActivityKind) => async (request: FastifyRequest) => {
    const organisation = requireOrganisation(request);
    const params = request.params as { offerNumber: string; fundNumber: string };
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
    const ifMatch = request.headers['if-match'];
    if (ifMatch === undefined) {
      throw new HttpError(
        DISCLOSE_ERRORS.preconditionRequired,
        'If-Match is required: send the ETag of the fund as you last read it.',
        [{ field: 'If-Match', message: 'is required' }],
      );
    }
    if (!etagMatches(ifMatch, fundEtag(fundNumber, fund.version))) throw stale();
    const body = request.body;
    let problems: Problem[];
    let periodEnd: unknown;
    let changes: Record<string, unknown> = {};
    let holdings: HoldingsChecker['columns'] | undefined;
    if (kind === 'FULL_PORTFOLIO_HOLDINGS') {
      const streamed = streamedHoldings.get(request);
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
      problems = fundUpdateProblems(body);
      const b = body as Record<string, unknown> | null;
      periodEnd = b?.periodEndDate;
      if (problems.length === 0 && b) {
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
      etag: fundEtag(fundNumber, outcome.version),
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
    body: object,
  ) =>
    scope.put(
      `/offer/:offerNumber/fund/:fundNumber/${suffix}`,
      {
        bodyLimit: MAX_DOCUMENT_BYTES,
        schema: {
          summary,
          description: ORGANISATION_NOTE,
          // Documented with the fixed fund's numbers (the handler checks them: the validator is off).
          params: pathParameters('/offer/:offerNumber/fund/:fundNumber'),
          headers: FilingHeaders,
          body,
          response: filingResponses,
        },
        validatorCompiler: () => () => true,
      },
      async (request, reply) => {
        const result = await filing(kind)(request);
        return reply
          .header('ETag', result.etag)
          .type('application/json; charset=utf-8')
          .send(JSON.stringify(result.body));
      },
    );
  putRoute(
    app,
    'submit-fund-compliance',
    'FUND_UPDATE',
    'File a fund update (If-Match: the fund’s ETag)',
    FundUpdateBody,
  );
  // The holdings filing in a scope of its own: its JSON is stream-parsed; every other operation keeps
  // the platform's parser.
  await app.register(async (scope) => {
    installStreamedHoldingsParser(scope);
    putRoute(
      scope,
      'submit-fph-compliance',
      'FULL_PORTFOLIO_HOLDINGS',
      'File full portfolio holdings (If-Match: the fund’s ETag)',
      HoldingsBody,
    );
  });
}

/** A holdings filing as the stream parser leaves it: the period, and the holdings as checked columns. */
interface StreamedHoldings {
  periodEndDate: unknown;
  checker: HoldingsChecker;
  present: boolean;
}

/** Beside the request, not in its body: the platform's text checks walk the body (here only the period). */
const streamedHoldings = new WeakMap<FastifyRequest, StreamedHoldings>();

const NUL_RULE = 'must not contain the NUL character (U+0000)';
const SURROGATE_RULE = 'must not contain a lone surrogate (an unpaired \\uD800–\\uDFFF escape)';

/** A holdings filing nests three levels (body, holdings, a holding); deeper bodies are refused early. */
const MAX_DEPTH = 32;

/**
 * The nesting depth of JSON text read in chunks (strings and their escapes skipped), so a hostile body
 * is refused before the stream parser, whose work grows with the square of the depth, sees it.
 */
class DepthGuard {
  private level = 0;
  private inString = false;
  private escaped = false;
  constructor(private readonly max: number) {}

  accepts(text: string): boolean {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) this.inString = false;
      } else if (c === 0x22) this.inString = true;
      else if (c === 0x5b || c === 0x7b) {
        if (++this.level > this.max) return false;
      } else if (c === 0x5d || c === 0x7d) this.level--;
    }
    return true;
  }
}

/**
 * The holdings filing's JSON, read as it arrives (@streamparser/json): the bytes checked as strict
 * UTF-8 on the way, each holding checked (its rules, NUL characters and lone surrogates) and kept as
 * columns as soon as it is complete; nothing else of the body is kept.
 */
function installStreamedHoldingsParser(scope: FastifyInstance): void {
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', (request, payload, done) => {
    const parser = new JSONParser({
      paths: ['$.periodEndDate', '$.holdings.*'],
      keepStack: false,
      stringBufferSize: 65_536,
      numberBufferSize: 64,
    });
    const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    const streamed: StreamedHoldings = {
      periodEndDate: undefined,
      checker: new HoldingsChecker(),
      present: false,
    };
    let failed = false;
    let index = 0;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      payload.resume();
      done(error, undefined);
    };
    const notJson = (message: string) =>
      fail(
        new HttpError(PLATFORM_ERRORS.invalidParameter, `The body is not valid JSON: ${message}`, [
          { field: 'body', message: 'must be JSON' },
        ]),
      );
    parser.onError = (error) => notJson(error.message);
    parser.onValue = ({ value, key, stack }) => {
      if (stack.length === 1 && key === 'periodEndDate') {
        streamed.periodEndDate = value;
      } else if (stack.length === 2 && typeof key === 'number') {
        const at = index++;
        streamed.present = true;
        const nul = findNulCharacter(value, ['holdings', String(at)]);
        const surrogate = nul === undefined ? findLoneSurrogate(value, ['holdings', String(at)]) : undefined;
        if (nul !== undefined) return fail(badRequest(nul, NUL_RULE));
        if (surrogate !== undefined) return fail(badRequest(surrogate, SURROGATE_RULE));
        streamed.checker.add(value);
      }
    };
    const depth = new DepthGuard(MAX_DEPTH);
    const write = (text: string) => {
      if (!depth.accepts(text)) {
        return fail(badRequest('body', `must not nest arrays and objects deeper than ${MAX_DEPTH} levels`));
      }
      try {
        if (text) parser.write(text);
      } catch (error) {
        notJson((error as Error).message);
      }
    };
    payload.on('data', (chunk: Buffer) => {
      if (failed) return;
      let text: string;
      try {
        text = decoder.decode(chunk, { stream: true });
      } catch {
        return fail(badRequest('body', 'is not valid UTF-8'));
      }
      write(text);
    });
    payload.on('error', (error) => fail(error));
    payload.on('end', () => {
      if (failed) return;
      try {
        write(decoder.decode());
      } catch {
        return fail(badRequest('body', 'is not valid UTF-8'));
      }
      if (failed) return;
      try {
        if (!parser.isEnded) parser.end();
      } catch (error) {
        return notJson((error as Error).message);
      }
      if (failed) return;
      streamedHoldings.set(request, streamed);
      done(null, { periodEndDate: streamed.periodEndDate });
    });
  });
}

/**
 * The fund's compliance ETag: its current version. The fund reads answer it too (ETag of
 * `/offer/{offer}/fund/{fund}` without `version`), so a client sends what it read.
 */
export const fundEtag = (fundNumber: string, version: number): string =>
  strongEtag(`fund|${fundNumber}|${version}`);

const stale = () =>
  new HttpError(
    PLATFORM_ERRORS.preconditionFailed,
    'Precondition Failed: the fund has changed since the version you supplied',
    [{ field: 'If-Match', message: 'does not name the fund’s current version' }],
  );

function etagMatches(header: string | string[], etag: string): boolean {
  const text = Array.isArray(header) ? header.join(',') : header;
  if (text.trim() === '*') return true;
  return (text.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => tag === etag);
}

/** The organisation decides the call's permissions: authority held by the organisation itself. */
const organisationOnly = (request: FastifyRequest) =>
  request.caller ? { ...request.caller, userId: undefined } : undefined;
