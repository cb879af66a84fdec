/**
 * The report thread itself (see report-thread.ts): makes the histograms of an answer's first areas in
 * the arena the request's thread lends it (their base histograms first: the ALL area's are made from
 * them), then their rows into the buffer it lends, while that thread makes the other areas'.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { marketRentGeography } from '../store/geography.ts';
import { Arena } from './arena.ts';
import { answerEncoder } from './encode.ts';
import { AreaHistograms, AreaPublisher, type PublishPlan } from './report.ts';
import { CONTROL, STATE, type ThreadJob } from './report-thread-protocol.ts';
import { type RowUniforms, sipRowUniforms } from './row-uniforms.ts';
import { warmUpReports } from './warm-up.ts';

const { results, warmUp } = workerData as { results: MessagePort; warmUp: boolean };

/** The row uniforms of the last key (one per environment), kept with their per-area state. */
let uniforms: RowUniforms | undefined;

function uniformsOf(key: ThreadJob['sipKey']): RowUniforms {
  const last = uniforms?.sipKey;
  if (uniforms === undefined || last === undefined || last.some((word, i) => word !== key[i]))
    uniforms = sipRowUniforms(key);
  return uniforms;
}

class Cancelled extends Error {}

/** The last job's plan: a job without one has the same. */
let lastPlan: PublishPlan | null = null;

function run(job: ThreadJob): void {
  const { control } = job;
  const plan = job.plan ?? lastPlan;
  if (plan === null) throw new Error('a job without a plan, and none before it');
  lastPlan = plan;
  const { arrays, firstAreas } = job;
  const histograms = new AreaHistograms(
    job.sources,
    new Arena(0, 'lent', arrays),
    arrays.closed,
    arrays.current,
  );
  // Given up on, or another job under way (this one was given up on): stop, signal nothing.
  const cancelled = () =>
    Atomics.load(control, CONTROL.cancel) !== 0 || Atomics.load(control, CONTROL.job) !== job.id;
  for (let a = 0; a < firstAreas; a++) {
    if (cancelled()) throw new Cancelled();
    histograms.base(a, firstAreas);
  }
  // Its part of the ALL area, which the request's thread makes last from every area's.
  histograms.partial(firstAreas);
  if (cancelled()) throw new Cancelled();
  Atomics.store(control, CONTROL.bases, 1);
  Atomics.notify(control, CONTROL.bases);
  const encoder = answerEncoder(job.format, job.areaDefinition, job.periodCovered, 'first', job.output);
  const publisher = new AreaPublisher(plan, uniformsOf(job.sipKey), encoder);
  for (let a = 0; a < firstAreas; a++) {
    if (cancelled()) throw new Cancelled();
    // Each area's ALL levels just before its rows: its histograms are still in the cache.
    histograms.levels(a);
    publisher.publish(a, arrays);
  }
  const part = encoder.finishPart();
  if (cancelled()) throw new Cancelled();
  // A part that outgrew the lent buffer is in a new one: sent before the state says done.
  if (part.buffer !== job.output) results.postMessage({ id: job.id, grown: part.buffer });
  Atomics.store(control, CONTROL.length, part.length);
  Atomics.store(control, CONTROL.rows, part.rows);
  Atomics.store(control, CONTROL.state, STATE.done);
  Atomics.notify(control, CONTROL.state);
}

parentPort?.on('message', (job: ThreadJob) => {
  try {
    run(job);
  } catch (error) {
    const { control } = job;
    // A job given up on for another one: its words are the other job's now.
    if (Atomics.load(control, CONTROL.job) !== job.id) return;
    if (!(error instanceof Cancelled))
      results.postMessage({ id: job.id, error: error instanceof Error ? error.message : String(error) });
    // Whoever waits, for the base histograms or for the part, is told.
    Atomics.compareExchange(control, CONTROL.bases, 0, -1);
    Atomics.notify(control, CONTROL.bases);
    Atomics.store(control, CONTROL.state, STATE.failed);
    Atomics.notify(control, CONTROL.state);
  }
});
// Its code compiled on made-up national answers (as the request's thread does at start), then ready.
if (warmUp) warmUpReports(marketRentGeography(), new Date());
parentPort?.postMessage({ ready: true });
