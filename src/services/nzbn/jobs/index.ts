/**
 * The business number register's background work in one environment: fan-out of change events into
 * notification records, push delivery, email digests, the suspension email, end-dating after a month
 * of suspension, and (sandbox) simulated register activity. Every process that runs jobs (`rsg start`,
 * each of its workers, `rsg worker`) runs all of them; the rows coordinate them (see delivery.ts). The
 * statements are named queries in ../store/watchlist-jobs.ts and ../store/fanout.ts.
 *
 * A run happens when a change is recorded or a notification created (LISTEN), when the environment's
 * clock moves (the sandbox's virtual clock: `rsg clock advance`), and once a second.
 */
import type pg from 'pg';
import { OutageLog } from '../../../platform/db/faults.ts';
import { BackgroundJob } from '../../../platform/jobs.ts';
import type { JobContext, RunningJobs } from '../../contract.ts';
import { fanOutAll } from '../store/fanout.ts';
import {
  claimDigests,
  claimSuspensionMail,
  dueSuspensionMails,
  endDate,
  recordDigest,
  releaseDigest,
  restoreSuspensionMail,
  undeliveredChanges,
  workWaiting as workWaitingIn,
} from '../store/watchlist-jobs.ts';
import { DeliveryWorker } from './delivery.ts';

const DIGEST_ITEMS = 1_000;

export interface NzbnJobOptions {
  /** Push deliveries in flight at once in this process. */
  concurrency?: number;
  /** Real milliseconds between runs when nothing wakes the jobs. */
  intervalMs?: number;
  /** Sandbox activity (a function so the simulator stays optional). */
  activity?: (pool: pg.Pool, now: Date) => Promise<unknown>;
}

export class NzbnJobs extends BackgroundJob implements RunningJobs {
  readonly delivery: DeliveryWorker;

  constructor(
    private readonly context: JobContext,
    private readonly options: NzbnJobOptions = {},
  ) {
    super({
      name: `watchlist jobs (${context.environment})`,
      intervalMs: options.intervalMs,
      onClockMoved: (handler) => context.onClockMoved(handler),
      log: context.log,
    });
    const deliveryOutage = new OutageLog(`watchlist delivery (${context.environment})`, context.log);
    this.delivery = new DeliveryWorker({
      pool: context.database.pool,
      clock: context.clock,
      apiBase: context.apiBase,
      concurrency: options.concurrency ?? 64,
      connections: Math.min(8, context.database.pool.options.max ?? 10),
      onError: (error) => deliveryOutage.failed(error),
      onRecovered: () => deliveryOutage.succeeded(),
    });
  }

  /** Starts the push worker (its LISTEN wakes the jobs), then the runs. */
  override async start(): Promise<void> {
    await this.delivery.start(this.context.database.url, () => this.wake());
    super.start();
  }

  describe(): string {
    return `fan-out, email digests and push delivery worker ${this.delivery.workerNumber}`;
  }

  /** Runs everything due and waits until nothing is in flight (tests, benchmarks, `rsg worker --once`). */
  override async settle(): Promise<void> {
    for (let round = 0; round < 100; round++) {
      await super.settle();
      await this.delivery.idle();
      if (this.stopped || !(await this.workWaiting())) return;
    }
  }

  override async stop(): Promise<void> {
    await super.stop();
    await this.delivery.stop();
  }

  private workWaiting(): Promise<boolean> {
    return workWaitingIn(this.context.database.pool, this.context.clock.now());
  }

  protected async run(): Promise<void> {
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
    for (const watchlist of await dueSuspensionMails(pool)) {
      if (!(await claimSuspensionMail(pool, watchlist.id)) || !watchlist.adminEmailAddress) continue;
      try {
        await this.context.mail({
          to: watchlist.adminEmailAddress,
          subject: `Watchlist "${watchlist.name}" is suspended`,
          text: suspensionText(this.context, watchlist),
        });
      } catch (error) {
        await restoreSuspensionMail(pool, watchlist.id);
        throw error;
      }
    }
  }

  /** Email watchlists: one digest per address with the changes since the last one. */
  private async digests(): Promise<void> {
    const { pool } = this.context.database;
    const me = this.delivery.workerNumber;
    for (const watchlist of await claimDigests(pool, this.context.clock.now(), me)) {
      try {
        await this.digest(watchlist);
      } finally {
        await releaseDigest(pool, watchlist.id, this.context.clock.now(), me);
      }
    }
  }

  private async digest(watchlist: { id: string; name: string; addresses: string[] }): Promise<void> {
    const { pool } = this.context.database;
    const items = await undeliveredChanges(pool, watchlist.id, DIGEST_ITEMS);
    if (items.length === 0) return;
    const lines = items.map((item) =>
      item.id === null
        ? `${item.createdAt.toISOString()}  ${'TEST NOTIFICATION'.padEnd(24)} ${item.testMessage}`
        : `${item.changeDate.toISOString()}  ${item.changeEventType.padEnd(24)} ${item.nzbn}  ${item.entityName}`,
    );
    const text = [
      `${items.length} change${items.length === 1 ? '' : 's'} on your watchlist "${watchlist.name}":`,
      '',
      ...lines,
      '',
      `Each change in full: ${this.context.apiBase}/entities/changes`,
    ].join('\n');
    for (const to of watchlist.addresses) {
      await this.context.mail({
        to,
        subject: `Watchlist "${watchlist.name}": ${items.length} changes`,
        text,
      });
    }
    await recordDigest(
      pool,
      watchlist.id,
      items.map((item) => item.notificationId),
      items.findLast((item) => item.id !== null)?.id ?? null,
      this.context.clock.now(),
    );
  }
}

function suspensionText(context: JobContext, watchlist: { watchlistId: number; name: string }): string {
  return [
    `Push delivery for the watchlist "${watchlist.name}" (${watchlist.watchlistId}) failed on its original attempt and`,
    'all five retries (20, 90, 180, 300 and 450 minutes later), so the watchlist is suspended.',
    '',
    'Notification records are still created while it is suspended; nothing is sent. Once the problem at',
    'the recipient is fixed, resume it — delivery restarts from the point of suspension, in order:',
    '',
    `  PUT ${context.apiBase}/watchlists/${watchlist.watchlistId}   {"suspended": false}`,
    '',
    'A watchlist suspended for one month without resumption is end-dated.',
  ].join('\n');
}
