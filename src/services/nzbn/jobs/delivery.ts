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
 *   (../domain/delivery-schedule.ts) and releases the watchlist until then; the notifications behind
 *   it wait. When the last retry fails, the watchlist is suspended and its administrator is to be
 *   emailed (index.ts).
 *
 * The statements are named queries in ../store/delivery.ts; this file is the worker's logic.
 */
import pg from 'pg';
import type { Clock } from '../../../platform/clock.ts';
import { isDatabaseUnavailable } from '../../../platform/db/faults.ts';
import { type Database, openDatabase } from '../../../platform/db/pool.ts';
import { changeItem } from '../domain/change-item.ts';
import { afterAttempt } from '../domain/delivery-schedule.ts';
import { webhookHeaders } from '../domain/webhook-signing.ts';
import {
  type Claimed,
  claimWatchlists,
  type DeliveredMark,
  holdWorkerLock,
  listenForDeliveries,
  liveWorkers,
  nextWorkerNumber,
  PENDING_PAGE,
  pendingNotifications,
  recordDelivered,
  recordRetry,
  releaseWatchlist,
  suspendWatchlist,
} from '../store/delivery.ts';
import { pushAttempt } from './push.ts';

export interface DeliveryOptions {
  pool: pg.Pool;
  /** The environment's clock (the sandbox's may be virtual). */
  clock: Clock;
  /** Base address of this environment's business number API, for the items' links. */
  apiBase: string;
  /** Watchlists served at once by this worker. */
  concurrency?: number;
  /**
   * Connections of the worker's own pool at most (its lanes share them): 8 unless given. The jobs give
   * no more than the environment pool's size, so `RSG_DB_POOL_SIZE` bounds the worker too.
   */
  connections?: number;
  onError?: (error: unknown) => void;
  /** Told after a claim succeeds (the database answers again after a failure). */
  onRecovered?: () => void;
}

interface Mark extends DeliveredMark {
  done: (recorded: boolean) => void;
  failed: (error: unknown) => void;
}

/** The first wait before a lost worker connection is made again, and the longest while attempts fail. */
const RECONNECT_FIRST_MS = 1_000;
const RECONNECT_LAST_MS = 30_000;

export const webhookIdOf = (watchlistId: string, notificationId: string): string =>
  `msg_${watchlistId.replace(/-/g, '')}_${notificationId}`;

export class DeliveryWorker {
  private lockClient: pg.Client | undefined;
  private number = 0;
  private active = 0;
  private claiming = false;
  private again = false;
  private stopping = false;
  /** The claim in flight, if any (`wake`). */
  private claimRun: Promise<void> | undefined;
  private readonly serving = new Set<Promise<void>>();
  private readonly concurrency: number;
  /** Aborts attempts in flight when the worker stops (they are made again by another worker). */
  private readonly stopSignal = new AbortController();
  private connection: { url: string; listen: ((payload: string) => void) | undefined } | undefined;
  /** The worker's own connections, so deliveries never starve the API's pool. */
  private own: Database | undefined;
  private marks: Mark[] = [];
  private flushing = false;

  constructor(private readonly options: DeliveryOptions) {
    this.concurrency = options.concurrency ?? 64;
  }

  private get db(): pg.Pool {
    return this.own?.pool ?? this.options.pool;
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
    // The platform's pool (a connection ended by the server reports to its statement, not the process;
    // a breaker while the server is away). Lanes wait for a connection as long as it takes (0): 64 lanes
    // share a few connections (8 at most) by design.
    this.own ??= openDatabase(connectionString, {
      max: this.options.connections ?? 8,
      acquireTimeoutMs: 0,
      name: 'watchlist delivery',
    });
    const client = new pg.Client({ connectionString });
    client.on('error', (error) => this.options.onError?.(error));
    try {
      await client.connect();
      this.number = await nextWorkerNumber(client);
      await holdWorkerLock(client, this.number);
      if (listen) {
        client.on('notification', (message) => listen(message.payload ?? ''));
        await listenForDeliveries(client);
      }
    } catch (error) {
      // A half-made connection is not kept (nor its lock): the next attempt makes a new one.
      await client.end().catch(() => {});
      throw error;
    }
    client.on('end', () => {
      if (this.stopping || this.lockClient !== client) return;
      this.lockClient = undefined;
      this.reconnectMs = RECONNECT_FIRST_MS;
      setTimeout(() => this.reconnect(), this.reconnectMs).unref();
    });
    this.lockClient = client;
  }

  /** The wait before the next attempt to come back: a second; doubling to 30 s while the database refuses. */
  private reconnectMs = RECONNECT_FIRST_MS;

  private reconnect(): void {
    if (this.stopping || this.lockClient || !this.connection) return;
    this.start(this.connection.url, this.connection.listen).then(
      () => {
        this.reconnectMs = RECONNECT_FIRST_MS;
        this.options.onRecovered?.();
        this.wake();
      },
      (error) => {
        this.options.onError?.(error);
        // A database that is away is tried again every second (it is back as soon as it answers);
        // a refusal (a changed password, say) waits longer after each attempt.
        this.reconnectMs = isDatabaseUnavailable(error)
          ? RECONNECT_FIRST_MS
          : Math.min(this.reconnectMs * 2, RECONNECT_LAST_MS);
        setTimeout(() => this.reconnect(), this.reconnectMs).unref();
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
    this.claimRun = this.claim()
      .then(
        () => this.options.onRecovered?.(),
        (error) => this.options.onError?.(error),
      )
      .finally(() => {
        this.claiming = false;
        this.claimRun = undefined;
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
    // A claim in flight finishes on the open pool (the watchlists it takes are served and given back
    // below) rather than failing on a closed one.
    await this.claimRun;
    await Promise.allSettled([...this.serving]);
    await this.lockClient?.end().catch(() => {});
    await this.own?.close().catch(() => {});
    this.own = undefined;
    this.lockClient = undefined;
  }

  private live: { workers: number[]; at: number } | undefined;

  private async liveWorkers(): Promise<number[]> {
    if (!this.live || Date.now() - this.live.at > 1000) {
      this.live = { workers: await liveWorkers(this.db), at: Date.now() };
    }
    return this.live.workers;
  }

  private async claim(): Promise<void> {
    while (!this.stopping && this.active < this.concurrency) {
      const free = this.concurrency - this.active;
      const live = await this.liveWorkers();
      const claimed = await claimWatchlists(this.db, this.options.clock.now(), free, this.number, live);
      if (claimed.length === 0) {
        // Perhaps a worker died since the list was read: look again on the next wake.
        this.live = undefined;
        return;
      }
      for (const watchlist of claimed) {
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
      const pending = await pendingNotifications(pool, watchlist.id);
      if (pending.length === 0) return true;
      for (const row of pending) {
        const now = clock.now();
        if (this.stopping || (row.next_attempt_at ?? row.created_at) > now) return true;
        const attempt = row.attempts + 1;
        const original = row.first_attempt_at ?? now;
        // A test notification carries its message (the published TestMessage), every other a change.
        const body = JSON.stringify(
          row.test_message === null ? changeItem(row, this.options.apiBase) : { text: row.test_message },
        );
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
        const failed = {
          notificationId: row.notification_id,
          at: now,
          attempts: attempt,
          original,
          status: result.status ?? null,
          error,
        };
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
          await recordRetry(pool, failed, outcome.dueAt, watchlist.id, this.number);
          return false;
        }
        await suspendWatchlist(pool, failed, watchlist.id, this.number);
        return false;
      }
      // A short page was the whole queue; release() sees anything that arrived meanwhile.
      if (pending.length < PENDING_PAGE) return true;
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
          const recorded = await recordDelivered(this.db, batch, this.number);
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
    await releaseWatchlist(this.db, watchlistId, this.number);
  }
}
