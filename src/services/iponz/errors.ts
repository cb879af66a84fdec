/**
 * The IP office's own error codes, beside the platform's (`platform/http/error-codes.ts`) and,
 * where it charges fees, billing's (`billing/errors.ts`): the service lists them in its definition's
 * `errorCodes`, its README and its OpenAPI document (`x-error-codes`).
 */
import { type ErrorCode, errorCode } from '../../platform/http/error-codes.ts';

/** The IP office's own refusals (problem+json), beside the platform's and billing's. */
export const IPONZ_ERRORS = {
  notRegisteredUser: errorCode(
    'not-registered-user',
    403,
    'A fee-bearing operation of the IP office needs a user registered with the office (a three-legged token of that user)',
  ),
  downloadTimedOut: errorCode(
    'download-timed-out',
    504,
    'The document download (JSON form) ran past its time limit before its answer started; past it once started, the connection is cut',
  ),
} as const satisfies Record<string, ErrorCode>;
