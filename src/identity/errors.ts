/**
 * Identity's error codes: the rules users, organisations and authorities keep. Thrown as `RuleError`s
 * (users.ts `UserError`, organisations.ts `OrganisationError`, authorities.ts `AuthorityError`), so a
 * caller tells one refusal from another by its code, and the platform's error handler renders any of
 * them in the dialect of the API it reached.
 */
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
