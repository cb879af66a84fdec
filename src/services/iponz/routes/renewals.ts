/**
 * Renewals (REST JSON): the check (GET …/{number}/renewal: is a renewal or maintenance fee due, when,
 * how much) and the payment (POST …/{number}/renew: registered users only; idempotent per request id;
 * the fee charged through the billing module, the expiry moved and the status history written in one
 * transaction; If-Match honoured against the case's ETag).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { nzDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { keepNoFailure, requestHash, runOnce, successOnlyStore } from '../../../platform/http/idempotency.ts';
import {
  conditionalRead,
  conditionalWrite,
  declareOperation,
  operationContext,
  typed,
} from '../../../platform/http/operation.ts';
import { callerRequestId } from '../../../platform/http/request-id.ts';
import { nzStartOfDay } from '../../../platform/nz-time.ts';
import { CASE_NUMBER_PARAMETERS, parseCaseNumber } from '../domain/identifiers.ts';
import { type CaseRecord, caseEtag, renewalCaseOf } from '../domain/model.ts';
import { REGISTERED_USER } from '../domain/registration.ts';
import { renewalCheckEtag, renewalEtagHeld } from '../domain/renewal-etags.ts';
import { renewalFeeLines, statusAfterRenewal } from '../domain/renewal-fees.ts';
import { type CaseKind, checkRenewal, payRenewal } from '../domain/renewals.ts';
import { REQUEST_ID_HEADER_NAME } from '../domain/request-id.ts';
import { IPONZ_ERRORS } from '../errors.ts';
import {
  jsonResponses,
  RENEWAL_EXAMPLE,
  RenewalCheck,
  RenewalPaid,
  RenewBody,
} from '../schemas/operations.ts';
import { type CaseCache, caseKey } from '../store/case-cache.ts';
import { findCase, recordRenewal } from '../store/cases.ts';
import { type RenewalArrival, renewalTable } from '../store/kept-requests.ts';
import { CASE_PATHS, PARAM_NAME } from './bibliographic.ts';
import { readCase } from './case-reader.ts';
import { JSON_ONLY, notFound } from './support.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const KINDS: readonly CaseKind[] = ['patent', 'trademark', 'design'];
const NAMES: Record<CaseKind, string> = { patent: 'patent', trademark: 'trade mark', design: 'design' };
/** The operation names fee records carry. */
const OPERATION: Record<CaseKind, string> = {
  patent: 'renewPatent',
  trademark: 'renewTradeMark',
  design: 'renewDesign',
};

export async function renewalRoutes(
  plugin: FastifyInstance,
  context: ServiceContext,
  cases: CaseCache,
): Promise<void> {
  const app = typed(plugin);
  const pool = context.database.pool;
  const renewals = successOnlyStore(renewalTable(pool));
  const today = () => nzDate(context.clock.now().getTime());

  const checkOf = (record: CaseRecord, on: string) => {
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
  };

  for (const kind of KINDS) {
    const param = PARAM_NAME[kind];
    const base = CASE_PATHS[kind][0]!;
    // The number's rule is the domain's (`parseCaseNumber`): its 400 names `patent-number` …
    const params = Type.Record(
      Type.Literal(param),
      Type.String({ description: `The ${NAMES[kind]} number`, examples: [RENEWAL_EXAMPLE[kind]] }),
    );
    const numberOf = (path: Record<string, string>) =>
      parseCaseNumber(kind, path[param] ?? '', CASE_NUMBER_PARAMETERS[kind]);

    app.get(
      `${base}/:${param}/renewal`,
      declareOperation(
        {
          schema: {
            summary: `Whether a renewal or maintenance fee is due for a ${NAMES[kind]}, when, and how much`,
            params,
            response: jsonResponses({ 200: RenewalCheck }, [304, 400, 404, 406]),
          },
        },
        { produces: JSON_ONLY, conditional: 'read' },
      ),
      async (request, reply) => {
        const number = numberOf(request.params);
        const cached = await readCase(pool, cases, kind, number);
        if (!cached) throw notFound(`${NAMES[kind]} with number ${number}`);
        const record = cached.record;
        const now = context.clock.now().getTime();
        const on = nzDate(now);
        // The check is the case as it stands on the day: it changes with the case and at each midnight.
        const lastModified = new Date(Math.max(record.updatedAt.getTime(), nzStartOfDay(now)));
        if (conditionalRead(request, reply, { etag: renewalCheckEtag(record, on), lastModified }))
          return reply;
        return reply.type(JSON_TYPE).send(JSON.stringify(checkOf(record, on)));
      },
    );

    app.post(
      `${base}/:${param}/renew`,
      declareOperation(
        {
          config: { threeLegged: true },
          schema: {
            summary: `Pay the ${NAMES[kind]}'s renewal or maintenance fee (registered users; fee)`,
            description: `Idempotent per request id (the ${REQUEST_ID_HEADER_NAME} header): a repeat answers the first payment again and charges nothing. If-Match: an ETag of the case as it stands (from the bibliographic read or the renewal check); If-Unmodified-Since: its Last-Modified.`,
            params,
            body: RenewBody,
            response: jsonResponses({ 200: RenewalPaid }, [400, 403, 404, 406, 412]),
          },
        },
        { produces: JSON_ONLY, conditional: {} },
      ),
      async (request, reply) => {
        const caller = request.caller;
        if (!(await context.identity.mayAct(caller, REGISTERED_USER.kind, REGISTERED_USER.objectId)))
          throw new HttpError(
            IPONZ_ERRORS.notRegisteredUser,
            'Renewals are paid by users registered with the office; this user is not registered',
          );
        const billingReference = request.body?.billingReference;
        const requestId = request.id;
        const number = numberOf(request.params);
        // Only an id the caller sent is an idempotency key; a renewal sent without one is not kept under
        // the id the gateway made for it (platform/http/request-id.ts).
        const key = callerRequestId(request);
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
        // Refused before any work without a paying organisation (and, in production, its authority):
        // nothing is kept under the id, so it pays once the cause is put right.
        await context.fees.requireAuthority(caller);
        let echoed: Promise<void> | undefined;
        let etag: string | undefined;
        const done = await runOnce(renewals, arrival, {
          failure: keepNoFailure,
          reuse: () =>
            new RuleError(
              REQUEST_ID_HEADER_NAME,
              'was used before for another request (another case or billing reference)',
            ),
          async work(tx) {
            const record = await findCase(tx, kind, number, true);
            if (!record) throw notFound(`${NAMES[kind]} with number ${number}`);
            const on = today();
            // Checked on the case as locked, before anything is charged or written (412: nothing written).
            conditionalWrite(request, {
              etag: renewalEtagHeld(record, request.headers['if-match']),
              lastModified: record.updatedAt,
            });
            const input = renewalCaseOf(record);
            const paid = payRenewal(input, on, CASE_NUMBER_PARAMETERS[kind]);
            const check = checkRenewal(input, on);
            if (check.state === 'none') throw new Error('a payable renewal has a check');
            const feeRecordIds: number[] = [];
            for (const line of renewalFeeLines(kind, check, input.classes ?? 1)) {
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
              status,
              statusDate: on,
              at: context.clock.now(),
            });
            // Listened for before the commit sends the notice (store/case-cache.ts).
            echoed = cases.echo(caseKey(kind, record.caseNumber));
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
        if (echoed) {
          cases.drop(caseKey(kind, number));
          await echoed;
        }
        let body: unknown;
        if ('outcome' in done) body = done.outcome.answer;
        else {
          // A repeat answers the first payment (its preconditions held when it ran) with the case's ETag
          // as it stands now.
          operationContext(request).preconditionsChecked = true;
          body = done.repeat.outcome?.answer;
          const record = await findCase(pool, kind, number);
          if (record) etag = caseEtag(record);
        }
        if (etag) reply.header('ETag', etag);
        return reply.type(JSON_TYPE).send(JSON.stringify(body));
      },
    );
  }
}
