// `register-services-gateway/testing/jest/global-setup`, Jest's `globalSetup`: one sandbox per worker
// Jest may start (`maxWorkers`), started side by side in Jest's own process (plain Node, where the
// harness's entry registers its loader), described to the workers in `RSG_JEST_SANDBOXES` (Jest starts
// its workers after this, with this process's environment). `sandbox.cjs` reads it inside test files;
// `global-teardown.js` stops them.
import { startSandbox } from '../entry.js';
import { ENV, RUNNING } from './shared.js';

/**
 * A `globalSetup` starting the sandboxes with these options (`startSandbox`'s, the same for every
 * worker), e.g. in a `globalSetup` file of a suite's own:
 * `export default sandboxSetup({ clockAt: '2026-01-05T09:00:00Z' })`. Without a `log`, each sandbox's
 * progress lines and its gateway's warnings go to standard error, named by worker.
 */
export function sandboxSetup(options = {}) {
  return async function globalSetup(globalConfig) {
    if (globalThis[RUNNING]) throw new Error('the sandboxes of this Jest run are already started');
    const count = Math.max(1, Number(globalConfig?.maxWorkers) || 1);
    const started = await Promise.allSettled(
      Array.from({ length: count }, (_, index) =>
        startSandbox({
          log: (line) => process.stderr.write(`sandbox of worker ${index + 1}: ${line}\n`),
          ...options,
        }),
      ),
    );
    const sandboxes = started.filter((result) => result.status === 'fulfilled').map((result) => result.value);
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) {
      await Promise.allSettled(sandboxes.map((sandbox) => sandbox.stop()));
      throw failed.reason;
    }
    globalThis[RUNNING] = sandboxes;
    process.env[ENV] = JSON.stringify(
      sandboxes.map(({ url, registers, keys, userId, scale }) => ({ url, registers, keys, userId, scale })),
    );
  };
}

export default sandboxSetup();
