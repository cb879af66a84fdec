import type { Caller, ServiceContext } from '../../../gateway/service-context.ts';
import { nzDate } from '../../../platform/calendar.ts';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import type { Preconditions, ResourceValidators } from '../../../platform/http/operation.ts';
import { type ActivityKind, filingOf } from '../domain/activities.ts';
import { isPeriodEnd } from '../domain/compliance.ts';
import { fundUpdateProblems, reportedFigures } from '../domain/fund-update.ts';
import type { HoldingsChecker, Problem } from '../domain/holdings.ts';
import { FUND_NUMBER, OFFER_NUMBER, versionId } from '../domain/records.ts';
import { DISCLOSE_ERRORS } from '../errors.ts';
import type { AnswerCache } from '../store/answer-cache.ts';
import { fileCompliance } from '../store/compliance.ts';
import { type FundRow, fundAt } from '../store/funds.ts';
import { organisationOnly } from './activities.ts';
import { apiBase, notFound, numberParam, registerUrl } from './common.ts';
import { fundValidators } from './funds.ts';

/**
 * The two compliance filings: who may file (the fund, the organisation's authority over it, the
 * preconditions against the fund as it stands), then the filing in one transaction (store/compliance.ts:
 * the new fund version with its holdings, the activity completed, the filing-history entry, the records'
 * last change), its preconditions checked again inside it against the locked fund.
 */

export interface FilingTarget {
  /** The register organisation the filing is made for (`x-organisation`), as named. */
  organisation: string;
  /** Who acts: the organisation's authority over the fund decides (a user's own does not count). */
  caller: Caller | undefined;
  offerNumber: string;
  fundNumber: string;
  /** The write's preconditions (`If-Match`, …) against the fund as it stands. */
  preconditions: Preconditions;
}

/** A filing that may go ahead: the fund as it stood when it was authorised. */
export interface AuthorisedFiling {
  organisation: string;
  offerNumber: string;
  fundNumber: string;
  fund: FundRow;
}

/** The 412 of a filing whose fund has changed since the version its precondition names. */
export const staleFund = (): HttpError =>
  new HttpError(
    PLATFORM_ERRORS.preconditionFailed,
    'Precondition Failed: the fund has changed since the version you supplied',
    [{ field: 'If-Match', message: 'does not name the fund’s current version' }],
  );

/**
 * Who may file, before the filing's content is read: the fund of that offer (404), the organisation's
 * authority over it (403 `no-fund-authority`), the preconditions against the fund as it stands (412).
 */
export async function authoriseFiling(
  context: ServiceContext,
  input: FilingTarget,
): Promise<AuthorisedFiling> {
  const { organisation } = input;
  const offerNumber = numberParam(input.offerNumber, OFFER_NUMBER, 'offerNumber', 'Offer');
  const fundNumber = numberParam(input.fundNumber, FUND_NUMBER, 'fundNumber', 'Fund');
  const fund = await fundAt(context.database.pool, fundNumber, undefined);
  if (!fund || fund.offerNumber !== offerNumber)
    throw notFound(`Fund ${fundNumber} of offer ${offerNumber}`, 'fundNumber');
  if (!(await context.identity.mayAct(organisationOnly(input.caller), 'fund', fundNumber))) {
    throw new HttpError(
      DISCLOSE_ERRORS.noFundAuthority,
      `The organisation ${organisation} has no authority over fund ${fundNumber}.`,
      [{ field: 'x-organisation', message: 'must name an organisation with authority over the fund' }],
    );
  }
  input.preconditions(fundValidators(fundNumber, fund.version, fund.lastChanged), staleFund);
  return { organisation, offerNumber, fundNumber, fund };
}

/** A holdings filing's content: its period and its holdings, fed to a checker as they were read. */
export interface HoldingsContent {
  periodEndDate: unknown;
  checker: HoldingsChecker;
  /** Whether the filing had a `holdings` list at all. */
  present: boolean;
}

/** What is filed: a fund update's body, or full portfolio holdings (undefined: not a JSON object). */
export type FilingContent =
  | { kind: 'FUND_UPDATE'; body: Readonly<Record<string, unknown>> | null }
  | { kind: 'FULL_PORTFOLIO_HOLDINGS'; holdings: HoldingsContent | undefined };

/** The content's problems, its period and what it changes in the fund. */
function readContent(content: FilingContent) {
  let periodEnd: unknown;
  let problems: Problem[];
  let changes: Record<string, unknown> = {};
  let holdings: HoldingsChecker['columns'] | undefined;
  if (content.kind === 'FULL_PORTFOLIO_HOLDINGS') {
    const streamed = content.holdings;
    if (!streamed) {
      problems = [{ field: 'body', message: 'must be a JSON object with periodEndDate and holdings' }];
    } else {
      periodEnd = streamed.periodEndDate;
      problems = [];
      if (typeof periodEnd !== 'string' || !isPeriodEnd(periodEnd)) {
        problems.push({ field: 'periodEndDate', message: 'must be a period end: YYYY-03-31 or YYYY-09-30' });
      }
      problems.push(...streamed.checker.finish(streamed.present));
      holdings = streamed.checker.columns;
    }
  } else {
    const b = content.body;
    // The body's own rules (checked already by the route's declared validator, which lists them first).
    problems = fundUpdateProblems(b);
    periodEnd = b?.periodEndDate;
    if (b) {
      changes = {
        unitPrice: b.unitPrice,
        returns: b.returns,
        fees: b.fees,
        assetAllocation: b.assetAllocation,
        ...reportedFigures(b),
      };
    }
  }
  return { periodEnd, problems, changes, holdings };
}

/** The period's rules against today and the fund: ended, and not before the fund's registration. */
function periodProblems(periodEnd: unknown, problems: Problem[], today: string, registeredOn: string): void {
  if (
    typeof periodEnd === 'string' &&
    problems.every((p) => p.field !== 'periodEndDate') &&
    periodEnd >= today
  ) {
    problems.unshift({ field: 'periodEndDate', message: 'must be a period that has ended' });
  } else if (typeof periodEnd === 'string' && periodEnd < registeredOn) {
    problems.unshift({
      field: 'periodEndDate',
      message: `must end on or after the fund's registration (${registeredOn})`,
    });
  }
}

export interface FilingOptions {
  /** The preconditions, checked again inside the transaction against the locked fund. */
  preconditions: Preconditions;
  /** This process's kept detail answers: dropped at commit, and the change notice awaited. */
  answers?: AnswerCache | undefined;
}

/** A filed activity: the receipt and the fund's validators after it. */
export interface FilingReceipt {
  validators: ResourceValidators;
  body: {
    fundNumber: string;
    offerNumber: string;
    activityType: ActivityKind;
    periodEndDate: string;
    dueDate: string;
    filedDate: string;
    late: boolean;
    versionId: string;
    links: { rel: string; href: string }[];
    registerUrl: string;
  };
}

/**
 * Files the content for an authorised filing: every problem listed (400), then in one transaction, or
 * nothing written: the preconditions (412), the fund changed meanwhile (412), the period filed already
 * (409 `period-already-filed`).
 */
export async function fileActivity(
  context: ServiceContext,
  filing: AuthorisedFiling,
  content: FilingContent,
  options: FilingOptions,
): Promise<FilingReceipt> {
  const { organisation, offerNumber, fundNumber, fund } = filing;
  const { kind } = content;
  const { periodEnd, problems, changes, holdings } = readContent(content);
  const today = nzDate(context.clock.now().getTime());
  periodProblems(periodEnd, problems, today, fund.registeredOn);
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
  const answers = options.answers;
  const noticesBefore = answers?.notices();
  const outcome = await fileCompliance(context.database.pool, {
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
      options.preconditions(fundValidators(fundNumber, current.version, current.lastChanged), staleFund),
  });
  if (outcome.outcome === 'filed' && answers && noticesBefore !== undefined) {
    // Committed: no kept detail answer of this process outlives it, and its notice has gone out.
    answers.drop();
    await answers.echo(noticesBefore);
  }
  if (outcome.outcome === 'missing')
    throw notFound(`Fund ${fundNumber} of offer ${offerNumber}`, 'fundNumber');
  if (outcome.outcome === 'stale') throw staleFund();
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
      links: [{ rel: 'fund', href: `${apiBase(context)}/offer/${offerNumber}/fund/${fundNumber}` }],
      registerUrl: registerUrl(context, `/fund/${fundNumber}`),
    },
  };
}
