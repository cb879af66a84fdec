/**
 * The report thread itself (see report-thread.ts): publishes the rows of an answer's first areas into
 * the buffer the request's thread lends it, each area as soon as that thread says its histograms are
 * in the arena, while that thread goes on making the next areas' histograms.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { answerEncoder } from './encode.ts';
import { marketRentGeography } from './geography.ts';
import { AreaPublisher, type PublishPlan } from './report.ts';
import { CONTROL, STATE, type ThreadJob, WAIT_MS } from './report-thread-protocol.ts';
import { type RowUniforms, sipRowUniforms } from './siphash.ts';
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
  const encoder = answerEncoder(job.format, job.areaDefinition, job.periodCovered, 'first', job.output);
  const publisher = new AreaPublisher(plan, uniformsOf(job.sipKey), encoder);
  for (let a = 0; a < job.firstAreas; a++) {
    for (;;) {
      if (Atomics.load(control, CONTROL.cancel) !== 0) throw new Cancelled();
      const ready = Atomics.load(control, CONTROL.progress);
      if (ready > a) break;
      if (Atomics.wait(control, CONTROL.progress, ready, WAIT_MS) === 'timed-out')
        throw new Error(`no histograms for area ${a} after ${WAIT_MS} ms`);
    }
    publisher.publish(a, job.arrays);
  }
  const part = encoder.finishPart();
  // A part that outgrew the lent buffer is in a new one: sent before the state says done.
  if (part.buffer !== job.output) results.postMessage({ grown: part.buffer });
  Atomics.store(control, CONTROL.length, part.length);
  Atomics.store(control, CONTROL.rows, part.rows);
  Atomics.store(control, CONTROL.state, STATE.done);
  Atomics.notify(control, CONTROL.state);
}

parentPort?.on('message', (job: ThreadJob) => {
  try {
    run(job);
  } catch (error) {
    if (!(error instanceof Cancelled))
      results.postMessage({ error: error instanceof Error ? error.message : String(error) });
    Atomics.store(job.control, CONTROL.state, STATE.failed);
    Atomics.notify(job.control, CONTROL.state);
  }
});
// Its code compiled on made-up national answers (as the request's thread does at start), then ready.
if (warmUp) warmUpReports(marketRentGeography(), new Date());
parentPort?.postMessage({ ready: true });
