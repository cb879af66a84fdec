import pg from 'pg';
import { withDatabase } from './urls.ts';

/**
 * Whole databases on one server, for the sandbox's kept states (platform/sandbox/): copies made with
 * `CREATE DATABASE … TEMPLATE` (PostgreSQL copies the template's files; it needs no connection to the
 * template nor to the copy, and no other session connected to the template), a database closed to
 * connections and emptied of them, and two databases swapping names in one transaction. Each runs on a
 * connection of its own to the server's maintenance database (`postgres`), never to the databases it
 * works on. `url` is the address of any database on that server.
 */
async function onServer<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  client.on('error', () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

const quoted = (client: pg.Client, name: string) => client.escapeIdentifier(name);

/**
 * Creates `target` as a copy of `template` (nobody may be connected to `template`). `connectable: false`
 * makes a copy nobody can connect to: a kept state, so that copying it again never meets a session.
 * `sent` is called once the server has the statement, so the caller can work while the server copies.
 */
export async function copyDatabase(
  url: string,
  template: string,
  target: string,
  options: { connectable: boolean; sent?: () => void },
): Promise<void> {
  await onServer(url, async (client) => {
    const copied = client.query(
      `CREATE DATABASE ${quoted(client, target)} TEMPLATE ${quoted(client, template)}` +
        (options.connectable ? '' : ' ALLOW_CONNECTIONS false'),
    );
    // On a connected client the statement is written to the server's socket by now.
    options.sent?.();
    await copied;
  });
}

/** Whether the database exists. */
export async function databaseExists(url: string, name: string): Promise<boolean> {
  return onServer(url, async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return (found.rowCount ?? 0) > 0;
  });
}

/**
 * Waits until no client session (the server's own workers, such as autovacuum, aside) is connected to
 * the database, or until `deadline` (epoch milliseconds); resolves either way.
 */
export async function sessionsEnded(url: string, name: string, deadline: number): Promise<void> {
  await onServer(url, async (client) => {
    for (;;) {
      const result = await client.query<{ sessions: number }>(
        `SELECT count(*)::int AS sessions FROM pg_stat_activity
          WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
        [name],
      );
      if ((result.rows[0]?.sessions ?? 0) === 0 || Date.now() >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
}

/**
 * Closes the database to new connections and ends every session connected to it, waiting (at most
 * `timeoutMs`) until none is left. A session ended this way sees PostgreSQL's 57P01 (answered 503); a
 * process that tries to connect meanwhile sees 55000 "not currently accepting connections" (503 too).
 */
export async function closeDatabase(url: string, name: string, timeoutMs = 10_000): Promise<void> {
  await onServer(url, async (client) => {
    await client.query(`ALTER DATABASE ${quoted(client, name)} ALLOW_CONNECTIONS false`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const left = await client.query<{ sessions: number }>(
        `SELECT count(pg_terminate_backend(pid))::int AS sessions FROM pg_stat_activity
          WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
        [name],
      );
      if ((left.rows[0]?.sessions ?? 0) === 0) return;
      if (Date.now() > deadline) {
        throw new Error(`sessions connected to ${name} did not end within ${timeoutMs} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
}

/** Opens the database to connections again (after `closeDatabase`). */
export async function reopenDatabase(url: string, name: string): Promise<void> {
  await onServer(url, (client) =>
    client.query(`ALTER DATABASE ${quoted(client, name)} ALLOW_CONNECTIONS true`),
  );
}

/**
 * Puts `replacement` in the place of `live`, in one transaction: `live` is renamed `retired` and
 * `replacement` takes its name, so the name never names nothing. Nobody may be connected to either.
 */
export async function swapDatabases(
  url: string,
  names: { live: string; replacement: string; retired: string },
): Promise<void> {
  await onServer(url, async (client) => {
    await client.query('BEGIN');
    try {
      await client.query(
        `ALTER DATABASE ${quoted(client, names.live)} RENAME TO ${quoted(client, names.retired)}`,
      );
      await client.query(
        `ALTER DATABASE ${quoted(client, names.replacement)} RENAME TO ${quoted(client, names.live)}`,
      );
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  });
}

/** Drops the database if it exists, ending the sessions connected to it. */
export async function dropDatabaseNamed(url: string, name: string): Promise<void> {
  await onServer(url, (client) =>
    client.query(`DROP DATABASE IF EXISTS ${quoted(client, name)} WITH (FORCE)`),
  );
}

/**
 * The databases whose names start with `prefix` (taken literally), by name, or with `byAge` in the
 * order they were made (their OIDs), oldest first.
 */
export async function databasesNamed(url: string, prefix: string, byAge = false): Promise<string[]> {
  return onServer(url, async (client) => {
    const result = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY ${byAge ? 'oid' : 'datname'}`,
      [prefix],
    );
    return result.rows.map((row) => row.datname);
  });
}
