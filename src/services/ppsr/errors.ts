/**
 * The secured interests register's own error codes, beside the platform's (`platform/http/error-codes.ts`) and,
 * where it charges fees, billing's (`billing/errors.ts`): the service lists them in its definition's
 * `errorCodes`, its README and its OpenAPI document (`x-error-codes`).
 */
import { type ErrorCode, errorCode } from '../../platform/http/error-codes.ts';

/** The secured interests register's own codes (problem+json `type` fragments), beside the platform's. */
export const PPSR_ERRORS = {
  requestIdReused: errorCode(
    'request-id-reused',
    409,
    'The request id was used before for a different request (another operation or body): a repeat must be identical',
  ),
  statementNotInForce: errorCode(
    'financing-statement-not-in-force',
    409,
    'The financing statement is discharged or expired: it can no longer be amended, renewed or discharged',
  ),
  pinRequired: errorCode(
    'pin-required',
    403,
    'The financing statement was registered by another organisation: its financing statement PIN is needed',
  ),
  groupInUse: errorCode(
    'secured-party-group-in-use',
    409,
    'The secured party group is named by financing statements: it cannot be deleted while they name it',
  ),
} as const satisfies Record<string, ErrorCode>;
