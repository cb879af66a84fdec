/**
 * The business number register's background work in one environment: fan-out of change events into
 * notification records, push delivery, email digests, the suspension email, end-dating after a month
 * of suspension, and (sandbox) simulated register activity. Every process that runs jobs (`rsg start`,
 * each of its workers, `rsg worker`) runs all of them; the rows coordinate them (see delivery.ts).
 *
 * A run happens when a change is recorded or a notification created (LISTEN), when the environment's
 * clock moves (the sandbox's virtual clock: `rsg clock advance`), and once a second.
 */
import type pg from 'pg';
import { OutageLog } from '../../../platform/db/faults.ts';
import type { JobContext, RunningJobs } from '../../contract.ts';
import { DeliveryWorker } from './delivery.ts';
import { fanOutAll } from './fanout.ts';

const DIGEST_ITEMS = 1_000;

export interface NzbnJobOptions {
  /** Push deliveries in flight at once in this process. */
  concurrency?: number;
  /** Real milliseconds between runs when nothing wakes the jobs. */
  intervalMs?: number;
  /** Sandbox activity (a function so the simulator stays optional). */
  activity?: (pool: pg.Pool, now: Date) => Promise<unknown>;
}

export class NzbnJobs implements RunningJobs {
  readonly delivery: DeliveryWorker;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly outage: OutageLog;

  constructor(
    private readonly context: JobContext,
    private readonly options: NzbnJobOptions = {},
  ) {
    this.outage = new OutageLog(`watchlist jobs (${context.environment})`, context.log);
    const deliveryOutage = new OutageLog(`watchlist delivery (${context.environment})`, context.log);
    this.delivery = new DeliveryWorker({
      pool: context.database.pool,
      clock: context.clock,
      apiBase: context.apiBase,
      concurrency: options.concurrency ?? 64,
      onError: (error) => deliveryOutage.failed(error),
      onRecovered: () => deliveryOutage.succeeded(),
    });
  }

  async start(): Promise<void> {
    await this.delivery.start(this.context.database.url, () => this.wake());
    this.timer = setInterval(() => this.wake(), this.options.intervalMs ?? 1000);
    this.timer.unref();
    this.wake();
  }

  describe(): string {
    return `fan-out, email digests and push delivery worker ${this.delivery.workerNumber}`;
  }

  /** Asks for a run soon; runs never overlap in one process. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.runNow().catch(() => {});
  }

  /** The run in progress, or a new one. */
  private runNow(): Promise<void> {
    if (!this.running) {
      this.running = this.run()
        .then(
          () => this.outage.succeeded(),
          (error) => this.outage.failed(error),
        )
        .finally(() => {
          this.running = undefined;
          if (this.again && !this.stopped) {
            this.again = false;
            this.wake();
          }
        });
    }
    return this.running;
  }

  /** Runs everything due and waits until nothing is in flight (tests, benchmarks, `rsg worker --once`). */
  async settle(): Promise<void> {
    for (let round = 0; round < 100; round++) {
      await this.runNow();
      if (this.running) continue;
      await this.runNow();
      await this.delivery.idle();
      if (!(await this.workWaiting())) return;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
    await this.delivery.stop();
  }

  private async workWaiting(): Promise<boolean> {
    const result = await this.context.database.pool.query<{ waiting: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM nzbn_change_events WHERE NOT fanned_out)
           OR EXISTS (SELECT 1 FROM nzbn_watchlists WHERE suspension_mail_due)
           OR EXISTS (SELECT 1 FROM nzbn_watchlists WHERE next_due_at <= $1 AND NOT suspended
                        AND end_dated_at IS NULL AND lease_worker IS NULL) AS waiting`,
      [this.context.clock.now()],
    );
    return result.rows[0]!.waiting;
  }

  private async run(): Promise<void> {
    const { pool } = this.context.database;
    const now = () => this.context.clock.now();
    if (this.options.activity) await this.options.activity(pool, now());
    await fanOutAll(pool, now);
    await endDate(pool, now());
    await this.suspensionMails();
    await this.digests();
    this.delivery.wake();
  }

  /** Tells each newly suspended watchlist's administrator (at least once: a crash may repeat it). */
  private async suspensionMails(): Promise<void> {
    const { pool } = this.context.database;
    const due = await pool.query<{ id: string; name: string; admin_email_address: string | null }>(
      `SELECT id::text AS id, name, admin_email_address FROM nzbn_watchlists
        WHERE suspension_mail_due ORDER BY suspended_at LIMIT 100`,
    );
    for (const watchlist of due.rows) {
      const claimed = await pool.query(
        'UPDATE nzbn_watchlists SET suspension_mail_due = false WHERE id = $1 AND suspension_mail_due',
        [watchlist.id],
      );
      if (claimed.rowCount === 0 || !watchlist.admin_email_address) continue;
      try {
        await this.context.mail({
          to: watchlist.admin_email_address,
          subject: `Watchlist "${watchlist.name}" is suspended`,
          text: suspensionText(this.context, watchlist),
        });
      } catch (error) {
        await pool.query('UPDATE nzbn_watchlists SET suspension_mail_due = true WHERE id = $1', [
          watchlist.id,
        ]);
        throw error;
      }
    }
  }

  /** Email watchlists: one digest per address with the changes since the last one. */
  private async digests(): Promise<void> {
    const { pool } = this.context.database;
    const me = this.delivery.workerNumber;
    const claimed = await pool.query<{ id: string; name: string; addresses: string[]; frequency: string }>(
      `WITH picked AS (
         SELECT id FROM nzbn_watchlists
          WHERE channel = 'EMAIL' AND next_due_at <= $1 AND end_dated_at IS NULL AND lease_worker IS NULL
          ORDER BY next_due_at LIMIT 20 FOR UPDATE SKIP LOCKED)
       UPDATE nzbn_watchlists w SET lease_worker = $2 FROM picked WHERE w.id = picked.id
       RETURNING w.id::text AS id, w.name, w.watchlist_email_addresses AS addresses, w.frequency`,
      [this.context.clock.now(), me],
    );
    for (const watchlist of claimed.rows) {
      try {
        await this.digest(watchlist);
      } finally {
        await pool.query(
          `UPDATE nzbn_watchlists w SET lease_worker = NULL, next_due_at = CASE
             WHEN EXISTS (SELECT 1 FROM nzbn_notifications n WHERE n.watchlist_id = w.id AND n.delivered_at IS NULL)
             THEN $2::timestamptz ELSE NULL END
           WHERE id = $1 AND lease_worker = $3`,
          [watchlist.id, this.context.clock.now(), me],
        );
      }
    }
  }

  private async digest(watchlist: { id: string; name: string; addresses: string[] }): Promise<void> {
    const { pool } = this.context.database;
    const rows = await pool.query<{
      notification_id: string;
      id: string;
      nzbn: string;
      entity_name: string;
      change_event_type: string;
      change_date: Date;
    }>(
      `SELECT n.id::text AS notification_id, e.id::text AS id, e.nzbn, e.entity_name, e.change_event_type,
              e.change_date
         FROM nzbn_notifications n JOIN nzbn_change_events e ON e.id = n.change_event_id
        WHERE n.watchlist_id = $1 AND n.delivered_at IS NULL ORDER BY n.id LIMIT ${DIGEST_ITEMS}`,
      [watchlist.id],
    );
    if (rows.rows.length === 0) return;
    const lines = rows.rows.map(
      (row) =>
        `${row.change_date.toISOString()}  ${row.change_event_type.padEnd(24)} ${row.nzbn}  ${row.entity_name}`,
    );
    const text = [
      `${rows.rows.length} change${rows.rows.length === 1 ? '' : 's'} on your watchlist "${watchlist.name}":`,
      '',
      ...lines,
      '',
      `Each change in full: ${this.context.apiBase}/entities/changes`,
    ].join('\n');
    for (const to of watchlist.addresses) {
      await this.context.mail({
        to,
        subject: `Watchlist "${watchlist.name}": ${rows.rows.length} changes`,
        text,
      });
    }
    const now = this.context.clock.now();
    const last = rows.rows.at(-1)!;
    await pool.query(
      `WITH done AS (
         UPDATE nzbn_notifications SET delivered_at = $2, attempts = attempts + 1,
                first_attempt_at = coalesce(first_attempt_at, $2), last_attempt_at = $2
          WHERE id = ANY ($1::bigint[]) RETURNING id)
       UPDATE nzbn_watchlists SET last_digest_at = $2, last_successful_change_notice_id = $3 WHERE id = $4`,
      [rows.rows.map((row) => row.notification_id), now, last.id, watchlist.id],
    );
  }
}

function suspensionText(context: JobContext, watchlist: { id: string; name: string }): string {
  return [
    `Push delivery for the watchlist "${watchlist.name}" (${watchlist.id}) failed on its original attempt and`,
    'all five retries (20, 90, 180, 300 and 450 minutes later), so the watchlist is suspended.',
    '',
    'Notification records are still created while it is suspended; nothing is sent. Once the problem at',
    'the recipient is fixed, resume it — delivery restarts from the point of suspension, in order:',
    '',
    `  PUT ${context.apiBase}/watchlists/${watchlist.id}   {"suspended": false}`,
    '',
    'A watchlist suspended for one month without resumption is end-dated.',
  ].join('\n');
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
