import type { AnswerFormat } from './encode.ts';
import type { PublishPlan, SlotArrays } from './report.ts';
import type { SipKey } from './siphash.ts';

/**
 * What the request's thread and the report thread say to each other about one answer. The job goes as
 * a message (its arrays are shared memory, not copied); everything after, both ways, goes through the
 * control words, because the request's thread is busy computing and cannot take messages meanwhile.
 */
export interface ThreadJob {
  /** null: the last job's plan (the report thread keeps it). */
  plan: PublishPlan | null;
  /** The report thread publishes areas 0 … firstAreas − 1. */
  firstAreas: number;
  format: AnswerFormat;
  areaDefinition: string;
  periodCovered: string;
  sipKey: SipKey;
  arrays: SlotArrays;
  /** An answers' buffer (shared memory) for the first part. */
  output: Uint8Array;
  control: Int32Array;
}

/** Indexes of the control words (an Int32Array on shared memory). */
export const CONTROL = {
  /** How many areas' histograms are in the arena (written by the request's thread). */
  progress: 0,
  state: 1,
  /** The first part's bytes and rows, once done. */
  length: 2,
  rows: 3,
  /** Not 0: the request's thread gave up on this job (the report thread stops at its next area). */
  cancel: 4,
} as const;
export const CONTROL_WORDS = 5;

export const STATE = { running: 1, done: 2, failed: 3 } as const;

/**
 * The longest either side waits for the other before giving up on a job: the report thread for an
 * area's histograms, the request's thread for the first part (it then makes that part itself).
 */
export const WAIT_MS = 10_000;
