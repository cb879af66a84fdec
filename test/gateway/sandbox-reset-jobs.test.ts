import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobsHandle, startJobs } from '../../src/runtime.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';

/**
 * A process that runs the background jobs (`rsg start`, `rsg worker`) stops the sandbox's during a reset
 * and starts them again on the reset sandbox; production's run on untouched.
 */
let gateway: TestGateway;
let jobs: JobsHandle;

beforeAll(async () => {
  gateway = await testGateway({ clockMode: 'virtual' });
  await gateway.runtime.sandboxStates.keepSeeded('small');
  jobs = await startJobs(gateway.runtime, 'http://127.0.0.1:9');
}, 60_000);
afterAll(async () => {
  await jobs?.stop();
  await gateway?.close();
});

describe('background jobs through a sandbox reset', () => {
  it("the sandbox's are started again, production's keep running", async () => {
    const before = new Map(jobs.running);
    expect([...before.keys()].some((name) => name.startsWith('sandbox-'))).toBe(true);
    await gateway.runtime.sandboxStates.reset('small');
    expect([...jobs.running.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [name, running] of jobs.running) {
      if (name.startsWith('sandbox-')) expect(running, name).not.toBe(before.get(name));
      else expect(running, name).toBe(before.get(name));
    }
    // Every job runs on the reset sandbox.
    await jobs.settle();
  }, 60_000);

  it('stopping the jobs takes them off the reset: a later reset starts none', async () => {
    await jobs.stop();
    await gateway.runtime.sandboxStates.reset('small');
    expect(jobs.running.size).toBe(0);
  }, 60_000);
});
