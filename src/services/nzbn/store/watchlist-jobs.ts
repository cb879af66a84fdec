import type pg from 'pg';

/**
 * The named queries of the watchlist jobs loop (jobs/index.ts): whether work waits, the suspension
 * emails, the email digests and end-dating. Push delivery's are in delivery.ts, the fan-out's in
 * fanout.ts.
 */

/** Whether a change event waits for fan-out, a suspension email is due, or a watchlist is due. */
export async function workWaiting(pool: pg.Pool, now: Date): Promise<boolean> {
  const result = await pool.query<{ waiting: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM nzbn_change_events WHERE NOT fanned_out)
         OR EXISTS (SELECT 1 FROM nzbn_watchlists WHERE suspension_mail_due)
         OR EXISTS (SELECT 1 FROM nzbn_watchlists WHERE next_due_at <= $1 AND NOT suspended
                      AND end_dated_at IS NULL AND lease_worker IS NULL) AS waiting`,
    [now],
  );
  return result.rows[0]!.waiting;
}

export interface SuspensionMail {
  /** The internal key. */
  id: string;
  /** The published watchlistId, which the mail names. */
  watchlistId: number;
  name: string;
  adminEmailAddress: string | null;
}

/** Up to 100 watchlists whose suspension email is due, oldest suspension first. */
export async function dueSuspensionMails(pool: pg.Pool): Promise<SuspensionMail[]> {
  const due = await pool.query<{
    id: string;
    number: number;
    name: string;
    admin_email_address: string | null;
  }>(
    `SELECT id::text AS id, number, name, admin_email_address FROM nzbn_watchlists
      WHERE suspension_mail_due ORDER BY suspended_at LIMIT 100`,
  );
  return due.rows.map((row) => ({
    id: row.id,
    watchlistId: row.number,
    name: row.name,
    adminEmailAddress: row.admin_email_address,
  }));
}

/** Takes the suspension email of one watchlist (false: another process took it). */
export async function claimSuspensionMail(pool: pg.Pool, id: string): Promise<boolean> {
  const claimed = await pool.query(
    'UPDATE nzbn_watchlists SET suspension_mail_due = false WHERE id = $1 AND suspension_mail_due',
    [id],
  );
  return (claimed.rowCount ?? 0) > 0;
}

/** Gives a claimed suspension email back (it could not be sent). */
export async function restoreSuspensionMail(pool: pg.Pool, id: string): Promise<void> {
  await pool.query('UPDATE nzbn_watchlists SET suspension_mail_due = true WHERE id = $1', [id]);
}

export interface DigestWatchlist {
  id: string;
  name: string;
  addresses: string[];
  frequency: string;
}

/** Leases up to 20 due email watchlists to worker `worker`. */
export async function claimDigests(pool: pg.Pool, now: Date, worker: number): Promise<DigestWatchlist[]> {
  const claimed = await pool.query<DigestWatchlist>(
    `WITH picked AS (
       SELECT id FROM nzbn_watchlists
        WHERE channel = 'EMAIL' AND next_due_at <= $1 AND end_dated_at IS NULL AND lease_worker IS NULL
        ORDER BY next_due_at LIMIT 20 FOR UPDATE SKIP LOCKED)
     UPDATE nzbn_watchlists w SET lease_worker = $2 FROM picked WHERE w.id = picked.id
     RETURNING w.id::text AS id, w.name, w.watchlist_email_addresses AS addresses, w.frequency`,
    [now, worker],
  );
  return claimed.rows;
}

/** Ends worker `worker`'s lease; the watchlist is due again now if records still wait, else not at all. */
export async function releaseDigest(pool: pg.Pool, id: string, now: Date, worker: number): Promise<void> {
  await pool.query(
    `UPDATE nzbn_watchlists w SET lease_worker = NULL, next_due_at = CASE
       WHEN EXISTS (SELECT 1 FROM nzbn_notifications n WHERE n.watchlist_id = w.id AND n.delivered_at IS NULL)
       THEN $2::timestamptz ELSE NULL END
     WHERE id = $1 AND lease_worker = $3`,
    [id, now, worker],
  );
}

/** A notification of a digest: a change event, or a test notification (its message; no change). */
export type DigestItem = { notificationId: string } & (
  | {
      /** The change event's id. */
      id: string;
      nzbn: string;
      entityName: string;
      changeEventType: string;
      changeDate: Date;
      testMessage: null;
    }
  | { id: null; testMessage: string; createdAt: Date }
);

/** The first `limit` undelivered notifications of a watchlist, in order, with their change events. */
export async function undeliveredChanges(
  pool: pg.Pool,
  watchlistId: string,
  limit: number,
): Promise<DigestItem[]> {
  const rows = await pool.query<{
    notification_id: string;
    test_message: string | null;
    created_at: Date;
    id: string | null;
    nzbn: string;
    entity_name: string;
    change_event_type: string;
    change_date: Date;
  }>(
    `SELECT n.id::text AS notification_id, n.test_message, n.created_at, e.id::text AS id, e.nzbn,
            e.entity_name, e.change_event_type, e.change_date
       FROM nzbn_notifications n LEFT JOIN nzbn_change_events e ON e.id = n.change_event_id
      WHERE n.watchlist_id = $1 AND n.delivered_at IS NULL ORDER BY n.id LIMIT $2`,
    [watchlistId, limit],
  );
  return rows.rows.map(
    (row): DigestItem =>
      row.test_message !== null || row.id === null
        ? {
            notificationId: row.notification_id,
            id: null,
            testMessage: row.test_message ?? '',
            createdAt: row.created_at,
          }
        : {
            notificationId: row.notification_id,
            id: row.id,
            nzbn: row.nzbn,
            entityName: row.entity_name,
            changeEventType: row.change_event_type,
            changeDate: row.change_date,
            testMessage: null,
          },
  );
}

/**
 * Marks the digested notifications delivered and notes the digest (its time, its last change event:
 * null when it held only test notifications).
 */
export async function recordDigest(
  pool: pg.Pool,
  watchlistId: string,
  notificationIds: readonly string[],
  lastChangeEventId: string | null,
  now: Date,
): Promise<void> {
  await pool.query(
    `WITH done AS (
       UPDATE nzbn_notifications SET delivered_at = $2, attempts = attempts + 1,
              first_attempt_at = coalesce(first_attempt_at, $2), last_attempt_at = $2
        WHERE id = ANY ($1::bigint[]) RETURNING id)
     UPDATE nzbn_watchlists SET last_digest_at = $2,
            last_successful_change_notice_id = coalesce($3, last_successful_change_notice_id),
            updated_at = greatest(updated_at, $2) WHERE id = $4`,
    [notificationIds, now, lastChangeEventId, watchlistId],
  );
}

/** Watchlists suspended for one calendar month (UTC) are end-dated at that moment. */
export async function endDate(pool: pg.Pool, now: Date): Promise<number> {
  const result = await pool.query(
    `UPDATE nzbn_watchlists
        SET end_dated_at = ((suspended_at AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC',
            to_date = ((suspended_at AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC',
            next_due_at = NULL, updated_at = $1
      WHERE suspended AND end_dated_at IS NULL
        AND ((suspended_at AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC' <= $1`,
    [now],
  );
  return result.rowCount ?? 0;
}
