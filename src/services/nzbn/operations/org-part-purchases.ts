/**
 * Purchases of organisation parts: creating a part once per request id, the fee of a part beyond the
 * entity's free ones charged as a purchase, and the purchase read back (OP024) by its purchaser.
 *
 * A creation runs once under the caller's request id (`api-business-govt-nz-Request-Id`, per
 * subscription; the platform's `runOnce`): a retry answers the first answer, so a part is made, and its
 * fee charged, exactly once. When the entity already has its free parts (domain/fees.ts) and charging is
 * on, the creation is a purchase (domain/organisation-part-purchase.ts): `purchaserDetails` is required;
 * the part is made and its fee charged through the ledger in the entity's locked transaction, beside the
 * APPROVED purchase. When the ledger refuses the payment (in production, a paying organisation without an
 * approved direct debit authority) the part is undone (a savepoint) and the purchase kept DECLINED, and
 * the caller gets 402 with its address; that request id is not kept, so the same id runs again once the
 * authority is approved, as every refusal of payment does.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { BILLING_ERRORS, DIRECT_CREDIT_ERRORS } from '../../../billing/errors.ts';
import type { Caller } from '../../../gateway/service-context.ts';
import { RuleError } from '../../../platform/errors.ts';
import { badRequest, HttpError } from '../../../platform/http/errors.ts';
import { keepNoFailure, requestHash, runOnce, successOnlyStore } from '../../../platform/http/idempotency.ts';
import type { ResourceValidators } from '../../../platform/http/operation.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import { FREE_ORGANISATION_PARTS, organisationPartFee } from '../domain/fees.ts';
import type { OrganisationPart } from '../domain/organisation-part.ts';
import {
  PAYMENT_CHARGED,
  type PurchaseRecord,
  type Purchaser,
  publishedPurchase,
  purchaseIdOf,
} from '../domain/organisation-part-purchase.ts';
import { NZBN_ERRORS } from '../errors.ts';
import {
  beginPurchasedPart,
  findPurchase,
  insertPurchase,
  type PartArrival,
  partRequestTable,
  undoPurchasedPart,
} from '../store/org-part-purchases.ts';
import { type LockedEntity, lockEntityRow, partCount } from '../store/org-parts.ts';
import { readAnswer } from './entities.ts';
import { baseUrl, entityNotFound, type NzbnContext } from './support.ts';

const OPERATION = 'createOrganisationPart';
const REQUEST_ID_FIELD = 'api-business-govt-nz-Request-Id';

/** A part the creation made, as answered (and kept under the request id). */
export interface MadePart {
  body: string;
  etag: string;
  /** ISO time: the answer's Last-Modified. */
  lastModified: string;
  opn: string;
  /** The purchase the part was bought with, when it was. */
  purchaseId: string | null;
}

type Outcome = ({ kind: 'made' } & MadePart) | { kind: 'declined'; purchaseId: string; refusal: RuleError };

export interface PartCreation {
  caller: Caller | undefined;
  /** The request's id (the gateway's, or the caller's): on the fee record and the purchase. */
  requestId: string;
  /** The request id the caller sent, when it sent one: a retry with it answers the first answer. */
  idempotencyKey: string | undefined;
  nzbn: string;
  /** The request as sent, to tell a retry from another request under the same id. */
  request: unknown;
  purchaser: Purchaser | undefined;
}

/** The address of a purchase. */
export const purchaseUrl = (context: NzbnContext, purchaseId: string): string =>
  `${baseUrl(context)}/entities/organisation-parts-purchase/${purchaseId}`;

/**
 * Creates a part with `make` (in the entity's locked transaction) once per request id, as a purchase when
 * a fee applies; 402 when the purchase is declined.
 */
export async function createPartOnce(
  context: NzbnContext,
  input: PartCreation,
  make: (
    client: pg.PoolClient,
    parent: LockedEntity,
    now: Date,
  ) => Promise<{ part: OrganisationPart; etag: string }>,
): Promise<MadePart> {
  const { caller, nzbn } = input;
  if (!caller) throw new HttpError(NZBN_ERRORS.unauthorized, 'Unauthorized: no subscription');
  const now = context.clock.now();
  const path = `/entities/${nzbn}/organisation-parts`;
  const arrival: PartArrival = {
    key: input.idempotencyKey,
    requestId: input.idempotencyKey ?? input.requestId,
    operation: OPERATION,
    requestHash: requestHash({ operation: OPERATION, method: 'POST', path, body: input.request }),
    subscriptionId: caller.subscriptionId,
    at: now,
  };
  const pool = context.database.pool;
  const store = successOnlyStore(partRequestTable<Outcome>(pool, (outcome) => outcome.kind === 'made'));
  const done = await runOnce(store, arrival, {
    failure: keepNoFailure,
    reuse: () =>
      new RuleError(REQUEST_ID_FIELD, 'was used before for another request; send a new request id'),
    async work(tx): Promise<Outcome> {
      const parent = await lockEntityRow(tx, nzbn);
      if (!parent) throw entityNotFound(nzbn);
      const fee = context.fees.enabled ? organisationPartFee(await partCount(tx, nzbn)) : null;
      if (!fee) return { kind: 'made', ...answer(await make(tx, parent, now), now, null) };
      if (!input.purchaser) {
        throw badRequest(
          'purchaserDetails',
          `is required: the entity has ${FREE_ORGANISATION_PARTS} or more organisation parts, so this one is purchased`,
        );
      }
      // Who pays (403 when nobody can), before anything is made.
      const payer = await context.fees.payer(caller);
      const priced = context.fees.quote(fee);
      const purchase: PurchaseRecord = {
        purchaseId: randomUUID(),
        nzbn,
        subscriptionId: caller.subscriptionId,
        organisationId: payer.organisationId,
        userId: caller.userId ?? null,
        requestId: input.requestId,
        status: 'APPROVED',
        purchaser: input.purchaser,
        amountCents: priced.amountCents + priced.gstCents,
        responseCode: PAYMENT_CHARGED,
        feeRecordId: null,
        issuedOpn: null,
        orderedAt: now,
        updatedAt: now,
      };
      await beginPurchasedPart(tx);
      const made = await make(tx, parent, now);
      try {
        const charged = await context.fees.charge(tx, {
          operation: OPERATION,
          feeCode: fee,
          caller,
          requestId: input.requestId,
          object: { kind: 'organisation-part', id: made.part.opn },
        });
        await insertPurchase(tx, { ...purchase, feeRecordId: charged?.id ?? null, issuedOpn: made.part.opn });
        return { kind: 'made', ...answer(made, now, purchase.purchaseId) };
      } catch (error) {
        if (!paymentRefused(error)) throw error;
        await undoPurchasedPart(tx);
        await insertPurchase(tx, { ...purchase, status: 'DECLINED', responseCode: error.code.code });
        return { kind: 'declined', purchaseId: purchase.purchaseId, refusal: error };
      }
    },
  });
  const outcome = 'outcome' in done ? done.outcome : done.repeat.outcome;
  if (!outcome) throw new Error(`the request ${arrival.requestId} kept no answer`);
  if (outcome.kind === 'made') return outcome;
  const url = purchaseUrl(context, outcome.purchaseId);
  throw new HttpError(
    NZBN_ERRORS.purchaseDeclined,
    `Payment Required: the purchase ${outcome.purchaseId} was declined, and nothing was made or charged. ${outcome.refusal.message}`,
    [{ field: 'purchaserDetails', message: `the payment was declined: ${outcome.refusal.rule}` }],
    { Link: `<${url}>; rel="related"` },
  );
}

/** The ledger refused the payment itself (not who pays): the purchase is declined. */
function paymentRefused(error: unknown): error is RuleError {
  if (!(error instanceof RuleError)) return false;
  const code = error.code.code;
  return (
    code === BILLING_ERRORS.directDebitAuthorityRequired.code ||
    code === DIRECT_CREDIT_ERRORS.directCreditInsufficient.code
  );
}

const answer = (made: { part: OrganisationPart; etag: string }, now: Date, purchaseId: string | null) => ({
  body: JSON.stringify(made.part),
  etag: `"${made.etag}"`,
  lastModified: now.toISOString(),
  opn: made.part.opn,
  purchaseId,
});

/** A purchase is its purchaser's: the subscription that made it, or the paying organisation's callers. */
async function mayRead(context: NzbnContext, caller: Caller | undefined, purchase: PurchaseRecord) {
  if (!caller) return false;
  if (caller.subscriptionId === purchase.subscriptionId) return true;
  if (caller.organisationId) return caller.organisationId === purchase.organisationId;
  if (!caller.userId) return false;
  return (await context.identity.directory.roleIn(purchase.organisationId, caller.userId)) !== undefined;
}

/**
 * The published OrganisationPartPurchase of `transactionId`, for its purchaser; anyone else is answered
 * as for a purchase that does not exist (404), so a guessed id tells nothing.
 */
export async function organisationPartPurchase(
  context: NzbnContext,
  input: { caller: Caller | undefined; transactionId: string },
): Promise<{ body: string; validators: ResourceValidators }> {
  const id = purchaseIdOf(input.transactionId);
  const purchase = await findPurchase(context.database.pool, id);
  if (!purchase || !(await mayRead(context, input.caller, purchase))) {
    throw new HttpError(
      NZBN_ERRORS.notFound,
      `Object Not Found: no organisation part purchase has the id ${input.transactionId}`,
    );
  }
  const organisation = await context.identity.organisation(purchase.organisationId);
  const published = publishedPurchase(purchase, organisation?.identifier ?? purchase.organisationId, (at) =>
    formatNzDateTime(at.getTime()),
  );
  return readAnswer(published, purchase.updatedAt);
}

/** The validators of a made part's answer. */
export const madeValidators = (made: MadePart): ResourceValidators => ({
  etag: made.etag,
  lastModified: new Date(made.lastModified),
});
