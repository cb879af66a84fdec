/** The SQL of `users` (gateway database). The rules are in domain/users.ts, sign-up in operations/users.ts. */
import type { Pool } from 'pg';
import type { User } from '../domain/users.ts';

const COLUMNS = 'id, email, name, is_operator AS "isOperator", created_at AS "createdAt"';

/** Adds a user with its password hash (or none) in one statement; undefined when the email is taken. */
export async function insertUser(
  pool: Pool,
  user: { email: string; name: string; isOperator: boolean; passwordHash: string | null },
): Promise<User | undefined> {
  const result = await pool.query<User>(
    `INSERT INTO users (email, name, is_operator, password_hash) VALUES ($1, $2, $3, $4)
     ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
    [user.email, user.name, user.isOperator, user.passwordHash],
  );
  return result.rows[0];
}

export async function findUserByEmail(pool: Pool, email: string): Promise<User | undefined> {
  return (
    await pool.query<User>(`SELECT ${COLUMNS} FROM users WHERE lower(email) = lower($1)`, [email.trim()])
  ).rows[0];
}

/** A user id as PostgreSQL writes a UUID (lower case): any other text names no user. */
const USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The user by id (the OAuth provider's account); a text that is no user id finds none. */
export async function findUserById(pool: Pool, id: string): Promise<User | undefined> {
  if (!USER_ID.test(id)) return undefined;
  return (await pool.query<User>(`SELECT ${COLUMNS} FROM users WHERE id = $1`, [id])).rows[0];
}

export async function listUsers(pool: Pool): Promise<User[]> {
  return (await pool.query<User>(`SELECT ${COLUMNS} FROM users ORDER BY created_at`)).rows;
}

/** Users by id (those that exist), for lists that show who asked: email and name. */
export async function usersByIds(
  pool: Pool,
  ids: readonly string[],
): Promise<Map<string, Pick<User, 'email' | 'name' | 'isOperator'>>> {
  if (ids.length === 0) return new Map();
  const result = await pool.query<{ id: string; email: string; name: string; isOperator: boolean }>(
    'SELECT id, email, name, is_operator AS "isOperator" FROM users WHERE id = ANY($1::uuid[])',
    [[...new Set(ids)]],
  );
  return new Map(result.rows.map(({ id, ...user }) => [id, user]));
}

/** The operators' email addresses, in order (who is told of a request waiting for an operator). */
export async function operatorEmails(pool: Pool): Promise<string[]> {
  return (
    await pool.query<{ email: string }>('SELECT email FROM users WHERE is_operator ORDER BY email')
  ).rows.map((row) => row.email);
}

/** The user's stored password hash; null when the user has none (or does not exist). */
export async function passwordHashOf(pool: Pool, userId: string): Promise<string | null> {
  const row = (
    await pool.query<{ hash: string | null }>('SELECT password_hash AS hash FROM users WHERE id = $1', [
      userId,
    ])
  ).rows[0];
  return row?.hash ?? null;
}

export async function updatePasswordHash(pool: Pool, userId: string, passwordHash: string): Promise<void> {
  await pool.query('UPDATE users SET password_hash = $2 WHERE id = $1', [userId, passwordHash]);
}
