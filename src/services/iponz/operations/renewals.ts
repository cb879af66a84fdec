/**
 * Renewals: the check (is a renewal or maintenance fee due for a case, when, how much) and the payment
 * (registered users only; idempotent per request id through the platform's `runOnce`; the fee charged
 * through the billing module, the expiry moved and a renewal event written in the history in one transaction; the
 * write's preconditions checked on the locked case before anything is charged).
 */
import type { Caller, ServiceContext } from '../../../gateway/service-context.ts';
import { nzDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { keepNoFailure, requestHash, runOnce, successOnlyStore } from '../../../platform/http/idempotency.ts';
import type { Preconditions, ResourceValidators } from '../../../platform/http/operation.ts';
import { nzStartOfDay } from '../../../platform/nz-time.ts';
import { CASE_NUMBER_PARAMETERS, parseCaseNumber } from '../domain/identifiers.ts';
import { type CaseRecord, caseEtag, renewalCaseOf } from '../domain/model.ts';
import { REGISTERED_USER } from '../domain/registration.ts';
import { renewalCheckEtag, renewalEtagHeld } from '../domain/renewal-etags.ts';
import { renewalFeeLines, statusAfterRenewal } from '../domain/renewal-fees.ts';
import { type CaseKind, checkRenewal, payRenewal } from '../domain/renewals.ts';
import { REQUEST_ID_HEADER_NAME } from '../domain/request-id.ts';
import { IPONZ_ERRORS } from '../errors.ts';
import { caseKey } from '../store/case-cache.ts';
import { findCase, recordRenewal } from '../store/cases.ts';
import { type KeptRenewal, type RenewalArrival, renewalTable } from '../store/kept-requests.ts';
import { type CaseCacheOption, caseWritten, notFound, readCase } from './support.ts';

export const CASE_NAMES: Record<CaseKind, string> = {
  patent: 'patent',
  trademark: 'trade mark',
  design: 'design',
};
/** The operation names fee records carry. */
const OPERATION: Record<CaseKind, string> = {
  patent: 'renewPatent',
  trademark: 'renewTradeMark',
  design: 'renewDesign',
};

/** A case named by its kind and its number as sent (the domain's rule names the published parameter). */
export interface CaseReference {
  kind: CaseKind;
  /** The number's text, checked by `parseCaseNumber` (a 400 naming `patent-number` …). */
  caseNumber: string;
}

const numberOf = ({ kind, caseNumber }: CaseReference) =>
  parseCaseNumber(kind, caseNumber, CASE_NUMBER_PARAMETERS[kind]);

/** The renewal check's answer for a case on a New Zealand date. */
export function renewalCheckOf(context: ServiceContext, record: CaseRecord, on: string) {
  const input = renewalCaseOf(record);
  const check = checkRenewal(input, on);
  const base = { caseNumber: String(record.caseNumber), caseType: record.kind, status: record.status };
  if (check.state === 'none') {
    return {
      ...base,
      renewalDue: false,
      state: 'none' as const,
      reason: check.reason,
      fee: null,
      anniversary: null,
      renewal: null,
      dueDate: null,
      windowOpens: null,
      graceEnds: null,
      expiryDate: check.expiryDate,
      nextExpiryDate: null,
      amount: null,
    };
  }
  const lines = renewalFeeLines(record.kind, check, input.classes ?? 1);
  const quotes = lines.map((line) => context.fees.quote(line.feeCode, 'API', line.quantity));
  const amountCents = quotes.reduce((sum, q) => sum + q.amountCents, 0);
  const gstCents = quotes.reduce((sum, q) => sum + q.gstCents, 0);
  return {
    ...base,
    renewalDue: check.payable,
    state: check.state,
    reason: null,
    fee: check.fee,
    anniversary: check.anniversary,
    renewal: check.renewal,
    dueDate: check.dueDate,
    windowOpens: check.window.opens,
    graceEnds: check.window.graceEnds,
    expiryDate: check.expiryDate,
    nextExpiryDate: check.nextExpiryDate,
    amount:
      check.amountCents === null
        ? null
        : {
            feeCode: lines[0]!.feeCode,
            baseFeeCents: check.baseFeeCents,
            lateFeeCents: check.lateFeeCents,
            amountCents,
            gstCents,
            totalCents: amountCents + gstCents,
            currency: 'NZD' as const,
          },
  };
}

export type RenewalCheckAnswer = ReturnType<typeof renewalCheckOf>;

/**
 * The renewal check of a case as it stands today, with its validators: the check changes with the case
 * and at each New Zealand midnight. The answer is made only when `answer` is called (a 304 needs none).
 */
export async function checkCaseRenewal(
  context: ServiceContext,
  input: CaseReference,
  options: CaseCacheOption = {},
): Promise<{ validators: ResourceValidators; answer(): RenewalCheckAnswer }> {
  const number = numberOf(input);
  const cached = await readCase(context.database.pool, options.cases, input.kind, number);
  if (!cached) throw notFound(`${CASE_NAMES[input.kind]} with number ${number}`);
  const record = cached.record;
  const now = context.clock.now().getTime();
  const on = nzDate(now);
  const lastModified = new Date(Math.max(record.updatedAt.getTime(), nzStartOfDay(now)));
  return {
    validators: { etag: renewalCheckEtag(record, on), lastModified },
    answer: () => renewalCheckOf(context, record, on),
  };
}

export interface RenewalPayment extends CaseReference {
  /** Who pays: a user registered with the office, for a subscription. */
  caller: Caller | undefined;
  /** The request's id, recorded with the fee and answered. */
  requestId: string;
  /** The id the caller sent, if any: the idempotency key (an id the gateway made is none). */
  idempotencyKey: string | undefined;
  billingReference?: string | undefined;
  /** The `If-Match` sent, if any: it may name any of the case's representations' ETags. */
  ifMatch?: string | undefined;
  preconditions: Preconditions;
}

export interface RenewalPaid {
  /** The answer's content: the first payment's on a repeat. */
  answer: unknown;
  /** The case's ETag after the payment (on a repeat: as it stands now), when the case exists. */
  etag: string | undefined;
  /** True when a payment kept under the idempotency key was answered again (nothing charged). */
  repeat: boolean;
}

/** Pays a case's renewal or maintenance fee, once per idempotency key. */
export async function payCaseRenewal(
  context: ServiceContext,
  input: RenewalPayment,
  options: CaseCacheOption = {},
): Promise<RenewalPaid> {
  const { kind, caller, requestId, billingReference } = input;
  if (!(await context.identity.mayAct(caller, REGISTERED_USER.kind, REGISTERED_USER.objectId)))
    throw new HttpError(
      IPONZ_ERRORS.notRegisteredUser,
      'Renewals are paid by users registered with the office; this user is not registered',
    );
  const number = numberOf(input);
  const key = input.idempotencyKey;
  const arrival: RenewalArrival = {
    key,
    requestId: key ?? requestId,
    operation: OPERATION[kind],
    requestHash: requestHash({
      operation: OPERATION[kind],
      method: 'POST',
      path: `/${kind}/${number}`,
      body: { billingReference },
    }),
    subscriptionId: caller!.subscriptionId,
    kind,
    caseNumber: number,
    at: context.clock.now(),
  };
  // Refused before any work without a paying organisation (and, in production, its authority): nothing
  // is kept under the id, so it pays once the cause is put right.
  await context.fees.requireAuthority(caller);
  let echoed: Promise<void> | undefined;
  let etag: string | undefined;
  const pool = context.database.pool;
  const done = await runOnce(successOnlyStore(renewalTable(pool)), arrival, {
    failure: keepNoFailure,
    reuse: () =>
      new RuleError(
        REQUEST_ID_HEADER_NAME,
        'was used before for another request (another case or billing reference)',
      ),
    async work(tx): Promise<KeptRenewal> {
      const record = await findCase(tx, kind, number, true);
      if (!record) throw notFound(`${CASE_NAMES[kind]} with number ${number}`);
      const on = nzDate(context.clock.now().getTime());
      // Checked on the case as locked, before anything is charged or written (412: nothing written).
      input.preconditions({ etag: renewalEtagHeld(record, input.ifMatch), lastModified: record.updatedAt });
      const renewal = renewalCaseOf(record);
      const paid = payRenewal(renewal, on, CASE_NUMBER_PARAMETERS[kind]);
      const check = checkRenewal(renewal, on);
      if (check.state === 'none') throw new Error('a payable renewal has a check');
      const feeRecordIds: number[] = [];
      for (const line of renewalFeeLines(kind, check, renewal.classes ?? 1)) {
        const charged = await context.fees.charge(tx, {
          operation: OPERATION[kind],
          feeCode: line.feeCode,
          quantity: line.quantity,
          caller,
          requestId,
          billingReference,
          object: { kind, id: String(record.caseNumber) },
        });
        if (charged) feeRecordIds.push(charged.id);
      }
      const status = statusAfterRenewal(record.status);
      await recordRenewal(tx, record, {
        renewedDueDate: paid.renewedDueDate,
        newExpiryDate: paid.expiryDate,
        status,
        statusDate: on,
        at: context.clock.now(),
      });
      // Listened for before the commit sends the notice (store/case-cache.ts).
      echoed = options.cases?.echo(caseKey(kind, record.caseNumber));
      etag = caseEtag({ ...record, version: record.version + 1 });
      return {
        kind,
        caseNumber: record.caseNumber,
        renewedDueDate: paid.renewedDueDate,
        answer: {
          caseNumber: String(record.caseNumber),
          caseType: kind,
          status,
          renewedDueDate: paid.renewedDueDate,
          expiryDate: paid.expiryDate,
          fee: paid.fee,
          late: paid.late,
          amountCents: paid.amountCents,
          feeRecordIds,
          requestId,
        },
      };
    },
  });
  await caseWritten(options.cases, kind, number, echoed);
  if ('outcome' in done) return { answer: done.outcome.answer, etag, repeat: false };
  // A repeat answers the first payment (its preconditions held when it ran) with the case's ETag as it
  // stands now.
  const record = await findCase(pool, kind, number);
  return { answer: done.repeat.outcome?.answer, etag: record ? caseEtag(record) : undefined, repeat: true };
}
