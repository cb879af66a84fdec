/**
 * Renewals (REST JSON): the check (GET …/{number}/renewal) and the payment (POST …/{number}/renew), on
 * the operations of operations/renewals.ts; the payment's If-Match and If-Unmodified-Since are checked by
 * the operation on the locked case.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import {
  conditionalRead,
  declareOperation,
  operationContext,
  preconditionsOf,
  typed,
} from '../../../platform/http/operation.ts';
import { callerRequestId } from '../../../platform/http/request-id.ts';
import type { CaseKind } from '../domain/renewals.ts';
import { REQUEST_ID_HEADER_NAME } from '../domain/request-id.ts';
import { CASE_NAMES, checkCaseRenewal, payCaseRenewal } from '../operations/renewals.ts';
import {
  jsonResponses,
  RENEWAL_EXAMPLE,
  RenewalCheck,
  RenewalPaid,
  RenewBody,
} from '../schemas/operations.ts';
import type { CaseCache } from '../store/case-cache.ts';
import { CASE_PATHS, PARAM_NAME } from './bibliographic.ts';
import { JSON_ONLY } from './support.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const KINDS: readonly CaseKind[] = ['patent', 'trademark', 'design'];

export async function renewalRoutes(
  plugin: FastifyInstance,
  context: ServiceContext,
  cases: CaseCache,
): Promise<void> {
  const app = typed(plugin);

  for (const kind of KINDS) {
    const param = PARAM_NAME[kind];
    const base = CASE_PATHS[kind][0]!;
    // The number's rule is the domain's (`parseCaseNumber`): its 400 names `patent-number` …
    const params = Type.Record(
      Type.Literal(param),
      Type.String({ description: `The ${CASE_NAMES[kind]} number`, examples: [RENEWAL_EXAMPLE[kind]] }),
    );

    app.get(
      `${base}/:${param}/renewal`,
      declareOperation(
        {
          schema: {
            summary: `Whether a renewal or maintenance fee is due for a ${CASE_NAMES[kind]}, when, and how much`,
            params,
            response: jsonResponses({ 200: RenewalCheck }, [304, 400, 404, 406]),
          },
        },
        { produces: JSON_ONLY, conditional: 'read' },
      ),
      async (request, reply) => {
        const caseNumber = request.params[param] ?? '';
        const check = await checkCaseRenewal(context, { kind, caseNumber }, { cases });
        if (conditionalRead(request, reply, check.validators)) return reply;
        return reply.type(JSON_TYPE).send(JSON.stringify(check.answer()));
      },
    );

    app.post(
      `${base}/:${param}/renew`,
      declareOperation(
        {
          config: { threeLegged: true },
          schema: {
            summary: `Pay the ${CASE_NAMES[kind]}'s renewal or maintenance fee (registered users; fee)`,
            // If-Match holds against the case (its ETag from the bibliographic read or the renewal check).
            'x-etag-of': `${base}/{${param}}`,
            description: `Idempotent per request id (the ${REQUEST_ID_HEADER_NAME} header): a repeat answers the first payment again and charges nothing. If-Match: an ETag of the case as it stands (from the bibliographic read or the renewal check); If-Unmodified-Since: its Last-Modified.`,
            params,
            body: RenewBody,
            response: jsonResponses({ 200: RenewalPaid }, [400, 403, 404, 406, 412]),
          },
        },
        { produces: JSON_ONLY, conditional: {} },
      ),
      async (request, reply) => {
        const paid = await payCaseRenewal(
          context,
          {
            kind,
            caseNumber: request.params[param] ?? '',
            caller: request.caller,
            requestId: request.id,
            // Only an id the caller sent is an idempotency key (platform/http/request-id.ts).
            idempotencyKey: callerRequestId(request),
            billingReference: request.body?.billingReference,
            ifMatch: request.headers['if-match'],
            preconditions: preconditionsOf(request),
          },
          { cases },
        );
        // A repeat's preconditions held when the first payment ran.
        if (paid.repeat) operationContext(request).preconditionsChecked = true;
        if (paid.etag) reply.header('ETag', paid.etag);
        return reply.type(JSON_TYPE).send(JSON.stringify(paid.answer));
      },
    );
  }
}
