import type { Pool } from 'pg';
import { passwordProblem, verifyPassword } from '../../identity/domain/passwords.ts';
import type { User } from '../../identity/domain/users.ts';
import { validEmail } from '../../identity/domain/users.ts';
import { IDENTITY_ERRORS, UserError } from '../../identity/errors.ts';
import { addUser, setPassword, signIn } from '../../identity/operations/users.ts';
import { passwordHashOf } from '../../identity/store/users.ts';
import type { PortalSessions, PortalUser } from '../session.ts';

/**
 * The portal's accounts are identity's users (the same account as the authorization server's sign-in
 * page): made, checked and changed through identity's operations.
 */

/** The user with this email and password; undefined for any other pair (an address that is none too). */
export async function checkSignIn(pool: Pool, email: string, password: string): Promise<User | undefined> {
  return validEmail(email) ? signIn(pool, email, password) : undefined;
}

/** A new account with its password (one statement, so none is left without it); undefined when the email is taken. */
export async function createAccount(
  pool: Pool,
  input: { email: string; name: string; password: string },
): Promise<User | undefined> {
  try {
    return await addUser(pool, input);
  } catch (error) {
    if (error instanceof UserError && error.code === IDENTITY_ERRORS.userExists) return undefined;
    throw error;
  }
}

export async function hasPassword(pool: Pool, userId: string): Promise<boolean> {
  return (await passwordHashOf(pool, userId)) !== null;
}

/**
 * Changes (or first sets) the user's password, the current one checked when there is one; the user's
 * other sessions end. Answers the refusal, with its status, when there is one.
 */
export async function changePassword(
  pool: Pool,
  sessions: PortalSessions,
  user: PortalUser,
  input: { current: string; password: string; keepSession: string | undefined },
): Promise<{ status: number; message: string } | undefined> {
  const hash = await passwordHashOf(pool, user.id);
  if (hash !== null && !(await verifyPassword(input.current, hash))) {
    return { status: 401, message: 'The current password is wrong.' };
  }
  const problem = passwordProblem(input.password);
  if (problem) return { status: 400, message: `New password: ${problem}.` };
  await setPassword(pool, user.id, input.password);
  await sessions.endOthers(user.id, input.keepSession);
  return undefined;
}
