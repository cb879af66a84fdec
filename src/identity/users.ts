import type { Pool } from 'pg';
import { RuleError } from '../platform/errors.ts';
import type { ErrorCode } from '../platform/http/error-codes.ts';
import { IDENTITY_ERRORS } from './errors.ts';
import { hashPassword, passwordProblem } from './passwords.ts';

export interface User {
  id: string;
  email: string;
  name: string;
  isOperator: boolean;
  createdAt: Date;
}

const COLUMNS = 'id, email, name, is_operator AS "isOperator", created_at AS "createdAt"';

/** A user rule broken: its code (`IDENTITY_ERRORS`) tells which. */
export class UserError extends RuleError {
  constructor(code: ErrorCode, field: string, rule: string, message: string) {
    super(field, rule, { code, message });
  }
}

export function validEmail(email: string): boolean {
  return /^[^\s@]+@[^\s@]+$/.test(email) && email.length <= 254;
}

/**
 * Adds a user; with `password`, its hash is stored in the same statement, so a user never exists
 * half-made (without the password it was signed up with).
 */
export async function addUser(
  pool: Pool,
  input: { email: string; name?: string; isOperator?: boolean; password?: string },
): Promise<User> {
  const email = input.email.trim().toLowerCase();
  if (!validEmail(email))
    throw new UserError(
      IDENTITY_ERRORS.invalidEmail,
      'email',
      'is not an email address',
      `"${input.email}" is not an email address`,
    );
  let passwordHash: string | null = null;
  if (input.password !== undefined) {
    const problem = passwordProblem(input.password);
    if (problem)
      throw new UserError(IDENTITY_ERRORS.weakPassword, 'password', problem, `the password ${problem}`);
    passwordHash = await hashPassword(input.password);
  }
  const result = await pool.query<User>(
    `INSERT INTO users (email, name, is_operator, password_hash) VALUES ($1, $2, $3, $4)
     ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
    [email, input.name?.trim() || email.split('@')[0], input.isOperator ?? false, passwordHash],
  );
  const user = result.rows[0];
  if (!user)
    throw new UserError(
      IDENTITY_ERRORS.userExists,
      'email',
      'is taken by another user',
      `a user with the email ${email} already exists`,
    );
  return user;
}

export async function findUserByEmail(pool: Pool, email: string): Promise<User | undefined> {
  return (
    await pool.query<User>(`SELECT ${COLUMNS} FROM users WHERE lower(email) = lower($1)`, [email.trim()])
  ).rows[0];
}

export async function listUsers(pool: Pool): Promise<User[]> {
  return (await pool.query<User>(`SELECT ${COLUMNS} FROM users ORDER BY created_at`)).rows;
}

export async function setPassword(pool: Pool, userId: string, password: string): Promise<void> {
  const problem = passwordProblem(password);
  if (problem)
    throw new UserError(IDENTITY_ERRORS.weakPassword, 'password', problem, `the password ${problem}`);
  await pool.query('UPDATE users SET password_hash = $2 WHERE id = $1', [
    userId,
    await hashPassword(password),
  ]);
}
