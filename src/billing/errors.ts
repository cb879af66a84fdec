/**
 * Billing's error codes: refusals of a fee-bearing operation, answered in the charging service's dialect
 * before the operation runs and with nothing written. A service that charges fees lists them with its
 * own codes (its definition's `errorCodes`). Both are refusals before the register starts: a request id
 * they refuse keeps nothing (`beforeStart`).
 */
import { type ErrorCode, errorCode } from '../platform/http/error-codes.ts';

const beforeStart = (code: ErrorCode): ErrorCode => ({ ...code, beforeStart: true });

export const BILLING_ERRORS = {
  billingOrganisationRequired: beforeStart(
    errorCode(
      'billing-organisation-required',
      403,
      'A fee-bearing operation is charged to an organisation account: the acting user belongs to no organisation in this environment',
    ),
  ),
  directDebitAuthorityRequired: beforeStart(
    errorCode(
      'direct-debit-authority-required',
      403,
      'A fee-bearing operation in production needs an approved direct debit authority for the organisation that pays',
    ),
  ),
} as const satisfies Record<string, ErrorCode>;

/**
 * The refusal of a register that accepts direct credit (the IP office): the paying organisation's
 * prepaid balance cannot cover the fee. The operation rolls back (nothing written); after a top-up the
 * same request id runs again (`beforeStart`: kept under none).
 */
export const DIRECT_CREDIT_ERRORS = {
  directCreditInsufficient: beforeStart(
    errorCode(
      'direct-credit-insufficient',
      402,
      "The paying organisation's direct credit balance is less than the fee and its GST; an operator tops it up",
    ),
  ),
} as const satisfies Record<string, ErrorCode>;
