import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { realClock } from '../../../src/platform/clock.ts';
import { DeliveryWorker } from '../../../src/services/nzbn/jobs/delivery.ts';
import { migratedDatabases } from '../../support/runtime.ts';

const databases = await migratedDatabases();
const pool = new pg.Pool({ connectionString: databases.sandbox, max: 2 });
afterAll(async () => {
  await pool.end();
  await databases.drop();
});

// The gateway stops its jobs before it closes the pools: a claim in flight when the worker stops ends on
// the worker's open pool, so shutting down logs no "database unavailable".
describe('the watchlist delivery worker, stopped while it claims', () => {
  it('reports no error', async () => {
    for (let round = 0; round < 5; round++) {
      const errors: unknown[] = [];
      const worker = new DeliveryWorker({
        pool,
        clock: realClock,
        apiBase: 'http://127.0.0.1:9/sandbox/nzbn/v5',
        concurrency: 4,
        onError: (error) => errors.push(error),
      });
      await worker.start(databases.sandbox);
      worker.wake();
      await worker.stop();
      expect(errors.map(String)).toEqual([]);
    }
  });
});
