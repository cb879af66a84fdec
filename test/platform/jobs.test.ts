import { afterEach, describe, expect, it, vi } from 'vitest';
import { OutageLog } from '../../src/platform/db/faults.ts';
import {
  BackgroundJob,
  type BackgroundJobOptions,
  SerialJob,
  type SerialJobOptions,
} from '../../src/platform/jobs.ts';

/**
 * The serial job runner on its own (src/platform/jobs.ts): runs never overlap, a wake during a run
 * gives one more run, settle waits for a run that began after it, stop waits for the run in progress,
 * an error is logged and the next run recovers, a moved clock wakes it, and so does the timer. Then
 * `BackgroundJob`, the one wrapper every module's jobs are: the runner's start, wake, settle and stop
 * around the subclass's run, a run every second unless told, and a subclass that holds more than the
 * runner extending start, settle and stop.
 */

/** A promise the test resolves by hand. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

function harness(run: SerialJobOptions['run'], options: Partial<SerialJobOptions> = {}) {
  const lines: { level: 'info' | 'error'; message: string }[] = [];
  const log = {
    info: (_: object, message: string) => void lines.push({ level: 'info', message }),
    error: (_: object, message: string) => void lines.push({ level: 'error', message }),
  };
  const job = new SerialJob({ name: 'test job', run, intervalMs: 3_600_000, log, ...options });
  return { job, lines };
}

let started: SerialJob[] = [];
afterEach(async () => {
  await Promise.all(started.map((job) => job.stop()));
  started = [];
  vi.useRealTimers();
});
const begin = (job: SerialJob) => {
  started.push(job);
  job.start();
  return job;
};

describe('SerialJob', () => {
  it('runs once at start, and never two runs at once however often it is woken', async () => {
    let active = 0;
    let most = 0;
    let runs = 0;
    const release = gate();
    const { job } = harness(async () => {
      runs++;
      active++;
      most = Math.max(most, active);
      if (runs === 1) await release.opened;
      active--;
    });
    begin(job);
    expect(runs).toBe(1);
    for (let i = 0; i < 10; i++) job.wake();
    release.open();
    await job.settle();
    // The first run, one more for the ten wakes during it, and settle's own.
    expect(runs).toBe(3);
    expect(most).toBe(1);
  });

  it('settle waits for a whole run that began after it was called', async () => {
    const seen: number[] = [];
    let due = 0;
    const release = gate();
    let first = true;
    const { job } = harness(async () => {
      const snapshot = due;
      if (first) {
        first = false;
        await release.opened;
      }
      seen.push(snapshot);
    });
    begin(job);
    due = 1; // work that the run in progress did not see
    const settled = job.settle();
    release.open();
    await settled;
    expect(seen).toEqual([0, 1]);
  });

  it('stop during a run aborts its signal, waits for it, and no run starts after', async () => {
    const release = gate();
    let runs = 0;
    let abortedInRun = false;
    const { job } = harness(async (signal) => {
      runs++;
      await release.opened;
      abortedInRun = signal.aborted;
    });
    begin(job);
    let stopped = false;
    const stopping = job.stop().then(() => {
      stopped = true;
    });
    await Promise.resolve();
    expect(stopped).toBe(false);
    release.open();
    await stopping;
    expect(abortedInRun).toBe(true);
    job.wake();
    await job.settle();
    expect(runs).toBe(1);
  });

  it('logs a failed run once while it repeats, keeps going, and says when it recovers', async () => {
    let failure: string | undefined = 'boom';
    let done = 0;
    const { job, lines } = harness(async () => {
      if (failure) throw new Error(failure);
      done++;
    });
    begin(job);
    await job.settle();
    await job.settle();
    failure = 'bang';
    await job.settle();
    failure = undefined;
    await job.settle();
    await job.settle();
    expect(done).toBe(2);
    // Three failed runs with two messages, then two good runs: three lines.
    expect(lines).toEqual([
      { level: 'error', message: 'test job failed; tried again at each run' },
      { level: 'error', message: 'test job failed; tried again at each run' },
      { level: 'info', message: 'test job succeeds again' },
    ]);
  });

  it('a database that is away is one "paused" line and one "resumed" line, not one per run', async () => {
    let away = true;
    const { job, lines } = harness(async () => {
      if (away)
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    });
    begin(job);
    for (let i = 0; i < 3; i++) await job.settle();
    away = false;
    await job.settle();
    await job.settle();
    expect(lines.map((line) => line.message.replace(/:.*| after .*/, ''))).toEqual([
      'test job paused',
      'test job resumed',
    ]);
  });

  it('wakes when the clock is moved', async () => {
    let moved: (() => void) | undefined;
    let runs = 0;
    const { job } = harness(
      async () => {
        runs++;
      },
      { onClockMoved: (handler) => (moved = handler) },
    );
    begin(job);
    await job.settle();
    const before = runs;
    moved!();
    await vi.waitFor(() => expect(runs).toBe(before + 1));
  });

  it('wakes on its timer', async () => {
    vi.useFakeTimers();
    let runs = 0;
    const { job } = harness(
      async () => {
        runs++;
      },
      { intervalMs: 1_000 },
    );
    begin(job);
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(runs).toBe(4);
  });
});

/** A background job whose run counts, with what its log said. */
class Counting extends BackgroundJob {
  runs = 0;
  signals: AbortSignal[] = [];
  readonly lines: string[];

  constructor(
    options: Partial<BackgroundJobOptions> = {},
    private readonly work: () => Promise<void> = async () => {},
  ) {
    const lines: string[] = [];
    super({
      name: 'counting job',
      log: {
        info: (_, message) => void lines.push(message),
        error: (_, message) => void lines.push(message),
      },
      ...options,
    });
    this.lines = lines;
  }

  describe(): string {
    return `counting (${this.runs} runs)`;
  }

  protected async run(signal: AbortSignal): Promise<void> {
    this.runs++;
    this.signals.push(signal);
    await this.work();
  }
}

describe('BackgroundJob', () => {
  let jobs: BackgroundJob[] = [];
  afterEach(async () => {
    await Promise.all(jobs.map((job) => job.stop()));
    jobs = [];
  });
  const kept = <T extends BackgroundJob>(job: T): T => {
    jobs.push(job);
    return job;
  };

  it('runs its run on the serial runner: once at start, on wake and settle, never after stop', async () => {
    const job = kept(new Counting());
    expect(job.describe()).toBe('counting (0 runs)');
    await job.start();
    expect(job.runs).toBe(1);
    job.wake();
    await job.settle();
    expect(job.runs).toBeGreaterThanOrEqual(2);
    const before = job.runs;
    expect(job.stopped).toBe(false);
    await job.stop();
    expect(job.stopped).toBe(true);
    expect(job.signals.every((signal) => signal.aborted)).toBe(true);
    job.wake();
    await job.settle();
    expect(job.runs).toBe(before);
  });

  it('runs every second unless told otherwise, and wakes when the clock is moved', async () => {
    vi.useFakeTimers();
    let moved: (() => void) | undefined;
    const job = kept(new Counting({ onClockMoved: (handler) => (moved = handler) }));
    await job.start();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(job.runs).toBe(3);
    moved!();
    await vi.advanceTimersByTimeAsync(0);
    expect(job.runs).toBe(4);
    const slow = kept(new Counting({ intervalMs: 10_000 }));
    await slow.start();
    await vi.advanceTimersByTimeAsync(9_999);
    expect(slow.runs).toBe(1);
  });

  it('a failed run is logged under its name and retried, never thrown', async () => {
    let fail = true;
    const job = kept(
      new Counting({}, async () => {
        if (fail) throw new Error('boom');
      }),
    );
    await job.start();
    await job.settle();
    fail = false;
    await job.settle();
    expect(job.lines).toEqual([
      'counting job failed; tried again at each run',
      'counting job succeeds again',
    ]);
  });

  it('a subclass extends start, settle and stop around the runner', async () => {
    const events: string[] = [];
    class WithWorker extends Counting {
      override async start(): Promise<void> {
        events.push('worker started');
        await super.start();
      }
      override async settle(): Promise<void> {
        await super.settle();
        events.push('worker idle');
      }
      override async stop(): Promise<void> {
        await super.stop();
        events.push('worker stopped');
      }
    }
    const job = kept(new WithWorker());
    await job.start();
    await job.settle();
    await job.stop();
    expect(events).toEqual(['worker started', 'worker idle', 'worker stopped']);
    expect(job.runs).toBeGreaterThanOrEqual(2);
  });
});

describe('OutageLog (a worker beside the runner: the watchlist delivery worker)', () => {
  it('an error that repeats is one line; an outage one pause; a success after either says so once', () => {
    const lines: string[] = [];
    const log = {
      info: (_: object, message: string) => void lines.push(`info ${message}`),
      error: (_: object, message: string) => void lines.push(`error ${message}`),
    };
    const outage = new OutageLog('delivery', log);
    const refused = Object.assign(new Error('password authentication failed for user "rsg"'), {
      code: '28P01',
    });
    for (let attempt = 0; attempt < 5; attempt++) outage.failed(refused);
    outage.failed(new Error('something else'));
    outage.succeeded();
    outage.succeeded();
    const away = Object.assign(new Error('terminating connection'), { code: '57P01' });
    outage.failed(away);
    outage.failed(away);
    outage.succeeded();
    expect(lines).toEqual([
      'error delivery failed',
      'error delivery failed',
      'info delivery succeeds again',
      'info delivery paused: the database is unavailable; resuming when it answers',
      expect.stringMatching(/^info delivery resumed after [0-9.]+ s$/),
    ]);
  });
});
