/**
 * Renewals (REST JSON): the check (GET …/{number}/renewal: is a renewal or maintenance fee due, when,
 * how much) and the payment (POST …/{number}/renew: registered users only; idempotent per request id;
 * the fee charged through the billing module, the expiry moved and the status history written in one
 * transaction; If-Match honoured against the case's ETag).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { nzDate } from '../../../platform/calendar.ts';
import { withTransaction } from '../../../platform/db/pool.ts';
import { RuleError } from '../../../platform/errors.ts';
import { evaluatePreconditions } from '../../../platform/http/conditional.ts';
import { IPONZ_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { negotiate } from '../../../platform/http/negotiate.ts';
import { callerRequestId } from '../../../platform/http/request-id.ts';
import { CASE_NUMBER_PARAMETERS, parseCaseNumber } from '../domain/identifiers.ts';
import { type CaseRecord, caseEtag, renewalCaseOf } from '../domain/model.ts';
import { REGISTERED_USER } from '../domain/registration.ts';
import { renewalFeeLines, statusAfterRenewal } from '../domain/renewal-fees.ts';
import { type CaseKind, checkRenewal, payRenewal } from '../domain/renewals.ts';
import { REQUEST_ID_HEADER_NAME } from '../domain/request-id.ts';
import {
  jsonResponses,
  RENEWAL_EXAMPLE,
  RenewalCheck,
  RenewalPaid,
  RenewBody,
} from '../schemas/operations.ts';
import { type CaseCache, caseKey } from '../store/case-cache.ts';
import { findCase, findRenewal, insertRenewal, lockRequestId, recordRenewal } from '../store/cases.ts';
import { CASE_PATHS, PARAM_NAME } from './bibliographic.ts';
import { readCase } from './case-reader.ts';
import { documentedOnly, notFound } from './support.ts';

const JSON_ONLY = ['application/json'] as const;
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
  app: FastifyInstance,
  context: ServiceContext,
  cases: CaseCache,
): Promise<void> {
  const pool = context.database.pool;
  const today = () => nzDate(context.clock.now().getTime());

  const caseOf = async (
    kind: CaseKind,
    request: FastifyRequest,
    db: pg.Pool | pg.PoolClient = pool,
    lock = false,
  ) => {
    const text = (request.params as Record<string, string>)[PARAM_NAME[kind]] ?? '';
    const number = parseCaseNumber(kind, text, CASE_NUMBER_PARAMETERS[kind]);
    const record = await findCase(db, kind, number, lock);
    if (!record) throw notFound(`${NAMES[kind]} with number ${number}`);
    return record;
  };

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
    const params = Type.Object({
      [param]: Type.String({ description: `The ${NAMES[kind]} number`, examples: [RENEWAL_EXAMPLE[kind]] }),
    });

    app.get(
      `${base}/:${param}/renewal`,
      {
        schema: {
          summary: `Whether a renewal or maintenance fee is due for a ${NAMES[kind]}, when, and how much`,
          params,
          response: jsonResponses({ 200: RenewalCheck }, [400, 404, 406]),
        },
        validatorCompiler: documentedOnly,
      },
      async (request, reply) => {
        negotiate(request, JSON_ONLY);
        const text = (request.params as Record<string, string>)[param] ?? '';
        const number = parseCaseNumber(kind, text, CASE_NUMBER_PARAMETERS[kind]);
        const cached = await readCase(pool, cases, kind, number);
        if (!cached) throw notFound(`${NAMES[kind]} with number ${number}`);
        const record = cached.record;
        return reply
          .header('ETag', caseEtag(record))
          .type(JSON_TYPE)
          .send(JSON.stringify(checkOf(record, today())));
      },
    );

    app.post(
      `${base}/:${param}/renew`,
      {
        config: { threeLegged: true },
        schema: {
          summary: `Pay the ${NAMES[kind]}'s renewal or maintenance fee (registered users; fee)`,
          description: `Idempotent per request id (the ${REQUEST_ID_HEADER_NAME} header): a repeat answers the first payment again and charges nothing. If-Match: the case's ETag (from the bibliographic read or the renewal check).`,
          params,
          body: RenewBody,
          response: jsonResponses({ 200: RenewalPaid }, [400, 403, 404, 406, 412]),
        },
        validatorCompiler: documentedOnly,
      },
      async (request, reply) => {
        negotiate(request, JSON_ONLY);
        const caller = request.caller;
        if (!(await context.identity.mayAct(caller, REGISTERED_USER.kind, REGISTERED_USER.objectId)))
          throw new HttpError(
            IPONZ_ERRORS.notRegisteredUser,
            'Renewals are paid by users registered with the office; this user is not registered',
          );
        const billingReference = billingReferenceOf(request.body);
        const subscriptionId = caller!.subscriptionId;
        const requestId = request.id;
        // Only an id the caller sent is an idempotency key; a renewal sent without one is not kept under
        // the id the gateway made for it (platform/http/request-id.ts).
        const key = callerRequestId(request);
        // Refused before any work without a paying organisation (and, in production, its authority).
        await context.fees.requireAuthority(caller);
        let echoed: Promise<void> | undefined;
        const answer = await withTransaction(pool, async (tx) => {
          if (key !== undefined) await lockRequestId(tx, subscriptionId, key);
          const earlier = key === undefined ? null : await findRenewal(tx, subscriptionId, key);
          const record = await caseOf(kind, request, tx, true);
          if (earlier) {
            if (earlier.kind !== kind || earlier.caseNumber !== record.caseNumber)
              throw new RuleError(REQUEST_ID_HEADER_NAME, 'was used for the renewal of another case');
            return { body: earlier.answer, etag: caseEtag(record), key: caseKey(kind, record.caseNumber) };
          }
          evaluatePreconditions(request, { etag: caseEtag(record), lastModified: record.updatedAt });
          const on = today();
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
          const now = context.clock.now();
          await recordRenewal(tx, record, {
            renewedDueDate: paid.renewedDueDate,
            status,
            statusDate: on,
            at: now,
          });
          const body = {
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
          };
          if (key !== undefined) {
            await insertRenewal(tx, {
              subscriptionId,
              requestId: key,
              kind,
              caseNumber: record.caseNumber,
              renewedDueDate: paid.renewedDueDate,
              answer: body,
              at: now,
            });
          }
          // Listened for before the commit sends the notice (store/case-cache.ts).
          echoed = cases.echo(caseKey(kind, record.caseNumber));
          return {
            body,
            etag: caseEtag({ ...record, version: record.version + 1 }),
            key: caseKey(kind, record.caseNumber),
          };
        });
        if (echoed) {
          cases.drop(answer.key);
          await echoed;
        }
        return reply.header('ETag', answer.etag).type(JSON_TYPE).send(JSON.stringify(answer.body));
      },
    );
  }
}

function billingReferenceOf(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body !== 'object' || Array.isArray(body))
    throw new RuleError('body', 'must be a JSON object or empty');
  const fields = body as Record<string, unknown>;
  for (const key of Object.keys(fields))
    if (key !== 'billingReference') throw new RuleError(key, 'is not a field of this operation');
  const reference = fields.billingReference;
  if (reference === undefined || reference === null) return undefined;
  if (typeof reference !== 'string' || reference.length > 100)
    throw new RuleError('billingReference', 'must be text of at most 100 characters');
  return reference;
}
