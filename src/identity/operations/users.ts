/** Users' operations: sign-up, a new password, a password sign-in (the OAuth sign-in page's). */
import type { Pool } from 'pg';
import { hashPassword, verifyPassword } from '../domain/passwords.ts';
import { checkedEmail, checkPassword, emailTaken, type User, userName } from '../domain/users.ts';
import { findUserByEmail, insertUser, passwordHashOf, updatePasswordHash } from '../store/users.ts';

/**
 * Adds a user; with `password`, its hash is stored in the same statement, so a user never exists
 * half-made (without the password it was signed up with).
 */
export async function addUser(
  pool: Pool,
  input: { email: string; name?: string; isOperator?: boolean; password?: string },
): Promise<User> {
  const email = checkedEmail(input.email);
  let passwordHash: string | null = null;
  if (input.password !== undefined) {
    checkPassword(input.password);
    passwordHash = await hashPassword(input.password);
  }
  const user = await insertUser(pool, {
    email,
    name: userName(email, input.name),
    isOperator: input.isOperator ?? false,
    passwordHash,
  });
  if (!user) throw emailTaken(email);
  return user;
}

export async function setPassword(pool: Pool, userId: string, password: string): Promise<void> {
  checkPassword(password);
  await updatePasswordHash(pool, userId, await hashPassword(password));
}

/**
 * The user whose email and password these are; undefined otherwise (no such user, no password set, or
 * another password). `verify` is the password check (a test counts its calls).
 */
export async function signIn(
  pool: Pool,
  email: string,
  password: string,
  verify: typeof verifyPassword = verifyPassword,
): Promise<User | undefined> {
  const user = email ? await findUserByEmail(pool, email) : undefined;
  const passwordHash = user ? await passwordHashOf(pool, user.id) : undefined;
  // The password is checked whether or not the account exists (a missing hash costs a hash's time), so
  // the answer's timing does not tell which emails have accounts.
  const matches = await verify(password, passwordHash);
  return user && matches ? user : undefined;
}
