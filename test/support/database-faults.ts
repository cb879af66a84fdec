import pg from 'pg';
import { vi } from 'vitest';
import { type DatabaseUrls, databaseName } from '../../src/platform/db/urls.ts';

/**
 * Ends every backend of a test gateway's three databases (gateway, sandbox, production), as an operator's
 * `pg_terminate_backend` would, from a connection of its own; answers how many were ended.
 */
export async function terminateBackends(urls: DatabaseUrls): Promise<number> {
  const admin = new pg.Client({ connectionString: urls.gateway });
  admin.on('error', () => {});
  await admin.connect();
  try {
    const result = await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = ANY($1) AND pid <> pg_backend_pid()`,
      [[urls.gateway, urls.sandbox, urls.production].map(databaseName)],
    );
    return result.rowCount ?? 0;
  } finally {
    await admin.end().catch(() => {});
  }
}

/**
 * Ends the databases' backends again and again while a load runs, paced by the load's progress rather
 * than by the clock: after every `every` answers (as `answered()` counts them) until the load is done, at
 * most `times` times. Answers how many backends were ended in all, the load's own end included.
 */
export async function terminateDuringLoad(
  urls: DatabaseUrls,
  load: Promise<unknown>,
  answered: () => number,
  { every = 10, times = 40 } = {},
): Promise<number> {
  let done = false;
  const finished = load.finally(() => {
    done = true;
  });
  let terminated = 0;
  for (let round = 1; round <= times && !done; round++) {
    const mark = round * every;
    await vi.waitFor(
      () => {
        if (!done && answered() < mark) throw new Error(`${answered()} of ${mark} answers so far`);
      },
      { timeout: 60_000, interval: 10 },
    );
    if (!done) terminated += await terminateBackends(urls);
  }
  await finished;
  return terminated + (await terminateBackends(urls));
}
