/**
 * The register's background work in one environment: mail the verification statements written by
 * changes (store/verification.ts), and fail transactions whose process ended mid-way (published: 500,
 * "failed, resubmit"). Both are safe in every process at once. They run once a second and when woken,
 * one run at a time (platform/jobs.ts); a database fault pauses them and they go on at the next run.
 */
import { SerialJob } from '../../../platform/jobs.ts';
import type { JobContext, RunningJobs } from '../../contract.ts';
import { failAbandoned } from '../store/transactions.ts';
import { sendPending } from '../store/verification.ts';

const INTERVAL_MS = 1_000;
const BATCH = 100;

export function startPpsrJobs(context: JobContext): RunningJobs {
  const pool = context.database.pool;
  // A transaction may wait out the sandbox's longest delay and the platform's timeout; one still
  // processing long after both has lost its process.
  const abandonAfterMs = context.settings.platformTimeoutMs! + 900_000 + 60_000;

  async function run(signal: AbortSignal): Promise<void> {
    const now = context.clock.now();
    await failAbandoned(pool, new Date(now.getTime() - abandonAfterMs), now);
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

  const job = new SerialJob({
    name: `verification statements (${context.environment})`,
    run,
    intervalMs: INTERVAL_MS,
    log: context.log,
  });
  job.start();
  return {
    describe: () => 'verification statements mailed each second',
    wake: () => job.wake(),
    settle: () => job.settle(),
    stop: () => job.stop(),
  };
}
