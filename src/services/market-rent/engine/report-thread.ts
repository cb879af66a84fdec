/**
 * A national answer on two cores. Areas are independent until the ALL area: a report thread makes the
 * histograms and rows of the first areas (about 55% of the entries) while the request's thread makes
 * those of the other areas, then the ALL area's from every area's base histograms (the first areas'
 * read where the report thread made them), and joins the two parts into one buffer: the same bytes as
 * on one thread (the same functions on the same histograms, in the same order; tests compare them).
 *
 * The month blocks, the routing of cells to rows, both arenas and the answers' buffers are shared
 * memory (store/blocks.ts, arena.ts, encode.ts), so nothing is copied to the report thread but the
 * job's plan (labels and keys of the areas). The report thread says when its base histograms are made
 * and when it is done through shared control words (report-thread-protocol.ts): the request's thread is
 * computing, not taking messages.
 *
 * Why this split (docs/decisions/0004-computed-rental-statistics.md): publishing a row (figures, keyed rounding, its bytes)
 * is about two thirds of an answer, the histograms one third. A report thread that only published
 * rows left the request's thread alone with a sort of every entry first (about 10 ms on two cores'
 * clock); each area's entries are now found through the months' index by SA2 (blocks.ts), so each
 * thread sorts only its own areas' entries, a run of neighbouring areas at a time.
 *
 * Anything wrong with the report thread costs speed, never an answer: a job whose base histograms or
 * part do not come within WAIT_MS is made on the request's thread, and while a thread that failed or
 * exited is replaced (after a pause that doubles with each loss in a row) answers are made on one thread.
 */
import os from 'node:os';
import { MessageChannel, type MessagePort, receiveMessageOnPort, type Worker } from 'node:worker_threads';
import { startTsWorker } from '../../../platform/ts-worker.ts';
import type { ReportInput } from '../domain/report.ts';
import { forgetArena } from './arena.ts';
import {
  type AnswerFormat,
  type AnswerPart,
  answerEncoder,
  borrowFirstPartBuffer,
  giveBackFirstPartBuffer,
  joinParts,
  type LentAnswer,
} from './encode.ts';
import {
  type AnswerWork,
  AreaPublisher,
  type PublishPlan,
  prepareAnswer,
  publishAll,
  THREAD_ARENA,
} from './report.ts';
import { CONTROL, CONTROL_WORDS, STATE, type ThreadJob, WAIT_MS } from './report-thread-protocol.ts';
import type { RowUniforms } from './row-uniforms.ts';

/** Answers with fewer base entries are made on one thread: a job's round trip is not worth it. */
export const MIN_THREAD_ENTRIES = 10_000;
/**
 * The share of the entries whose areas the report thread makes: less than half, since the request's
 * thread also makes the ALL area and joins the parts. 55% balanced the threads (a national answer made
 * in one process: 57 ms, against 62–65 ms with 50% and 60%).
 */
export const FIRST_SHARE = 0.55;

export interface ReportThreadLog {
  warn(details: Record<string, unknown>, message: string): void;
}

export class ReportThread {
  private readonly control = new Int32Array(new SharedArrayBuffer(CONTROL_WORDS * 4));
  /** The worker and the port it answers on; null while there is none (answers on one thread). */
  private worker: Worker | null = null;
  private results: MessagePort | null = null;
  private closed = false;
  /** Workers lost in a row: the pause before the next start doubles with each. */
  private losses = 0;
  /** The plan of the last job sent (the report thread keeps it). */
  private lastPlan: PublishPlan | null = null;
  /** The number of the last job sent. */
  private lastJob = 0;
  /** Answers whose first part the report thread made (for tests and logs). */
  jobs = 0;

  private constructor(
    private readonly log: ReportThreadLog,
    private readonly warmUp: boolean,
  ) {}

  /**
   * A report thread, once it has loaded its code (and with `warmUp`, compiled it on made-up answers,
   * warm-up.ts, on its own core); null when the machine has one core or the thread does not
   * start (answers are then made on one thread).
   */
  static async start(
    log: ReportThreadLog,
    { warmUp = false }: { warmUp?: boolean } = {},
  ): Promise<ReportThread | null> {
    if (os.availableParallelism() < 2) return null;
    const thread = new ReportThread(log, warmUp);
    try {
      await thread.launch();
    } catch (error) {
      log.warn({ err: error }, 'rental statistics: no report thread; answers are made on one thread');
      return null;
    }
    return thread;
  }

  /** Starts a worker and, once it is ready, makes it this thread's. */
  private async launch(): Promise<void> {
    const { port1, port2 } = new MessageChannel();
    const worker = startTsWorker(new URL('./report-thread-worker.ts', import.meta.url), {
      workerData: { results: port2, warmUp: this.warmUp },
      transferList: [port2],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('not ready after 30 s')), 30_000);
        worker.once('message', () => {
          clearTimeout(timer);
          resolve();
        });
        worker.once('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
        worker.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`exited with code ${code}`));
        });
      });
    } catch (error) {
      port1.close();
      await worker.terminate();
      throw error;
    }
    if (this.closed) {
      port1.close();
      await worker.terminate();
      return;
    }
    worker.unref();
    worker.on('error', (error) => {
      this.log.warn({ err: error }, 'rental statistics: the report thread failed');
    });
    worker.on('exit', () => {
      if (this.worker === worker) this.lost();
    });
    this.worker = worker;
    this.results = port1;
    this.lastPlan = null;
  }

  /**
   * The worker is gone (it failed, exited, or was stopped for taking too long): answers are made on
   * one thread until a new one is ready, started after a pause of 1 s that doubles with each loss in a
   * row (up to a minute).
   */
  private lost(): void {
    this.worker = null;
    this.results?.close();
    this.results = null;
    if (this.closed) return;
    const pause = Math.min(60_000, 1000 * 2 ** this.losses++);
    this.log.warn(
      { pause },
      'rental statistics: the report thread is gone; answers on one thread until it is back',
    );
    setTimeout(() => {
      if (this.closed) return;
      this.launch().catch((error: unknown) => {
        this.log.warn({ err: error }, 'rental statistics: the report thread did not start again');
        this.lost();
      });
    }, pause).unref();
  }

  /** Whether answers are made on two threads now. */
  get usable(): boolean {
    return this.worker !== null;
  }

  /**
   * The answer's bytes, lent until `release()`, as `encodeReportLent` makes them: on two threads when
   * it has at least `minEntries` base entries (and rowUniforms names its key), else on this one.
   */
  encode(
    input: ReportInput,
    format: AnswerFormat,
    { minEntries = MIN_THREAD_ENTRIES }: { minEntries?: number } = {},
  ): LentAnswer {
    const work = prepareAnswer(input);
    const { query } = input;
    const sipKey = (input.rowUniforms as Partial<RowUniforms>).sipKey;
    const { worker, results } = this;
    const firstAreas =
      sipKey === undefined || worker === null || work.entries < minEntries ? 0 : firstAreasOf(work);
    if (firstAreas === 0 || sipKey === undefined || worker === null || results === null) {
      const encoder = answerEncoder(format, query.areaDefinition, query.period.periodCovered);
      publishAll(work, input.rowUniforms, encoder);
      return encoder.finishLent();
    }
    const { control } = this;
    // The job's number first: a report thread still at an earlier job (one given up on) finds it
    // changed, stops, and signals nothing into this job's control words.
    const id = ++this.lastJob;
    Atomics.store(control, CONTROL.job, id);
    Atomics.store(control, CONTROL.bases, 0);
    Atomics.store(control, CONTROL.cancel, 0);
    Atomics.store(control, CONTROL.state, STATE.running);
    while (receiveMessageOnPort(results) !== undefined); // nothing left of an earlier job
    const output = borrowFirstPartBuffer();
    // The plan goes only when it differs from the last job's (a national query's is the same each
    // time: 2,239 labels and keys, about a millisecond to copy on each side).
    const plan = samePlan(work.plan, this.lastPlan) ? null : work.plan;
    this.lastPlan = work.plan;
    const lent = work.threadArrays(firstAreas);
    const job: ThreadJob = {
      id,
      plan,
      firstAreas,
      format,
      areaDefinition: query.areaDefinition,
      periodCovered: query.period.periodCovered,
      sipKey,
      sources: work.sources,
      arrays: lent,
      output,
      control,
    };
    worker.postMessage(job);
    const { areaCount, areaSlots } = work.plan;
    /** Whether this thread made the first areas' base histograms (the report thread gave up first). */
    let basesHere = false;
    let later: AnswerPart;
    try {
      const encoder = answerEncoder(format, query.areaDefinition, query.period.periodCovered, 'later');
      const publisher = new AreaPublisher(work.plan, input.rowUniforms, encoder);
      for (let a = firstAreas; a < areaCount; a++) {
        work.histogramsOf(a);
        publisher.publish(a, work.arrays());
      }
      if (areaSlots > areaCount) {
        // The ALL area, from every area's base histograms: the first areas' from the report thread.
        if (this.waitForBases()) work.nationalOf(lent, firstAreas);
        else {
          basesHere = true;
          this.giveUp(output, worker, results);
          for (let a = 0; a < firstAreas; a++) work.baseOf(a);
          work.nationalOf(null, 0);
        }
        work.levelsOf(areaCount);
        publisher.publish(areaCount, work.arrays());
      }
      later = encoder.finishPart();
    } catch (error) {
      // The report thread stops at its next area; its buffer is given back once it has (unless the
      // job was given up on already).
      if (!basesHere) this.cancel(output, worker);
      throw error;
    }
    const first = basesHere ? null : this.firstPart(output, worker, results);
    if (first !== null) {
      this.jobs++;
      return joinParts(format, first, later);
    }
    // The report thread did not make its part: made here, the first areas' histograms too.
    const encoder = answerEncoder(format, query.areaDefinition, query.period.periodCovered, 'first');
    const publisher = new AreaPublisher(work.plan, input.rowUniforms, encoder);
    for (let a = 0; a < firstAreas; a++) {
      if (basesHere) work.levelsOf(a);
      else work.histogramsOf(a);
      publisher.publish(a, work.arrays());
    }
    return joinParts(format, encoder.finishPart(), later);
  }

  /** Whether the report thread has made its base histograms (false: it failed, or took over WAIT_MS). */
  private waitForBases(): boolean {
    const { control } = this;
    if (Atomics.load(control, CONTROL.bases) === 0) Atomics.wait(control, CONTROL.bases, 0, WAIT_MS);
    return Atomics.load(control, CONTROL.bases) === 1;
  }

  /** The report thread's part once it is done, or null (it failed, or took longer than WAIT_MS). */
  private firstPart(output: Uint8Array, worker: Worker, results: MessagePort): AnswerPart | null {
    const { control } = this;
    Atomics.wait(control, CONTROL.state, STATE.running, WAIT_MS);
    if (Atomics.load(control, CONTROL.state) === STATE.done) {
      this.losses = 0;
      return {
        buffer: this.messageOf(results)?.grown ?? output,
        length: Atomics.load(control, CONTROL.length),
        rows: Atomics.load(control, CONTROL.rows),
      };
    }
    this.giveUp(output, worker, results);
    return null;
  }

  /**
   * Gives up on the job under way: a report thread that failed it is told so by its state (its buffer
   * comes back); one still running after WAIT_MS is stopped, its buffer and arena left to it, and
   * another started later.
   */
  private giveUp(output: Uint8Array, worker: Worker, results: MessagePort): void {
    const { control } = this;
    // The next job sends its plan whatever this one left the report thread with.
    this.lastPlan = null;
    if (Atomics.load(control, CONTROL.state) === STATE.running) {
      // Told to stop at its next area, then waited for.
      Atomics.store(control, CONTROL.cancel, 1);
      Atomics.wait(control, CONTROL.state, STATE.running, WAIT_MS);
    }
    const state = Atomics.load(control, CONTROL.state);
    if (state === STATE.failed) {
      const message = this.messageOf(results);
      if (message?.error !== undefined)
        this.log.warn({ error: message.error }, 'rental statistics: the report thread failed an answer');
    }
    // Stopped (failed, cancelled, or done meanwhile): its buffer is free again.
    if (state !== STATE.running) {
      giveBackFirstPartBuffer(output);
      return;
    }
    this.log.warn({}, `rental statistics: the report thread took over ${WAIT_MS} ms; stopped`);
    this.stop(worker);
  }

  /** Stops the job under way at the report thread's next area; its buffer comes back once it has. */
  private cancel(output: Uint8Array, worker: Worker): void {
    const { control } = this;
    this.lastPlan = null;
    Atomics.store(control, CONTROL.cancel, 1);
    // Its buffer and arena are reused only once it has stopped writing.
    if (Atomics.wait(control, CONTROL.state, STATE.running, WAIT_MS) !== 'timed-out')
      giveBackFirstPartBuffer(output);
    else this.stop(worker);
  }

  /**
   * A report thread that does not stop: ended (another is started after a pause), its buffer and
   * arena left to it (the arena's arrays are forgotten, so the next answers get new ones).
   */
  private stop(worker: Worker): void {
    forgetArena(THREAD_ARENA);
    if (this.worker === worker) this.lost();
    void worker.terminate();
  }

  /** The report thread's message about the current job, if any (those of earlier jobs are dropped). */
  private messageOf(results: MessagePort): { grown?: Uint8Array; error?: string } | undefined {
    for (;;) {
      const received = receiveMessageOnPort(results);
      if (received === undefined) return undefined;
      const message = received.message as { id: number; grown?: Uint8Array; error?: string };
      if (message.id === this.lastJob) return message;
    }
  }

  /** Stops the thread for good (answers are made on one thread from now on). */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    this.results?.close();
    this.results = null;
    await worker?.terminate();
  }
}

/** Whether two plans are the same (same areas, rows and key parts). */
function samePlan(a: PublishPlan, b: PublishPlan | null): boolean {
  if (b === null) return false;
  const sameList = <T>(x: readonly T[], y: readonly T[]) =>
    x.length === y.length && x.every((value, i) => value === y[i]);
  return (
    a.areaCount === b.areaCount &&
    a.areaSlots === b.areaSlots &&
    a.keyPrefix === b.keyPrefix &&
    sameList(a.dwellingSlots, b.dwellingSlots) &&
    sameList(a.bedroomSlots, b.bedroomSlots) &&
    sameList(a.labels, b.labels) &&
    sameList(a.keys, b.keys) &&
    a.suffixes.length === b.suffixes.length &&
    a.suffixes.every((row, i) => sameList(row, b.suffixes[i] as string[]))
  );
}

/** How many areas the report thread publishes: the first areas holding FIRST_SHARE of the base entries. */
function firstAreasOf(work: AnswerWork): number {
  const { areaCount } = work.plan;
  const target = work.entries * FIRST_SHARE;
  let low = 0;
  let high = areaCount;
  // The first a with entriesBefore(a) ≥ target (entriesBefore only grows).
  while (low < high) {
    const mid = (low + high) >> 1;
    if (work.entriesBefore(mid) < target) low = mid + 1;
    else high = mid;
  }
  return Math.min(low, areaCount);
}

/** The process's report thread: every environment's store shares it (answers are made one at a time). */
let shared: { thread: Promise<ReportThread | null>; users: number } | null = null;

/**
 * The process's report thread, started by the first to ask; `release()` when done with it (the last
 * one out stops it). `thread` is null where there is none (one core, or it did not start).
 */
export function acquireReportThread(
  log: ReportThreadLog,
  options: { warmUp?: boolean } = {},
): {
  thread: Promise<ReportThread | null>;
  release(): Promise<void>;
} {
  if (shared === null) shared = { thread: ReportThread.start(log, options), users: 0 };
  const entry = shared;
  entry.users++;
  let released = false;
  return {
    thread: entry.thread,
    async release() {
      if (released) return;
      released = true;
      entry.users--;
      if (entry.users > 0) return;
      if (shared === entry) shared = null;
      await (await entry.thread)?.close();
    },
  };
}
