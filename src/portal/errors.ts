import { PLATFORM_ERRORS, PROBLEM_ERRORS } from '../platform/http/error-codes.ts';
import { badRequest, HttpError } from '../platform/http/errors.ts';

/**
 * The portal's refusals. It has no error codes of its own: a refusal is one of the platform's shared
 * codes (platform/http/error-codes.ts), rendered by the portal's error handler as a page that says what
 * is wrong, with the status of its code.
 */

/** Thrown by handlers that need a signed-in user; the portal's error handler redirects to sign in. */
export class SignInRequired extends Error {
  constructor(readonly next: string) {
    super('sign in required');
  }
}

/** 400: the input is refused, as the message says. */
export const invalid = (message: string): HttpError =>
  new HttpError(PLATFORM_ERRORS.invalidParameter, message);

/** 400 naming the field and the rule it breaks: `field: rule`. */
export const invalidField = (field: string, rule: string): HttpError => badRequest(field, rule);

/** 404: there is no such thing (or, where that is the rule, none the user may see). */
export const notFound = (message: string): HttpError => new HttpError(PLATFORM_ERRORS.notFound, message);

/** 409: the thing is in another state already (decided, answered, taken). */
export const conflict = (message: string): HttpError => new HttpError(PROBLEM_ERRORS.conflict, message);

/** 403: operators only. */
export const operatorsOnly = (): HttpError =>
  new HttpError(PROBLEM_ERRORS.operatorsOnly, 'Only operators may open this page.');
