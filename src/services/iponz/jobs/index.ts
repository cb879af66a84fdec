/**
 * The IP office's background work in one environment: in the sandbox, the examination simulator
 * (jobs/examination.ts) on the sandbox clock; in both environments, the email of each discussion sent
 * to a registered user (production has no simulator, but its discussions are mailed the same way).
 *
 * A run happens when the environment's clock moves (the sandbox's virtual clock: `rsg clock advance`),
 * when a filing or answer asks for one (`wake`), and once a second. Runs never overlap in one process;
 * processes share the work through row locks (each step locks its case, each email is claimed).
 */
import { OutageLog } from '../../../platform/db/faults.ts';
import type { JobContext, RunningJobs } from '../../contract.ts';
import { discussionMail } from '../domain/correspondence.ts';
import { claimUnmailed, unclaimMail } from '../store/correspondence.ts';
import { runDueSteps } from './examination.ts';

const MAIL_BATCH = 100;

export class IponzJobs implements RunningJobs {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly outage: OutageLog;

  constructor(
    private readonly context: JobContext,
    private readonly options: { intervalMs?: number } = {},
  ) {
    this.outage = new OutageLog(`IP office jobs (${context.environment})`, context.log);
  }

  /** Whether the examination simulator runs here (the sandbox only). */
  get simulates(): boolean {
    return this.context.environment === 'sandbox';
  }

  start(): void {
    this.timer = setInterval(() => this.wake(), this.options.intervalMs ?? 1000);
    this.timer.unref();
    this.wake();
  }

  describe(): string {
    return this.simulates ? 'examination simulator and discussion emails' : 'discussion emails';
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.runNow().catch(() => {});
  }

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

  async settle(): Promise<void> {
    await this.running;
    this.again = false;
    await this.runNow();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  private async run(): Promise<void> {
    const { pool } = this.context.database;
    if (this.simulates) await runDueSteps(pool, this.context.clock.now());
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
  context.onClockMoved(() => jobs.wake());
  return jobs;
}
