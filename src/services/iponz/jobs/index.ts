/**
 * The IP office's background work in one environment: in the sandbox, the examination simulator
 * (operations/examination.ts) on the sandbox clock; in both environments, the daily pass that moves cases time
 * moves (jobs/timed-statuses.ts: a trade mark past its expiry date and removed, a patent lapsed …) and
 * the email of each discussion sent to a registered user (production has no simulator, but its
 * discussions are mailed the same way).
 *
 * A run happens when the environment's clock moves (the sandbox's virtual clock: `rsg clock advance`),
 * when a filing or answer asks for one (`wake`), and once a second, on the platform's serial runner (runs
 * never overlap in one process; an outage is logged once and retried). Processes share the work through
 * row locks (each step locks its case, each email is claimed).
 */
import { BackgroundJob } from '../../../platform/jobs.ts';
import type { JobContext, RunningJobs } from '../../contract.ts';
import { discussionMail } from '../domain/correspondence.ts';
import { runDueSteps } from '../operations/examination.ts';
import { claimUnmailed, unclaimMail } from '../store/correspondence.ts';
import { TimedStatuses } from './timed-statuses.ts';

const MAIL_BATCH = 100;

export class IponzJobs extends BackgroundJob implements RunningJobs {
  private readonly timed: TimedStatuses;

  constructor(
    private readonly context: JobContext,
    options: { intervalMs?: number } = {},
  ) {
    super({
      name: `IP office jobs (${context.environment})`,
      intervalMs: options.intervalMs,
      onClockMoved: (handler) => context.onClockMoved(handler),
      log: context.log,
    });
    this.timed = new TimedStatuses(context.database, context.clock);
  }

  /** Whether the examination simulator runs here (the sandbox only). */
  get simulates(): boolean {
    return this.context.environment === 'sandbox';
  }

  describe(): string {
    return this.simulates
      ? 'examination simulator, timed statuses and discussion emails'
      : 'timed statuses and discussion emails';
  }

  protected async run(): Promise<void> {
    const { pool } = this.context.database;
    if (this.simulates) await runDueSteps(pool, this.context.clock.now());
    const moved = await this.timed.run();
    if (moved > 0) {
      this.context.log.info(
        { service: 'iponz', moved },
        `IP office: ${moved} cases moved by the passing of time`,
      );
    }
    await this.mailDiscussions();
  }

  /** Emails each new discussion to its registered user (at least once: a crash may repeat one). */
  private async mailDiscussions(): Promise<void> {
    const { pool } = this.context.database;
    for (;;) {
      const claimed = await claimUnmailed(pool, this.context.clock.now(), MAIL_BATCH);
      for (const [i, discussion] of claimed.entries()) {
        try {
          await this.context.mail({ to: discussion.to, ...discussionMail(discussion, this.context.apiBase) });
        } catch (error) {
          for (const left of claimed.slice(i)) await unclaimMail(pool, left.discussionId);
          throw error;
        }
      }
      if (claimed.length < MAIL_BATCH) return;
    }
  }
}

/** The service definition's `jobs`: started in each environment, woken when its clock moves. */
export async function startIponzJobs(context: JobContext): Promise<RunningJobs> {
  const jobs = new IponzJobs(context);
  jobs.start();
  return jobs;
}
