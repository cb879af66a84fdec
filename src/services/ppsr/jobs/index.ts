/**
 * The register's background work in one environment: mail the verification statements written by
 * changes (store/verification.ts), and fail transactions whose process ended mid-way (published: 500,
 * "failed, resubmit"). Both are safe in every process at once. A database fault pauses them; they go on
 * at the next turn.
 */
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
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  let failing = false;

  async function turn(): Promise<void> {
    try {
      const now = context.clock.now();
      await failAbandoned(pool, new Date(now.getTime() - abandonAfterMs), now);
      while (
        (await sendPending(
          pool,
          BATCH,
          (s) => context.mail(s),
          () => context.clock.now(),
        )) === BATCH
      ) {
        if (stopped) break;
      }
      if (failing)
        context.log.info(
          { service: 'ppsr', environment: context.environment },
          'verification statements resumed',
        );
      failing = false;
    } catch (error) {
      if (!failing) {
        context.log.error(
          { service: 'ppsr', environment: context.environment, err: error },
          'verification statements paused',
        );
      }
      failing = true;
    }
  }

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = turn().finally(schedule);
    }, INTERVAL_MS);
    timer.unref();
  };
  const now = () => {
    if (stopped) return running;
    clearTimeout(timer);
    running = running.then(turn).finally(schedule);
    return running;
  };
  schedule();
  return {
    describe: () => 'verification statements mailed each second',
    wake: () => void now(),
    settle: () => now(),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
