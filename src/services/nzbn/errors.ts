/**
 * The business number register's own error codes, beside the platform's (`platform/http/error-codes.ts`) and,
 * where it charges fees, billing's (`billing/errors.ts`): the service lists them in its definition's
 * `errorCodes`, its README and its OpenAPI document (`x-error-codes`).
 */
import { type ErrorCode, errorCode } from '../../platform/http/error-codes.ts';

/** The business number register's own codes (its dialect's `errorCode`), beside the platform's. */
export const NZBN_ERRORS = {
  notFound: errorCode(
    'NOT_FOUND',
    404,
    'No entity, organisation part, watchlist or authority has this identifier ("Object Not Found")',
  ),
  unauthorized: errorCode('UNAUTHORIZED', 401, 'The operation needs a subscription and there is none'),
  forbidden: errorCode('FORBIDDEN', 403, 'The caller holds no authority over this entity'),
  signatureRefused: errorCode(
    'SIGNATURE_REFUSED',
    403,
    'A document URL whose signature does not match, or that has expired: ask the API for a new one',
  ),
  purchaseDeclined: errorCode(
    'purchase-declined',
    402,
    'The purchase of an organisation part was declined (in production: the paying organisation holds no approved direct debit authority): nothing was made or charged; the purchase is kept, DECLINED',
  ),
} as const satisfies Record<string, ErrorCode>;
