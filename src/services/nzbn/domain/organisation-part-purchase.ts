/**
 * The purchase of an organisation part (the published OrganisationPartPurchase): the transaction of a
 * part created beyond an entity's free ones. Who buys it (`purchaserDetails` of the published
 * OrganisationPartRequest: name, email address, phone number and the address to send the purchaser back
 * to, all four required as published) and what became of it: `purchaseStatus` (PurchaseStatusType),
 * the amount, the payment's references and the part issued.
 *
 * How a purchase moves (ours: the published definition shows the fields, not the flow). The copy has no
 * payment page: the fee is direct-debited from the paying organisation's account through the fee ledger,
 * in the transaction that makes the part, so a purchase is decided when it is made — APPROVED (the fee
 * charged once, the part issued) or DECLINED (the payment refused: in production, a paying organisation
 * without an approved direct debit authority; nothing made or charged). PENDING, the state of a payment
 * page not yet paid, is never answered here.
 */
import { type Static, Type } from '@sinclair/typebox';
import { RuleError } from '../../../platform/errors.ts';
import { Nullable, Nzbn, NzDateTime, Strict } from './schema-parts.ts';
import { pushEndpointProblem } from './watchlist.ts';

export const PURCHASE_STATUSES = ['PENDING', 'APPROVED', 'DECLINED'] as const;
export type PurchaseStatus = (typeof PURCHASE_STATUSES)[number];

/** What the ledger's charge answers: the code of an approved payment (a refusal answers its own). */
export const PAYMENT_CHARGED = 'charged';

const Text = (maxLength: number, description: string) =>
  Type.String({ minLength: 1, maxLength, description });

/**
 * The published OrganisationPartPurchase as sent in `purchaserDetails`: the purchaser's four required
 * fields; the rest is the register's to set, so a value sent for it is not read.
 */
export const PurchaserDetailsInput = Type.Object(
  {
    purchaserName: Text(200, 'Who buys the part'),
    purchaserEmailAddress: Type.String({ pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', maxLength: 254 }),
    purchaserPhoneNumber: Type.String({ pattern: '^\\+?[0-9 ()-]{5,30}$', maxLength: 30 }),
    purchaseRedirectUrl: Text(
      500,
      "Where the purchaser's browser returns after paying (https; http only for localhost)",
    ),
    purchaseId: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    purchaseAmount: Type.Optional(Nullable(Type.Number())),
    purchaseStatus: Type.Optional(Nullable(Type.String({ maxLength: 20 }))),
    paymentTransactionId: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    paymentOrderUrl: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    paymentOrderTime: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
    paymentNumber: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    paymentResponseCode: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    paymentReceiptNumber: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    issuedOpn: Type.Optional(Nullable(Type.String({ maxLength: 20 }))),
  },
  {
    ...Strict,
    description:
      'Who pays for a part beyond the free ones (required for it): the fee is charged to the paying organisation’s account',
  },
);
export type PurchaserDetailsInput = Static<typeof PurchaserDetailsInput>;

/** The purchaser as the register keeps it. */
export interface Purchaser {
  name: string;
  emailAddress: string;
  phoneNumber: string;
  redirectUrl: string;
}

/** The purchaser of `purchaserDetails`, its redirect address checked (400 naming the field). */
export function purchaserOf(details: PurchaserDetailsInput): Purchaser {
  const problem = pushEndpointProblem(details.purchaseRedirectUrl);
  if (problem) throw new RuleError('purchaserDetails.purchaseRedirectUrl', problem);
  return {
    name: details.purchaserName.trim(),
    emailAddress: details.purchaserEmailAddress.trim(),
    phoneNumber: details.purchaserPhoneNumber.trim(),
    redirectUrl: details.purchaseRedirectUrl,
  };
}

/** The published OrganisationPartPurchase, as answered. */
export const OrganisationPartPurchase = Type.Object(
  {
    purchaseId: Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' }),
    purchaserName: Type.String(),
    purchaserEmailAddress: Type.String(),
    purchaserPhoneNumber: Type.String(),
    purchaseRedirectUrl: Type.String(),
    purchaseAmount: Type.Number({ description: 'The fee and its GST, in New Zealand dollars' }),
    purchaseStatus: Type.Union(PURCHASE_STATUSES.map((status) => Type.Literal(status))),
    paymentTransactionId: Type.String({ description: 'The id of the request that made the purchase' }),
    paymentOrderUrl: Nullable(Type.String({ description: 'Always null: fees are direct-debited' })),
    paymentOrderTime: NzDateTime,
    paymentNumber: Type.String({ description: 'The paying organisation (its account is debited)' }),
    paymentResponseCode: Type.String({
      description: '`charged`, or the code of the refusal (`direct-debit-authority-required`)',
    }),
    paymentReceiptNumber: Nullable(Type.String({ description: "The fee's record in the ledger" })),
    issuedOpn: Nullable(Nzbn),
  },
  Strict,
);
export type OrganisationPartPurchase = Static<typeof OrganisationPartPurchase>;

/** A purchase as the register keeps it. */
export interface PurchaseRecord {
  purchaseId: string;
  nzbn: string;
  subscriptionId: string;
  organisationId: string;
  userId: string | null;
  requestId: string;
  status: PurchaseStatus;
  purchaser: Purchaser;
  amountCents: number;
  responseCode: string;
  feeRecordId: number | null;
  issuedOpn: string | null;
  orderedAt: Date;
  updatedAt: Date;
}

/** A purchase in the published shape; `organisation` is the paying organisation's identifier. */
export function publishedPurchase(
  record: PurchaseRecord,
  organisation: string,
  formatTime: (at: Date) => string,
): OrganisationPartPurchase {
  return {
    purchaseId: record.purchaseId,
    purchaserName: record.purchaser.name,
    purchaserEmailAddress: record.purchaser.emailAddress,
    purchaserPhoneNumber: record.purchaser.phoneNumber,
    purchaseRedirectUrl: record.purchaser.redirectUrl,
    purchaseAmount: record.amountCents / 100,
    purchaseStatus: record.status,
    paymentTransactionId: record.requestId,
    paymentOrderUrl: null,
    paymentOrderTime: formatTime(record.orderedAt),
    paymentNumber: organisation,
    paymentResponseCode: record.responseCode,
    paymentReceiptNumber: record.feeRecordId === null ? null : String(record.feeRecordId),
    issuedOpn: record.issuedOpn,
  };
}

/** A purchase id as the path gives it: a UUID (any case), or 400 naming `transaction_id`. */
export function purchaseIdOf(value: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) {
    throw new RuleError('transaction_id', 'must be a purchase id (a UUID)');
  }
  return value.toLowerCase();
}
