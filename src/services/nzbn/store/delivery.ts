/**
 * The SQL of push delivery (jobs/delivery.ts; migrations 004 and 006), as named queries: a
 * worker's number and advisory lock, the live workers, claiming due watchlists, a watchlist's pending
 * notifications, and writing an attempt's outcome (delivered, retry, suspend) or giving the watchlist
 * back. Every write that follows a claim holds only if the worker still leases the watchlist.
 */
import type pg from 'pg';
import { withTransaction } from '../../../platform/db/pool.ts';
import type { PushDelivery } from '../../contract.ts';
import type { ChangeRow } from '../domain/change-item.ts';

type Queryable = pg.Pool | pg.PoolClient | pg.Client;

/** The advisory lock class of delivery workers: (4242, worker number) is held while a worker lives. */
export const WORKER_LOCK_CLASS = 4242;
/** NOTIFY channel that wakes the delivery workers (new records, a watchlist resumed, a retry due). */
export const DELIVERY_CHANNEL = 'rsg_nzbn_delivery';
/** Pending notifications read at once for one watchlist. */
export const PENDING_PAGE = 100;

/** A watchlist a worker has leased, with what it needs to push. */
export interface Claimed {
  id: string;
  push_endpoint: string;
  authorization_token: string | null;
  webhook_secret: string;
}

/**
 * A notification waiting for delivery, with its change event; a test notification has none (its
 * columns are null) and carries `test_message` instead.
 */
export interface PendingRow extends ChangeRow {
  notification_id: string;
  test_message: string | null;
  attempts: number;
  first_attempt_at: Date | null;
  next_attempt_at: Date | null;
  created_at: Date;
}

/** A success to record. */
export interface DeliveredMark {
  notificationId: string;
  at: Date;
  attempts: number;
  original: Date;
  status: number;
  /** Null for a test notification. */
  changeEventId: string | null;
  watchlistId: string;
}

/** A failed attempt to record: the notification, when, which attempt, the original attempt's time. */
export interface FailedAttempt {
  notificationId: string;
  at: Date;
  attempts: number;
  original: Date;
  status: number | null;
  error: string;
}

/** Worker numbers whose advisory lock is held: the workers alive now. */
const LIVE_WORKERS = `
SELECT objid::int AS worker FROM pg_locks
 WHERE locktype = 'advisory' AND classid = ${WORKER_LOCK_CLASS} AND objsubid = 2 AND granted
   AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;

/** $4: the live workers (read from pg_locks at most once a second: the scan is not cheap). */
const CLAIM = `
WITH picked AS (
  SELECT id FROM nzbn_watchlists
   WHERE next_due_at <= $1 AND NOT suspended AND end_dated_at IS NULL AND channel = 'PUSH'
     AND (lease_worker IS NULL OR lease_worker <> ALL ($4::int[]))
   ORDER BY next_due_at LIMIT $2 FOR UPDATE SKIP LOCKED
)
UPDATE nzbn_watchlists w SET lease_worker = $3 FROM picked WHERE w.id = picked.id
RETURNING w.id::text AS id, w.push_endpoint, w.authorization_token, w.webhook_secret`;

const PENDING = `
SELECT n.id::text AS notification_id, n.attempts, n.first_attempt_at, n.next_attempt_at, n.created_at,
       n.test_message, e.id::text AS id, e.nzbn, e.entity_name, e.entity_type_code, e.change_event_type,
       e.change_date, e.new_value, e.is_private
  FROM nzbn_notifications n LEFT JOIN nzbn_change_events e ON e.id = n.change_event_id
 WHERE n.watchlist_id = $1 AND n.delivered_at IS NULL
 ORDER BY n.id LIMIT ${PENDING_PAGE}`;

/**
 * Marks delivered notifications, many at once (one statement for every lane's success: the commit is
 * the cost, so the lanes share it), each only if this worker still holds its watchlist.
 */
const DELIVERED = `
WITH input AS (
  SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::int[], $4::timestamptz[], $5::int[],
                       $6::bigint[], $7::uuid[])
         AS t(id, at, attempts, original, status, change_event_id, watchlist_id)
), w AS (
  UPDATE nzbn_watchlists wl
     SET last_successful_change_notice_id = coalesce(i.change_event_id, wl.last_successful_change_notice_id),
         updated_at = greatest(wl.updated_at, i.at)
    FROM input i WHERE wl.id = i.watchlist_id AND wl.lease_worker = $8 RETURNING wl.id
)
UPDATE nzbn_notifications n
   SET delivered_at = i.at, attempts = i.attempts, first_attempt_at = coalesce(n.first_attempt_at, i.original),
       last_attempt_at = i.at, next_attempt_at = NULL, last_status = i.status, last_error = NULL
  FROM input i JOIN w ON w.id = i.watchlist_id WHERE n.id = i.id
RETURNING n.id::text AS id`;

/** Records a failed attempt and when the next is due; releases the watchlist until then. */
const RETRY = `
WITH w AS (
  UPDATE nzbn_watchlists SET next_due_at = $6, lease_worker = NULL
   WHERE id = $7 AND lease_worker = $8 RETURNING id
)
UPDATE nzbn_notifications n
   SET attempts = $3, first_attempt_at = coalesce(n.first_attempt_at, $4), last_attempt_at = $2,
       next_attempt_at = $6, last_status = $5, last_error = $9,
       failed_attempts = coalesce(n.failed_attempts, '[]'::jsonb)
                         || jsonb_build_array(jsonb_build_object('at', $2::timestamptz, 'status', $5::int, 'error', left($9, 300)))
  FROM w WHERE n.id = $1
RETURNING n.id`;

/** The last retry failed: the watchlist is suspended and its administrator is to be told. */
const SUSPEND = `
WITH w AS (
  UPDATE nzbn_watchlists
     SET suspended = true, suspended_at = $2, suspension_mail_due = true, next_due_at = NULL,
         lease_worker = NULL, updated_at = $2
   WHERE id = $6 AND lease_worker = $7 RETURNING id
)
UPDATE nzbn_notifications n
   SET attempts = $3, first_attempt_at = coalesce(n.first_attempt_at, $4), last_attempt_at = $2,
       next_attempt_at = NULL, last_status = $5, last_error = $8,
       failed_attempts = coalesce(n.failed_attempts, '[]'::jsonb)
                         || jsonb_build_array(jsonb_build_object('at', $2::timestamptz, 'status', $5::int, 'error', left($8, 300)))
  FROM w WHERE n.id = $1
RETURNING n.id`;

/** A new worker number (never used before). */
export async function nextWorkerNumber(client: pg.Client): Promise<number> {
  const taken = await client.query<{ n: string }>("SELECT nextval('nzbn_delivery_worker_seq')::text AS n");
  return Number(taken.rows[0]!.n);
}

/**
 * Holds the worker's advisory lock on `client`, a connection of the worker's own: the lock (and so the
 * worker's leases) lives as long as the connection.
 */
export async function holdWorkerLock(client: pg.Client, worker: number): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1, $2)', [WORKER_LOCK_CLASS, worker]);
}

/** Listens on DELIVERY_CHANNEL on `client`. */
export async function listenForDeliveries(client: pg.Client): Promise<void> {
  await client.query(`LISTEN ${DELIVERY_CHANNEL}`);
}

/** The numbers of the workers alive now (their locks are held). */
export async function liveWorkers(db: Queryable): Promise<number[]> {
  const result = await db.query<{ worker: number }>(LIVE_WORKERS);
  return result.rows.map((row) => row.worker);
}

/**
 * Leases up to `limit` watchlists due at `now` to `worker`: free ones, and those leased by a worker no
 * longer in `live`.
 */
export async function claimWatchlists(
  db: Queryable,
  now: Date,
  limit: number,
  worker: number,
  live: number[],
): Promise<Claimed[]> {
  const claimed = await db.query<Claimed>(CLAIM, [now, limit, worker, live]);
  return claimed.rows;
}

/** The watchlist's undelivered notifications in order, at most PENDING_PAGE. */
export async function pendingNotifications(db: Queryable, watchlistId: string): Promise<PendingRow[]> {
  const pending = await db.query<PendingRow>(PENDING, [watchlistId]);
  return pending.rows;
}

/** Records successes in one statement; answers the notifications recorded (the lease still held). */
export async function recordDelivered(
  db: Queryable,
  marks: readonly DeliveredMark[],
  worker: number,
): Promise<Set<string>> {
  const result = await db.query<{ id: string }>(DELIVERED, [
    marks.map((m) => m.notificationId),
    marks.map((m) => m.at),
    marks.map((m) => m.attempts),
    marks.map((m) => m.original),
    marks.map((m) => m.status),
    marks.map((m) => m.changeEventId),
    marks.map((m) => m.watchlistId),
    worker,
  ]);
  return new Set(result.rows.map((row) => row.id));
}

const attemptValues = (attempt: FailedAttempt) => [
  attempt.notificationId,
  attempt.at,
  attempt.attempts,
  attempt.original,
  attempt.status,
];

/** Records a failed attempt, the next due at `dueAt`, and gives the watchlist back until then. */
export async function recordRetry(
  db: Queryable,
  attempt: FailedAttempt,
  dueAt: Date,
  watchlistId: string,
  worker: number,
): Promise<void> {
  await db.query(RETRY, [...attemptValues(attempt), dueAt, watchlistId, worker, attempt.error]);
}

/** Records the last failed attempt and suspends the watchlist (its administrator is to be told). */
export async function suspendWatchlist(
  db: Queryable,
  attempt: FailedAttempt,
  watchlistId: string,
  worker: number,
): Promise<void> {
  await db.query(SUSPEND, [...attemptValues(attempt), watchlistId, worker, attempt.error]);
}

/**
 * Gives the watchlist back with next_due_at set from its head notification. The row is locked first,
 * so the read that follows sees every fan-out that committed before; a fan-out after it sees our
 * value and wakes the watchlist itself. One round trip (the function of migration 006).
 */
export async function releaseWatchlist(db: Queryable, watchlistId: string, worker: number): Promise<void> {
  await db.query('SELECT nzbn_release_watchlist($1, $2)', [watchlistId, worker]);
}

/**
 * Queues a watchlist's test notification behind what already waits for it, and wakes the delivery: due
 * now for push (unless its head waits for a retry), with the next digest for email.
 */
export async function queueTestNotification(
  pool: pg.Pool,
  watchlistId: string,
  message: string,
  now: Date,
): Promise<void> {
  await withTransaction(pool, async (client) => {
    await client.query(
      'INSERT INTO nzbn_notifications (watchlist_id, test_message, created_at) VALUES ($1, $2, $3)',
      [watchlistId, message, now],
    );
    await client.query(
      `UPDATE nzbn_watchlists w
          SET next_due_at = coalesce(w.next_due_at, CASE
                WHEN w.channel = 'PUSH' OR w.frequency = 'ONEVENT' OR w.last_digest_at IS NULL THEN $2
                WHEN w.frequency = 'WEEKLY' THEN greatest($2, w.last_digest_at + interval '7 days')
                ELSE greatest($2, w.last_digest_at + interval '1 day') END)
        WHERE id = $1`,
      [watchlistId, now],
    );
    await client.query(`SELECT pg_notify($1, 'records')`, [DELIVERY_CHANNEL]);
  });
}

/**
 * The push notifications of the watchlists a subscription owns (`sub:<id>`), newest first, with every
 * failed attempt's answer (migration 019) and the last one's: what the portal's request inspector shows (`ServiceDefinition.pushDeliveries`).
 */
export async function pushDeliveriesOf(
  db: Queryable,
  subscriptionId: string,
  limit: number,
): Promise<PushDelivery[]> {
  const result = await db.query<PushDelivery>(
    `SELECT w.id AS "watchlistId", w.name AS "watchlistName", w.push_endpoint AS endpoint,
            n.id::text AS "notificationId", n.created_at AS "createdAt", n.attempts,
            n.first_attempt_at AS "firstAttemptAt", n.last_attempt_at AS "lastAttemptAt",
            n.next_attempt_at AS "nextAttemptAt", n.delivered_at AS "deliveredAt",
            n.last_status AS "lastStatus", n.last_error AS "lastError",
            coalesce(n.failed_attempts, '[]'::jsonb) AS "failedAttempts"
       FROM nzbn_watchlists w JOIN nzbn_notifications n ON n.watchlist_id = w.id
      WHERE w.owner_key = $1 AND w.channel = 'PUSH'
      ORDER BY n.id DESC LIMIT $2`,
    [`sub:${subscriptionId}`, limit],
  );
  return result.rows;
}
