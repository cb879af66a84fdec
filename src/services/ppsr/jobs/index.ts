/**
 * The register's background work in one environment: mail the verification statements written by
 * changes (store/verification.ts), and fail transactions whose process ended mid-way (published: 500,
 * "failed, resubmit"). Both are safe in every process at once. They run once a second and when woken,
 * one run at a time (platform/jobs.ts); a database fault pauses them and they go on at the next run.
 */
import { BackgroundJob } from '../../../platform/jobs.ts';
import type { JobContext, RunningJobs } from '../../contract.ts';
import { failAbandoned } from '../store/transactions.ts';
import { sendPending } from '../store/verification.ts';

const BATCH = 100;

class PpsrJobs extends BackgroundJob implements RunningJobs {
  /** A transaction still processing this long after it arrived has lost its process. */
  private readonly abandonAfterMs: number;

  constructor(private readonly context: JobContext) {
    super({ name: `verification statements (${context.environment})`, log: context.log });
    // A transaction may wait out the sandbox's longest delay and the platform's timeout; one still
    // processing long after both has lost its process.
    this.abandonAfterMs = context.settings.platformTimeoutMs! + 900_000 + 60_000;
  }

  describe(): string {
    return 'verification statements mailed each second';
  }

  protected async run(signal: AbortSignal): Promise<void> {
    const { context } = this;
    const pool = context.database.pool;
    const now = context.clock.now();
    await failAbandoned(pool, new Date(now.getTime() - this.abandonAfterMs), now);
    while (
      !signal.aborted &&
      (await sendPending(
        pool,
        BATCH,
        (s) => context.mail(s),
        () => context.clock.now(),
      )) === BATCH
    );
  }
}

export function startPpsrJobs(context: JobContext): RunningJobs {
  const jobs = new PpsrJobs(context);
  jobs.start();
  return jobs;
}
