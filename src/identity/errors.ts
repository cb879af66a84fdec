/**
 * Identity's error codes: the rules users, organisations and authorities keep. Thrown as `RuleError`s
 * (`UserError`, `OrganisationError`, `AuthorityError` below), so a caller tells one refusal from another
 * by its code, and the platform's error handler renders any of them in the dialect of the API it reached.
 * An OAuth client's registration refused is a `ClientError`, naming the field.
 */
import { RuleError } from '../platform/errors.ts';
import { type ErrorCode, errorCode } from '../platform/http/error-codes.ts';

export const IDENTITY_ERRORS = {
  invalidEmail: errorCode('invalid-email', 400, 'The email address is not one'),
  weakPassword: errorCode('weak-password', 400, 'The password breaks the password rules'),
  userExists: errorCode('user-exists', 409, 'A user with this email address exists already'),
  invalidOrganisationIdentifier: errorCode(
    'invalid-organisation-identifier',
    400,
    'An organisation identifier is 1 to 64 letters, digits, dots, dashes or underscores',
  ),
  organisationExists: errorCode(
    'organisation-exists',
    409,
    'An organisation with this identifier exists already in the environment',
  ),
  organisationEnvironment: errorCode(
    'organisation-environment',
    400,
    'The organisation belongs to the other environment than the object of the authority',
  ),
} as const satisfies Record<string, ErrorCode>;

/** A user rule broken: its code (`IDENTITY_ERRORS`) tells which. */
export class UserError extends RuleError {
  constructor(code: ErrorCode, field: string, rule: string, message: string) {
    super(field, rule, { code, message });
  }
}

/** An organisation rule broken: its code (`IDENTITY_ERRORS`) tells which. */
export class OrganisationError extends RuleError {
  constructor(code: ErrorCode, field: string, rule: string, message: string) {
    super(field, rule, { code, message });
  }
}

/** An authority rule broken: its code (`IDENTITY_ERRORS`) tells which. */
export class AuthorityError extends RuleError {
  constructor(code: ErrorCode, field: string, rule: string, message: string) {
    super(field, rule, { code, message });
  }
}

/** An OAuth client's registration refused: the field and what is wrong with it. */
export class ClientError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}
