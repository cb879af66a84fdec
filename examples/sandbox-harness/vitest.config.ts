import { defineConfig } from 'vitest/config';

// A test suite of your own against the sandbox: each test file starts a sandbox of its own (its own
// gateway and databases), so files run side by side in parallel workers.
export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['*.test.ts'],
    // The first start on a machine makes the template (migrations and a seed, once per gateway version).
    hookTimeout: 300_000,
    testTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
