import type { Pool } from 'pg';
import type { Subscription } from '../gateway/domain/subscriptions.ts';
import { listSubscriptions } from '../gateway/operations/subscriptions.ts';
import { usersByIds } from '../identity/store/users.ts';

/**
 * The portal's own queries. Changes to subscriptions and users go through gateway/ and identity/, and
 * who a row's user is (email, name) is identity's to say: `withUsers` asks it for the rows' users.
 */

/**
 * The rows with their users' email and name, as identity has them (every row's user exists: the
 * portal's tables reference `users`).
 */
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

/** The rows with their users' email, as identity has it. */
async function withUserEmails<T extends { userId: string }>(
  pool: Pool,
  rows: T[],
): Promise<(T & { userEmail: string })[]> {
  return (await withUsers(pool, rows)).map(({ userName: _name, ...row }) => row as T & { userEmail: string });
}

export interface MySubscription extends Subscription {
  keysShown: boolean;
}

export async function subscriptionsOf(
  pool: Pool,
  user: { id: string; email: string },
): Promise<MySubscription[]> {
  const subscriptions = (await listSubscriptions(pool, { userEmail: user.email })).filter(
    (subscription) => subscription.userId === user.id,
  );
  if (subscriptions.length === 0) return [];
  const shown = await pool.query<{ id: string }>(
    'SELECT subscription_id AS id FROM portal_keys_shown WHERE subscription_id = ANY($1::uuid[])',
    [subscriptions.map((subscription) => subscription.id)],
  );
  const shownIds = new Set(shown.rows.map((row) => row.id));
  return subscriptions.map((subscription) => ({ ...subscription, keysShown: shownIds.has(subscription.id) }));
}

export async function subscriptionOf(
  pool: Pool,
  user: { id: string; email: string },
  subscriptionId: string,
): Promise<MySubscription | undefined> {
  return (await subscriptionsOf(pool, user)).find((subscription) => subscription.id === subscriptionId);
}

export async function markKeysShown(pool: Pool, subscriptionId: string): Promise<void> {
  await pool.query(
    'INSERT INTO portal_keys_shown (subscription_id) VALUES ($1) ON CONFLICT (subscription_id) DO UPDATE SET shown_at = now()',
    [subscriptionId],
  );
}

export interface SubscriptionRequest {
  id: string;
  productId: string;
  productName: string;
  name: string;
  userId: string;
  userEmail: string;
  userName: string;
  createdAt: Date;
}

type RequestRow = Omit<SubscriptionRequest, 'userEmail' | 'userName'>;

const REQUEST_COLUMNS = `s.id, s.product_id AS "productId", p.name AS "productName", s.name, s.user_id AS "userId",
  s.created_at AS "createdAt"`;
const REQUEST_FROM = 'subscriptions s JOIN products p ON p.id = s.product_id';

/** Subscriptions waiting for an operator, oldest first. */
export async function pendingRequests(pool: Pool): Promise<SubscriptionRequest[]> {
  const rows = await pool.query<RequestRow>(
    `SELECT ${REQUEST_COLUMNS} FROM ${REQUEST_FROM} WHERE s.state = 'requested' ORDER BY s.created_at LIMIT 500`,
  );
  return withUsers(pool, rows.rows);
}

export async function pendingRequest(pool: Pool, id: string): Promise<SubscriptionRequest | undefined> {
  const rows = await pool.query<RequestRow>(
    `SELECT ${REQUEST_COLUMNS} FROM ${REQUEST_FROM} WHERE s.state = 'requested' AND s.id = $1`,
    [id],
  );
  return (await withUsers(pool, rows.rows))[0];
}

export interface DailyUsage {
  day: string;
  calls: number;
  clientErrors: number;
  serverErrors: number;
  throttled: number;
}

/** Calls per UTC day for the last `days` days (today included), with empty days filled in. */
export async function dailyUsage(
  pool: Pool,
  subscriptionId: string,
  days: number,
  now: Date,
): Promise<DailyUsage[]> {
  const result = await pool.query<DailyUsage>(
    `SELECT to_char(d.day, 'YYYY-MM-DD') AS day,
            COALESCE(SUM(m.calls), 0)::int AS calls,
            COALESCE(SUM(m.client_errors), 0)::int AS "clientErrors",
            COALESCE(SUM(m.server_errors), 0)::int AS "serverErrors",
            COALESCE(SUM(m.throttled), 0)::int AS throttled
       FROM generate_series(
              date_trunc('day', $2::timestamptz AT TIME ZONE 'UTC') - make_interval(days => $3 - 1),
              date_trunc('day', $2::timestamptz AT TIME ZONE 'UTC'),
              interval '1 day') AS d(day)
       LEFT JOIN usage_minutes m
         ON m.subscription_id = $1 AND m.minute >= d.day AT TIME ZONE 'UTC'
        AND m.minute < (d.day + interval '1 day') AT TIME ZONE 'UTC'
      GROUP BY d.day ORDER BY d.day`,
    [subscriptionId, now, days],
  );
  return result.rows;
}

/** Email addresses of users by id (billing: who requested an authority). */
export async function userEmails(pool: Pool, ids: readonly string[]): Promise<Map<string, string>> {
  const users = await usersByIds(pool, ids);
  return new Map([...users].map(([id, user]) => [id, user.email]));
}

/** Production access asked of the operators (sandbox.ts): an organisation, or authority over a business. */
export interface AccessRequest {
  id: string;
  userId: string;
  userEmail: string;
  kind: 'organisation' | 'authority';
  subject: string;
  name: string;
  state: 'requested' | 'approved' | 'declined';
  createdAt: Date;
}

type AccessRow = Omit<AccessRequest, 'userEmail'>;

const ACCESS_COLUMNS = `r.id, r.user_id AS "userId", r.kind, r.subject, r.name, r.state, r.created_at AS "createdAt"`;

/** Records a request; false when the same one is already waiting. */
export async function requestAccess(
  pool: Pool,
  input: { userId: string; kind: AccessRequest['kind']; subject: string; name: string },
): Promise<boolean> {
  const result = await pool.query(
    `INSERT INTO portal_access_requests (user_id, kind, subject, name) VALUES ($1, $2, $3, $4)
     ON CONFLICT (user_id, kind, subject) WHERE state = 'requested' DO NOTHING`,
    [input.userId, input.kind, input.subject, input.name],
  );
  return (result.rowCount ?? 0) > 0;
}

export async function accessRequestsOf(pool: Pool, userId: string): Promise<AccessRequest[]> {
  const rows = await pool.query<AccessRow>(
    `SELECT ${ACCESS_COLUMNS} FROM portal_access_requests r
      WHERE r.user_id = $1 ORDER BY r.created_at DESC LIMIT 100`,
    [userId],
  );
  return withUserEmails(pool, rows.rows);
}

export async function waitingAccessRequests(pool: Pool): Promise<AccessRequest[]> {
  const rows = await pool.query<AccessRow>(
    `SELECT ${ACCESS_COLUMNS} FROM portal_access_requests r
      WHERE r.state = 'requested' ORDER BY r.created_at LIMIT 500`,
  );
  return withUserEmails(pool, rows.rows);
}

/** Marks a waiting request decided; undefined when it was not waiting (decided already, or no such id). */
export async function decideAccessRequest(
  pool: Pool,
  id: string,
  state: 'approved' | 'declined',
  operatorId: string,
): Promise<AccessRequest | undefined> {
  const updated = await pool.query<{ id: string }>(
    `UPDATE portal_access_requests SET state = $2, decided_at = now(), decided_by = $3
      WHERE id = $1 AND state = 'requested' RETURNING id`,
    [id, state, operatorId],
  );
  if (!updated.rows[0]) return undefined;
  const rows = await pool.query<AccessRow>(
    `SELECT ${ACCESS_COLUMNS} FROM portal_access_requests r WHERE r.id = $1`,
    [id],
  );
  return (await withUserEmails(pool, rows.rows))[0];
}
