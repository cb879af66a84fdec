import pg from 'pg';
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
