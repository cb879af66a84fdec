/** The rules of a user's account: what an email address is, how one is kept, the name by default. */
import { IDENTITY_ERRORS, UserError } from '../errors.ts';
import { passwordProblem } from './passwords.ts';

export interface User {
  id: string;
  email: string;
  name: string;
  isOperator: boolean;
  createdAt: Date;
}

export function validEmail(email: string): boolean {
  return /^[^\s@]+@[^\s@]+$/.test(email) && email.length <= 254;
}

/** The email as it is kept (trimmed, lower case); a `UserError` when it is no email address. */
export function checkedEmail(input: string): string {
  const email = input.trim().toLowerCase();
  if (!validEmail(email))
    throw new UserError(
      IDENTITY_ERRORS.invalidEmail,
      'email',
      'is not an email address',
      `"${input}" is not an email address`,
    );
  return email;
}

/** The name a user is given: the one asked for, else the email's local part. */
export const userName = (email: string, name: string | undefined): string =>
  name?.trim() || email.split('@')[0]!;

/** A `UserError` when the password breaks the password rules. */
export function checkPassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem)
    throw new UserError(IDENTITY_ERRORS.weakPassword, 'password', problem, `the password ${problem}`);
}

/** The refusal of an email some other user has. */
export const emailTaken = (email: string): UserError =>
  new UserError(
    IDENTITY_ERRORS.userExists,
    'email',
    'is taken by another user',
    `a user with the email ${email} already exists`,
  );
