import { configDefaults, defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/support/sequencer.ts';
import { unitTestFiles } from './test/support/tiers.ts';

// The unit tier (no database, no server, no network: test/support/tiers.ts reads it from the files) and
// the integration tier (everything else). `npm test` runs both; `npm run test:unit` the first alone.
const UNIT = unitTestFiles(import.meta.dirname);

export default defineConfig({
  test: {
    // A test that needs longer (real processes, nginx, a browser) says so itself, with the reason.
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One worker process runs file after file without a fresh module graph per file: the libraries
    // (Fastify, pg, oidc-provider, …) are loaded once per worker, not once per file, which was about a
    // sixth of a pass's CPU. Files therefore must not leave process state behind: worker-folders.ts
    // puts the folder variables back before each file, and every file closes what it opens.
    isolate: false,
    // Vitest's default is one worker fewer than the CPUs: one worker on a 2-core machine. The files wait
    // on PostgreSQL, Redis and child processes more than they compute, so three run side by side.
    maxWorkers: 3,
    // Slowest files first when the last run's durations are not known (test/support/sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: UNIT,
          // Connections and listening refused: a file that needs them is not a unit test.
          setupFiles: ['test/support/worker-folders.ts', 'test/support/offline.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...UNIT],
          globalSetup: ['test/support/global-setup.ts'],
          // Per worker: the folders the product writes files to, in a temporary folder (worker-folders.ts).
          setupFiles: ['test/support/worker-folders.ts'],
        },
      },
    ],
  },
});
