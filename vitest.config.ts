import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Per worker: the folders the product writes files to, in a temporary folder (worker-folders.ts).
    setupFiles: ['test/support/worker-folders.ts'],
    // A test that needs longer (real processes, nginx, a browser) says so itself, with the reason.
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the CPUs: one worker on a 2-core machine. The files wait
    // on PostgreSQL, Redis and child processes more than they compute, so three run side by side.
    maxWorkers: 3,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
