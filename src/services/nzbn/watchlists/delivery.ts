/**
 * Push delivery. The schedule lives in the rows (nzbn_notifications, nzbn_watchlists.next_due_at), so
 * any number of processes deliver at once:
 *
 * - A worker takes a number and holds the PostgreSQL advisory lock (4242, number) on a connection of
 *   its own for as long as it lives. It leases a due watchlist by writing its number into
 *   `lease_worker` (claimed with FOR UPDATE SKIP LOCKED, so two workers never take the same one). A
 *   lease whose worker no longer holds its lock — the process died, even by SIGKILL — is free at once:
 *   PostgreSQL drops a session's advisory locks when its connection closes.
 * - A leased watchlist's notifications are sent strictly in order, one at a time; a success is
 *   written (delivered_at) before the next is sent, so a delivered notification is never sent again.
 *   An attempt is written after its answer: a worker killed mid-attempt leaves the notification as it
 *   was, and the next worker sends it again with the same `webhook-id`, which receivers use to drop
 *   the repeat.
 * - A failed attempt schedules the next at 20, 90, 180, 300 or 450 minutes after the original attempt
 *   (schedule.ts) and releases the watchlist until then; the notifications behind it wait. When the
 *   last retry fails, the watchlist is suspended and its administrator is to be emailed (jobs.ts).
 */
import pg from 'pg';
import type { Clock } from '../../../platform/clock.ts';
import { type ChangeRow, changeItem } from '../domain/change-item.ts';
import { pushAttempt } from './push.ts';
import { afterAttempt } from './schedule.ts';
import { webhookHeaders } from './signing.ts';

export const WORKER_LOCK_CLASS = 4242;
const PAGE = 100;
export const DELIVERY_CHANNEL = 'rsg_nzbn_delivery';

export interface DeliveryOptions {
  pool: pg.Pool;
  /** The environment's clock (the sandbox's may be virtual). */
  clock: Clock;
  /** Base address of this environment's business number API, for the items' links. */
  apiBase: string;
  /** Watchlists served at once by this worker. */
  concurrency?: number;
  onError?: (error: unknown) => void;
  /** Told after a claim succeeds (the database answers again after a failure). */
  onRecovered?: () => void;
}

interface Claimed {
  id: string;
  push_endpoint: string;
  authorization_token: string | null;
  webhook_secret: string;
}

interface PendingRow extends ChangeRow {
  notification_id: string;
  attempts: number;
  first_attempt_at: Date | null;
  next_attempt_at: Date | null;
  created_at: Date;
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
       e.id::text AS id, e.nzbn, e.entity_name, e.entity_type_code, e.change_event_type, e.change_date,
       e.new_value, e.is_private
  FROM nzbn_notifications n JOIN nzbn_change_events e ON e.id = n.change_event_id
 WHERE n.watchlist_id = $1 AND n.delivered_at IS NULL
 ORDER BY n.id LIMIT ${PAGE}`;

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
  UPDATE nzbn_watchlists wl SET last_successful_change_notice_id = i.change_event_id
    FROM input i WHERE wl.id = i.watchlist_id AND wl.lease_worker = $8 RETURNING wl.id
)
UPDATE nzbn_notifications n
   SET delivered_at = i.at, attempts = i.attempts, first_attempt_at = coalesce(n.first_attempt_at, i.original),
       last_attempt_at = i.at, next_attempt_at = NULL, last_status = i.status, last_error = NULL
  FROM input i JOIN w ON w.id = i.watchlist_id WHERE n.id = i.id
RETURNING n.id::text AS id`;

interface Mark {
  notificationId: string;
  at: Date;
  attempts: number;
  original: Date;
  status: number;
  changeEventId: string;
  watchlistId: string;
  done: (recorded: boolean) => void;
  failed: (error: unknown) => void;
}

/** Records a failed attempt and when the next is due; releases the watchlist until then. */
const RETRY = `
WITH w AS (
  UPDATE nzbn_watchlists SET next_due_at = $6, lease_worker = NULL
   WHERE id = $7 AND lease_worker = $8 RETURNING id
)
UPDATE nzbn_notifications n
   SET attempts = $3, first_attempt_at = coalesce(n.first_attempt_at, $4), last_attempt_at = $2,
       next_attempt_at = $6, last_status = $5, last_error = $9
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
       next_attempt_at = NULL, last_status = $5, last_error = $8
  FROM w WHERE n.id = $1
RETURNING n.id`;

export const webhookIdOf = (watchlistId: string, notificationId: string): string =>
  `msg_${watchlistId.replace(/-/g, '')}_${notificationId}`;

export class DeliveryWorker {
  private lockClient: pg.Client | undefined;
  private number = 0;
  private active = 0;
  private claiming = false;
  private again = false;
  private stopping = false;
  private readonly serving = new Set<Promise<void>>();
  private readonly concurrency: number;
  /** Aborts attempts in flight when the worker stops (they are made again by another worker). */
  private readonly stopSignal = new AbortController();
  private connection: { url: string; listen: ((payload: string) => void) | undefined } | undefined;
  /** The worker's own connections, so deliveries never starve the API's pool. */
  private pool: pg.Pool | undefined;
  private marks: Mark[] = [];
  private flushing = false;

  constructor(private readonly options: DeliveryOptions) {
    this.concurrency = options.concurrency ?? 64;
  }

  private get db(): pg.Pool {
    return this.pool ?? this.options.pool;
  }

  get workerNumber(): number {
    return this.number;
  }

  /**
   * Takes a worker number and its advisory lock; `listen` is told of new records and retries. Should the
   * connection drop, the lock (and so every lease of that number) is gone: the worker comes back under a
   * new number, and leases of the old one are free for all.
   */
  async start(connectionString: string, listen?: (payload: string) => void): Promise<void> {
    this.connection = { url: connectionString, listen };
    if (!this.pool) {
      this.pool = new pg.Pool({ connectionString, max: 8, idleTimeoutMillis: 30_000 });
      this.pool.on('error', () => {});
      // A connection the server ends while it is checked out reports to its statement, not the process.
      this.pool.on('connect', (client) => client.on('error', () => {}));
    }
    const client = new pg.Client({ connectionString });
    client.on('error', (error) => this.options.onError?.(error));
    await client.connect();
    const taken = await client.query<{ n: string }>("SELECT nextval('nzbn_delivery_worker_seq')::text AS n");
    this.number = Number(taken.rows[0]!.n);
    await client.query('SELECT pg_advisory_lock($1, $2)', [WORKER_LOCK_CLASS, this.number]);
    if (listen) {
      client.on('notification', (message) => listen(message.payload ?? ''));
      await client.query(`LISTEN ${DELIVERY_CHANNEL}`);
    }
    client.on('end', () => {
      if (this.stopping || this.lockClient !== client) return;
      this.lockClient = undefined;
      setTimeout(() => this.reconnect(), 1000).unref();
    });
    this.lockClient = client;
  }

  private reconnect(): void {
    if (this.stopping || this.lockClient || !this.connection) return;
    this.start(this.connection.url, this.connection.listen).then(
      () => this.wake(),
      (error) => {
        this.options.onError?.(error);
        setTimeout(() => this.reconnect(), 1000).unref();
      },
    );
  }

  /** Claims due watchlists while there are free slots; safe to call at any time, as often as wanted. */
  wake(): void {
    if (this.stopping || !this.lockClient) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.claiming = true;
    this.claim()
      .then(
        () => this.options.onRecovered?.(),
        (error) => this.options.onError?.(error),
      )
      .finally(() => {
        this.claiming = false;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Resolves when nothing is being served (for tests and benchmarks). */
  async idle(): Promise<void> {
    while (this.claiming || this.serving.size > 0) {
      await Promise.all([...this.serving]);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.stopSignal.abort();
    await Promise.allSettled([...this.serving]);
    await this.lockClient?.end().catch(() => {});
    await this.pool?.end().catch(() => {});
    this.pool = undefined;
    this.lockClient = undefined;
  }

  private live: { workers: number[]; at: number } | undefined;

  private async liveWorkers(): Promise<number[]> {
    if (!this.live || Date.now() - this.live.at > 1000) {
      const result = await this.db.query<{ worker: number }>(LIVE_WORKERS);
      this.live = { workers: result.rows.map((row) => row.worker), at: Date.now() };
    }
    return this.live.workers;
  }

  private async claim(): Promise<void> {
    while (!this.stopping && this.active < this.concurrency) {
      const free = this.concurrency - this.active;
      const live = await this.liveWorkers();
      const claimed = await this.db.query<Claimed>(CLAIM, [
        this.options.clock.now(),
        free,
        this.number,
        live,
      ]);
      if (claimed.rows.length === 0) {
        // Perhaps a worker died since the list was read: look again on the next wake.
        this.live = undefined;
        return;
      }
      for (const watchlist of claimed.rows) {
        this.active++;
        const serving = this.serve(watchlist)
          // The watchlist is given back unless serve() already did (a retry or suspension releases it
          // in the same statement; the same worker may have claimed it again since).
          .then(
            (held) => (held ? this.release(watchlist.id) : undefined),
            (error) => {
              this.options.onError?.(error);
              return this.release(watchlist.id);
            },
          )
          .catch((error) => this.options.onError?.(error))
          .finally(() => {
            this.active--;
            this.serving.delete(serving);
            this.wake();
          });
        this.serving.add(serving);
      }
    }
  }

  /**
   * Sends the watchlist's due notifications in order until one fails or none is due. A success's mark is
   * committed while the next notification is on its way (one in flight per watchlist, one mark behind):
   * it is on record before the next outcome is written and before the queue is read again, so order and
   * "never sent again once delivered" hold; only a crash between a 200 and its mark repeats a delivery.
   */
  private async serve(watchlist: Claimed): Promise<boolean> {
    let previous: Promise<boolean> | undefined;
    /** False when the lease was lost: another worker has the watchlist. */
    const recorded = async (): Promise<boolean> => {
      const mark = previous;
      previous = undefined;
      return mark ? mark : true;
    };
    try {
      return await this.serveQueue(
        watchlist,
        (mark) => {
          // The mark is awaited later (before the next outcome); should it fail meanwhile (its
          // connection ended), that is reported there, not as an unhandled rejection now.
          mark.catch(() => {});
          previous = mark;
        },
        recorded,
      );
    } finally {
      if (previous) await previous;
    }
  }

  private async serveQueue(
    watchlist: Claimed,
    markLater: (mark: Promise<boolean>) => void,
    recorded: () => Promise<boolean>,
  ): Promise<boolean> {
    const { clock } = this.options;
    const pool = this.db;
    for (;;) {
      if (!(await recorded())) return false;
      const pending = await pool.query<PendingRow>(PENDING, [watchlist.id]);
      if (pending.rows.length === 0) return true;
      for (const row of pending.rows) {
        const now = clock.now();
        if (this.stopping || (row.next_attempt_at ?? row.created_at) > now) return true;
        const attempt = row.attempts + 1;
        const original = row.first_attempt_at ?? now;
        const body = JSON.stringify(changeItem(row, this.options.apiBase));
        const headers = webhookHeaders(
          watchlist.webhook_secret,
          webhookIdOf(watchlist.id, row.notification_id),
          // The signature's timestamp is real time: receivers check it against their own clock.
          new Date(),
          body,
        );
        if (watchlist.authorization_token) headers.authorization = watchlist.authorization_token;
        const result = await pushAttempt(
          watchlist.push_endpoint,
          headers,
          body,
          clock,
          this.stopSignal.signal,
        );
        if (!(await recorded())) return false;
        // Stopping: the attempt does not count; the record is sent again by the next worker.
        if (result.abandoned) return true;
        const outcome = afterAttempt({
          attempt,
          originalAttemptAt: original,
          status: result.status,
          elapsedMs: result.elapsedMs,
        });
        const error =
          result.error ??
          (result.status === 200 ? 'answered after the two-minute window' : `answered ${result.status}`);
        const common = [row.notification_id, now, attempt, original, result.status ?? null];
        if (outcome.kind === 'delivered') {
          markLater(
            this.markDelivered({
              notificationId: row.notification_id,
              at: now,
              attempts: attempt,
              original,
              status: result.status!,
              changeEventId: row.id,
              watchlistId: watchlist.id,
            }),
          );
          continue;
        }
        if (outcome.kind === 'retry') {
          await pool.query(RETRY, [...common, outcome.dueAt, watchlist.id, this.number, error]);
          return false;
        }
        await pool.query(SUSPEND, [...common, watchlist.id, this.number, error]);
        return false;
      }
      // A short page was the whole queue; release() sees anything that arrived meanwhile.
      if (pending.rows.length < PAGE) return true;
    }
  }

  /** Queues a success; the marks of all lanes go out together in one statement. */
  private markDelivered(mark: Omit<Mark, 'done' | 'failed'>): Promise<boolean> {
    return new Promise<boolean>((done, failed) => {
      this.marks.push({ ...mark, done, failed });
      if (!this.flushing) void this.flushMarks();
    });
  }

  private async flushMarks(): Promise<void> {
    this.flushing = true;
    try {
      while (this.marks.length > 0) {
        const batch = this.marks.splice(0, 500);
        try {
          const result = await this.db.query<{ id: string }>(DELIVERED, [
            batch.map((m) => m.notificationId),
            batch.map((m) => m.at),
            batch.map((m) => m.attempts),
            batch.map((m) => m.original),
            batch.map((m) => m.status),
            batch.map((m) => m.changeEventId),
            batch.map((m) => m.watchlistId),
            this.number,
          ]);
          const recorded = new Set(result.rows.map((row) => row.id));
          for (const mark of batch) mark.done(recorded.has(mark.notificationId));
        } catch (error) {
          for (const mark of batch) mark.failed(error);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /**
   * Gives the watchlist back with next_due_at set from its head notification. The row is locked first,
   * so the read that follows sees every fan-out that committed before; a fan-out after it sees our
   * value and wakes the watchlist itself.
   */
  private async release(watchlistId: string): Promise<void> {
    // One round trip: the function locks the row, then reads the head (migration 006).
    await this.db.query('SELECT nzbn_release_watchlist($1, $2)', [watchlistId, this.number]);
  }
}
