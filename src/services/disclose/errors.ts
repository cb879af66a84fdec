/**
 * The offers register's own error codes, beside the platform's (`platform/http/error-codes.ts`) and,
 * where it charges fees, billing's (`billing/errors.ts`): the service lists them in its definition's
 * `errorCodes`, its README and its OpenAPI document (`x-error-codes`).
 */
import { type ErrorCode, errorCode } from '../../platform/http/error-codes.ts';

/** The offers register's own codes (problem+json `type` fragments), beside the platform's. */
export const DISCLOSE_ERRORS = {
  organisationRequired: errorCode(
    'organisation-required',
    400,
    'The `x-organisation` header is absent: every call names the register organisation it is made for',
  ),
  noFundAuthority: errorCode(
    'no-fund-authority',
    403,
    'The organisation named in `x-organisation` has no authority over the fund',
  ),
  periodAlreadyFiled: errorCode(
    'period-already-filed',
    409,
    'A filing for this fund, activity and period exists',
  ),
  signatureRefused: errorCode(
    'signature-refused',
    403,
    'A document URL whose signature does not match, or that has expired',
  ),
} as const satisfies Record<string, ErrorCode>;
