import type { SipKey } from '../domain/siphash.ts';
import type { AnswerFormat } from './encode.ts';
import type { AnswerSources, PublishPlan, SlotArrays } from './report.ts';

/**
 * What the request's thread and the report thread say to each other about one answer. The job goes as
 * a message (its arrays are shared memory, not copied); everything after, both ways, goes through the
 * control words, because the request's thread is busy computing and cannot take messages meanwhile.
 */
export interface ThreadJob {
  /** The job's number: the report thread works and signals only while CONTROL.job holds it. */
  id: number;
  /** null: the last job's plan (the report thread keeps it). */
  plan: PublishPlan | null;
  /** The report thread makes the histograms and rows of areas 0 … firstAreas − 1. */
  firstAreas: number;
  format: AnswerFormat;
  areaDefinition: string;
  periodCovered: string;
  sipKey: SipKey;
  /** What the histograms are made from (the request's thread's arrays, read only). */
  sources: AnswerSources;
  /** Where the report thread makes them: an arena lent to it, and its areas' counts. */
  arrays: SlotArrays;
  /** An answers' buffer (shared memory) for the first part. */
  output: Uint8Array;
  control: Int32Array;
}

/** Indexes of the control words (an Int32Array on shared memory). */
export const CONTROL = {
  /**
   * 1 once the report thread has made its areas' base histograms and their sums for the ALL area
   * (which the request's thread makes from them), −1 when it gave up before: written by the report thread.
   */
  bases: 0,
  state: 1,
  /** The first part's bytes and rows, once done. */
  length: 2,
  rows: 3,
  /** Not 0: the request's thread gave up on this job (the report thread stops at its next area). */
  cancel: 4,
  /** The number of the job under way (written first by the request's thread for each job). */
  job: 5,
} as const;
export const CONTROL_WORDS = 6;

export const STATE = { running: 1, done: 2, failed: 3 } as const;

/**
 * The longest the request's thread waits for the report thread (for its base histograms, then for its
 * part) before giving up on a job and making that part itself.
 */
export const WAIT_MS = 10_000;
