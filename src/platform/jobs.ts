import { isDatabaseUnavailable, OutageLog } from './db/faults.ts';

/**
 * The one runner of background work: "run what is due, one run at a time". A run starts when the timer
 * fires (every `intervalMs`), when the environment's clock is moved (`onClockMoved`), or when `wake()`
 * is called; a wake during a run asks for exactly one more run after it, so runs never overlap in one
 * process and no wake is lost. A run that throws is logged and the work is tried again at the next
 * wake: an error never ends the process. A failure that repeats is one line, not one a second: a
 * database that is away is one "paused" and one "resumed" line (`OutageLog`); any other error is logged
 * when its message is new, and one line says when runs succeed again. Background work reaches it through
 * `BackgroundJob` (below), the one wrapper every module's jobs are.
 */
export interface SerialJobOptions {
  /** What the log lines name: `month end (sandbox)`. */
  name: string;
  /** Everything due, once. `signal` is aborted when `stop()` is called: a long run may end early. */
  run: (signal: AbortSignal) => Promise<void>;
  /** Real milliseconds between runs when nothing wakes the job. */
  intervalMs: number;
  /** Subscribes to moves of the environment's clock (the sandbox's virtual clock), when given. */
  onClockMoved?: (handler: () => void) => void;
  log: { info(object: object, message: string): void; error(object: object, message: string): void };
}

export class SerialJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private readonly stopping = new AbortController();
  private readonly outage: OutageLog;
  /** The message of the failure logged last, while runs keep failing. */
  private failure: string | undefined;

  constructor(private readonly options: SerialJobOptions) {
    this.outage = new OutageLog(options.name, options.log);
  }

  /** Starts the timer and the clock subscription, and runs once now. */
  start(): void {
    if (this.stopped) return;
    this.timer = setInterval(() => this.wake(), this.options.intervalMs);
    this.timer.unref();
    this.options.onClockMoved?.(() => this.wake());
    this.wake();
  }

  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /** Asks for a run soon: now when none is in progress, else once more after the one in progress. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    void this.runNow();
  }

  /** The run in progress, or a new one. Never rejects. */
  private runNow(): Promise<void> {
    if (this.running) return this.running;
    const run = async () => {
      try {
        await this.options.run(this.stopping.signal);
        this.succeeded();
      } catch (error) {
        this.failed(error);
      }
    };
    this.running = run().finally(() => {
      this.running = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        this.wake();
      }
    });
    return this.running;
  }

  private failed(error: unknown): void {
    if (isDatabaseUnavailable(error)) {
      this.outage.failed(error);
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    if (message === this.failure) return;
    this.failure = message;
    this.options.log.error({ err: error }, `${this.options.name} failed; tried again at each run`);
  }

  private succeeded(): void {
    this.outage.succeeded();
    if (this.failure === undefined) return;
    this.failure = undefined;
    this.options.log.info({}, `${this.options.name} succeeds again`);
  }

  /**
   * Waits for a whole run that started after this call (the one in progress, if any, first): what was
   * due when it was called is done, or has failed and been logged. After `stop()`, only waits.
   */
  async settle(): Promise<void> {
    await this.running;
    if (this.stopped) return;
    await this.runNow();
  }

  /** No run starts after this; waits for the one in progress (its `signal` is aborted). */
  async stop(): Promise<void> {
    this.stopping.abort();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}

/** What a `BackgroundJob` passes its `SerialJob` (the run is the subclass's `run`). */
export interface BackgroundJobOptions {
  /** What the log lines name: `month end (sandbox)`. */
  name: string;
  /** Real milliseconds between runs when nothing wakes the job; one second unless given. */
  intervalMs?: number;
  /** Subscribes to moves of the environment's clock (the sandbox's virtual clock), when given. */
  onClockMoved?: (handler: () => void) => void;
  log: SerialJobOptions['log'];
}

/**
 * Background work in one environment on one `SerialJob`, as the runtime runs it (the service contract's
 * `RunningJobs`: `describe`, `wake`, `settle`, `stop`, and `start`): the billing month end, the business
 * number register's watchlist jobs and bulk data export, the IP office's jobs and the secured interests
 * register's verification statements. A subclass says what one run does (`run`) and what runs
 * (`describe`); one that holds more than the runner (a delivery worker) extends `start`, `settle` and
 * `stop` and calls these.
 */
export abstract class BackgroundJob {
  private readonly job: SerialJob;

  constructor(options: BackgroundJobOptions) {
    this.job = new SerialJob({
      ...options,
      intervalMs: options.intervalMs ?? 1_000,
      run: (signal) => this.run(signal),
    });
  }

  /** Everything due, once; `signal` is aborted by `stop()`. A throw is logged and retried (SerialJob). */
  protected abstract run(signal: AbortSignal): Promise<void>;

  /** One line for the operator: what runs. */
  abstract describe(): string;

  /** Starts the timer and the clock subscription, and runs once now. */
  start(): void | Promise<void> {
    this.job.start();
  }

  /** Whether `stop()` was called. */
  get stopped(): boolean {
    return this.job.stopped;
  }

  /** Asks for a run soon; runs never overlap in one process. */
  wake(): void {
    this.job.wake();
  }

  /** Waits for a whole run that started after the call. */
  settle(): Promise<void> {
    return this.job.settle();
  }

  /** No run starts after this; waits for the one in progress. */
  stop(): Promise<void> {
    return this.job.stop();
  }
}
