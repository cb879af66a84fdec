import type { Pool } from 'pg';
import { operatorEmails, usersByIds } from '../../identity/store/users.ts';
import { type MailSettings, sendMail } from '../../platform/mail.ts';

/**
 * Who the portal's rows are about, asked of identity (users are identity's; the portal's tables hold
 * user ids), and the mail to the operators that many requests send.
 */

/** The rows with their users' email and name (every row's user exists: the portal's tables reference `users`). */
export async function withUsers<T extends { userId: string }>(
  pool: Pool,
  rows: T[],
): Promise<(T & { userEmail: string; userName: string })[]> {
  const users = await usersByIds(
    pool,
    rows.map((row) => row.userId),
  );
  return rows.flatMap((row) => {
    const user = users.get(row.userId);
    return user ? [{ ...row, userEmail: user.email, userName: user.name }] : [];
  });
}

/** Email addresses of users by id. */
export async function userEmails(pool: Pool, ids: readonly string[]): Promise<Map<string, string>> {
  const users = await usersByIds(pool, ids);
  return new Map([...users].map(([id, user]) => [id, user.email]));
}

/** Mails every operator (a request waits for their decision). */
export async function mailOperators(
  mail: MailSettings,
  message: { subject: string; text: string },
): Promise<void> {
  for (const to of await operatorEmails(mail.pool)) await sendMail(mail, { to, ...message });
}
