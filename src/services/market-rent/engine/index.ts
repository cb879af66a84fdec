/**
 * The rental statistics engine: what makes a /statistics answer fast. What an answer is, is said in
 * domain/ (`buildReport` and render.ts, the oracle the engine is tested against); the engine makes the
 * same bytes from the same input with packed histograms, shared memory, a second thread and SipHash in
 * WebAssembly.
 *
 * Code outside engine/ comes in through this file: `computeAnswer` answers, `startEngine` starts what
 * answers run on in a process (the report thread, the warm-up, the working memory) and
 * `sipRowUniforms` makes an environment's rounding draws.
 */
import type { Geography } from '../domain/areas.ts';
import type { ReportInput } from '../domain/report.ts';
import type { AnswerFormat, LentAnswer } from './encode.ts';
import { encodeReportLent, reserveWorkingMemory } from './report.ts';
import { acquireReportThread, type ReportThread } from './report-thread.ts';
import { warmUpOnce, warmUpThread } from './warm-up.ts';

export type { AnswerFormat, LentAnswer } from './encode.ts';
export { type RowUniforms, sipRowUniforms } from './row-uniforms.ts';

/** What a process's answers run on (one per environment; the report thread is the process's). */
export interface Engine {
  /** The report thread while it can take answers; null: answers are made on one thread. */
  readonly thread: ReportThread | null;
  /** Gives the report thread back (the last environment out stops it). */
  close(): Promise<void>;
}

/**
 * The answer to a validated query (`parseStatisticsQuery`) from the store's month blocks, in JSON or
 * CSV: the bytes `buildReport` and render.ts define, lent until `release()` (the buffer serves the next
 * answer; encode.ts). On two cores when the engine's report thread is ready (answers of 10,000
 * histogram entries and more), else on this thread: the same bytes either way.
 */
export function computeAnswer(input: ReportInput, format: AnswerFormat, engine?: Engine | null): LentAnswer {
  const thread = engine?.thread ?? null;
  return thread?.usable ? thread.encode(input, format) : encodeReportLent(input, format);
}

/** Where the engine's start reports: its parts cost speed when they fail, never an answer. */
export interface EngineLog {
  warn(details: Record<string, unknown>, message: string): void;
  debug(details: Record<string, unknown>, message: string): void;
}

export interface EngineStart {
  geography: Geography;
  /** The environment's clock: the made-up answers of the warm-up are of its latest period. */
  now: () => Date;
  /** National answers on two cores (the process's report thread, from when it is ready). */
  reportThread: boolean;
  /**
   * Compile the code on made-up national answers and make a national answer's working memory ready,
   * before the server takes requests.
   */
  warmUp: boolean;
  log: EngineLog;
  /** The store's part of the warm-up (decoding made-up month blocks), run beside the engine's. */
  warmUpStore?: () => void;
  /** The histogram entries of the latest period (from the store's block sizes), to size the memory. */
  latestPeriodEntries?: () => Promise<number>;
}

/**
 * Starts what an environment's answers run on. Resolves once the warm-up (with `warmUp`) is done; the
 * report thread starts (and warms its own code up, on its own core) beside this, and answers are made
 * on one thread until it is ready.
 */
export async function startEngine(start: EngineStart): Promise<Engine> {
  const { geography, now, log, warmUp } = start;
  let thread: ReportThread | null = null;
  let release = async (): Promise<void> => {};
  if (start.reportThread) {
    const handle = acquireReportThread(log, { warmUp });
    void handle.thread.then((started) => {
      thread = started;
      if (started !== null && warmUp) {
        warmUpThread(started, geography, now(), {
          done: (ms) => log.debug({ ms: Math.round(ms) }, 'rental statistics: two threads warmed up'),
          failed: (err) =>
            log.warn({ err }, 'rental statistics: warming two threads up failed (only speed is at stake)'),
        });
      }
    });
    release = () => handle.release();
  }
  if (warmUp) {
    // Before the server takes requests: the first real query then runs compiled code (warm-up.ts).
    warmUpOnce(
      geography,
      now(),
      {
        done: (ms) => log.debug({ ms: Math.round(ms) }, 'rental statistics: code warmed up'),
        failed: (err) => log.warn({ err }, 'rental statistics: warming up failed (only speed is at stake)'),
      },
      start.warmUpStore,
    );
    // The working memory of a national answer over the latest period, made ready before the server
    // takes requests (done beside the first query instead, it slowed that query down).
    if (start.latestPeriodEntries) {
      await start.latestPeriodEntries().then(
        (entries) => reserveWorkingMemory(entries),
        (err: unknown) =>
          log.debug({ err }, 'rental statistics: working memory not reserved (only speed is at stake)'),
      );
    }
  }
  return {
    get thread() {
      return thread;
    },
    close: release,
  };
}
