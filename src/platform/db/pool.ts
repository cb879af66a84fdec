import pg from 'pg';
import { DatabaseHealth, DatabaseUnavailableError, type HealthListener } from './faults.ts';
import { databaseName, withDatabase } from './urls.ts';

// int8 (counts, sums) come back as strings by default; every int8 we store fits in a double.
pg.types.setTypeParser(20, (value: string) => Number(value));

/**
 * A database the process uses: its pool, its breaker, and how to close it. Queries are parameterised
 * SQL through the pool (`pool.query`, `withTransaction`); no query builder (see docs/design.md).
 */
export interface Database {
  url: string;
  pool: pg.Pool;
  /** The database's breaker: down while the server cannot be reached (see faults.ts). */
  health: DatabaseHealth;
  /**
   * Stops using the database for a while (its content is about to be replaced under the same name: a
   * sandbox reset or restore): a new connection is refused at once with a 503 error naming `reason`,
   * and the pool's idle connections are closed. `resume` closes those left idle meanwhile and lets
   * connections be made again.
   */
  suspend(reason: string): void;
  resume(): void;
  /**
   * Tells `handler` each time the database's content was replaced under the same name (after `resume`):
   * what a process keeps in memory of it (a cache that is not on a notice listener) is dropped there.
   * Returns the function that stops telling it.
   */
  onReplaced(handler: () => void): () => void;
  /** Calls the `onReplaced` handlers (the process that resumed the database after a replacement). */
  replaced(): void;
  close(): Promise<void>;
}

export interface PoolOptions {
  /** Connections at most (default 10). */
  max?: number;
  /**
   * Milliseconds a caller waits for a free connection (or for a new one to connect) before the
   * request fails with a 503; an exhausted pool never becomes an unbounded queue. Default 5,000; 0 waits
   * without limit (a worker whose lanes share a few connections by design).
   */
  acquireTimeoutMs?: number;
  /** Server-side `statement_timeout` in milliseconds; 0 for none (default: none). */
  statementTimeoutMs?: number;
  /** A name for logs and errors (`gateway`, `sandbox`, `production`); default: the database's name. */
  name?: string;
  /** Told when the database goes away and comes back. */
  onHealth?: HealthListener;
}

type ConnectCallback = (
  error: Error | undefined,
  client: pg.PoolClient | undefined,
  // biome-ignore lint/suspicious/noExplicitAny: pg's own signature.
  done: (release?: any) => void,
) => void;

/**
 * A pg pool that survives its server:
 * - every connection it opens has an `error` listener for its whole life, so a connection that the
 *   server ends while it is checked out (between two statements of a transaction, say) is reported to
 *   the statement that uses it next, never as an unhandled 'error' event that ends the process;
 * - while its breaker is open (the server cannot be reached) it refuses at once, so new requests get a
 *   503 without waiting for a connect timeout, and the first successful probe lets them through again.
 */
class SurvivingPool extends pg.Pool {
  /** The error every connect meets while suspended (see `Database.suspend`). */
  private suspension: (() => Error) | undefined;
  /** The connections now idle in the pool, followed through the pool's own events. */
  private readonly idle = new Set<pg.Client>();

  constructor(
    config: pg.PoolConfig,
    readonly health: DatabaseHealth,
  ) {
    super(config);
    // An idle client that loses its server must not crash the process: the pool replaces it.
    this.on('error', () => {});
    this.on('connect', (client) => {
      client.on('error', () => {});
    });
    this.on('release', (error: Error | undefined, client: pg.Client) => {
      if (!error) this.idle.add(client);
    });
    this.on('acquire', (client) => this.idle.delete(client));
    this.on('remove', (client) => this.idle.delete(client));
  }

  suspend(reason: string, name: string): void {
    this.suspension = () => new DatabaseUnavailableError(name, reason);
    this.closeIdle(reason);
  }

  resume(reason: string): void {
    // Connections that went back to the pool while it was suspended were made before the replacement.
    this.closeIdle(reason);
    this.suspension = undefined;
  }

  /**
   * Closes every idle connection the pool holds. pg-pool removes (and ends) an idle client that emits
   * `error` (its documented answer to a connection the server ended while idle); a connection checked
   * out now is not idle, and its next statement fails on its own once the server ends it.
   */
  private closeIdle(reason: string): void {
    for (const client of [...this.idle]) {
      this.idle.delete(client);
      client.emit('error', new Error(`connection closed: ${reason}`));
    }
  }

  // pg-pool calls connect(callback) from query(); our code calls connect() for a promise.
  // biome-ignore lint/suspicious/noExplicitAny: both of pg.Pool's overloads are served here.
  override connect(callback?: ConnectCallback): any {
    if (this.suspension || !this.health.up) {
      const error = this.suspension?.() ?? this.health.unavailable();
      if (!callback) return Promise.reject(error);
      process.nextTick(() => callback(error, undefined, () => {}));
      return undefined;
    }
    if (callback) {
      return super.connect((error, client, done) => {
        if (error) this.health.connectFailed(error);
        callback(error, client, done);
      });
    }
    return super.connect().catch((error: unknown) => {
      this.health.connectFailed(error);
      throw error;
    });
  }
}

export function openDatabase(url: string, options: number | PoolOptions = {}): Database {
  const settings = typeof options === 'number' ? { max: options } : options;
  const health = new DatabaseHealth(settings.name ?? databaseName(url), url);
  if (settings.onHealth) health.on(settings.onHealth);
  const pool = new SurvivingPool(
    {
      connectionString: url,
      max: settings.max ?? 10,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: settings.acquireTimeoutMs ?? 5_000,
      ...(settings.statementTimeoutMs ? { statement_timeout: settings.statementTimeoutMs } : {}),
    },
    health,
  );
  const replacedHandlers = new Set<() => void>();
  const name = settings.name ?? databaseName(url);
  return {
    url,
    pool,
    health,
    suspend: (reason) => pool.suspend(reason, name),
    resume: () => pool.resume('the database was replaced'),
    onReplaced(handler) {
      replacedHandlers.add(handler);
      return () => replacedHandlers.delete(handler);
    },
    replaced() {
      for (const handler of replacedHandlers) handler();
    },
    close: async () => {
      health.close();
      if (!pool.ended) await pool.end();
    },
  };
}

/** Resolves when the database answers a statement (the readiness check), rejects when it does not. */
export async function ping(pool: pg.Pool): Promise<void> {
  await pool.query('SELECT 1');
}

/**
 * Creates the database named in `url` when it does not exist; safe when two processes race. True when
 * this call created it.
 */
export async function ensureDatabase(url: string): Promise<boolean> {
  const name = databaseName(url);
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount !== 0) return false;
    return await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`).then(
      () => true,
      (error: { code?: string }) => {
        // 42P04 duplicate_database, 23505 when the catalogue insert races another CREATE DATABASE.
        if (error.code !== '42P04' && error.code !== '23505') throw error;
        return false;
      },
    );
  } finally {
    await client.end();
  }
}

export async function dropDatabase(url: string): Promise<void> {
  const name = databaseName(url);
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/**
 * Runs `work` in one transaction on one connection: committed when it resolves, rolled back when it
 * throws. Given a pool, the connection is taken from it and given back; a connection that failed (ended
 * by the server, say) is destroyed, never handed out again. Given a connection the caller holds (a
 * worker thread's own client, a loop of transactions on one connection), the transaction runs on it and
 * the caller keeps it.
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T>;
export async function withTransaction<T, C extends pg.ClientBase>(
  client: C,
  work: (client: C) => Promise<T>,
): Promise<T>;
export async function withTransaction<T>(
  target: pg.Pool | pg.ClientBase,
  // Each overload hands `work` the kind of connection it was given.
  work: (client: never) => Promise<T>,
): Promise<T> {
  const run = work as (client: pg.ClientBase) => Promise<T>;
  if (!(target instanceof pg.Pool)) return inTransaction(target, run);
  const client = await target.connect();
  let broken: Error | undefined;
  try {
    return await inTransaction(client, run, (rollbackError) => {
      broken = rollbackError;
    });
  } finally {
    client.release(broken);
  }
}

async function inTransaction<T, C extends pg.ClientBase>(
  client: C,
  work: (client: C) => Promise<T>,
  onRollbackFailed: (error: Error) => void = () => {},
): Promise<T> {
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(onRollbackFailed);
    throw error;
  }
}

/**
 * Runs `work` while this process holds the session-level advisory lock `key`, on a connection of its own
 * that `work` is handed (what it reads and writes there is seen by the next holder): two processes
 * starting at once do the work one after the other.
 */
export async function withAdvisoryLock<T>(
  pool: pg.Pool,
  key: number,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [key]);
    return await work(client);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => {});
    client.release();
  }
}

/**
 * Runs `work` while this process holds the session-level advisory lock `key` of the database at `url`,
 * on a connection of its own made for it (not a pool's: a caller waiting for the lock holds no pooled
 * connection meanwhile). Long work that takes turns (a sandbox reset) waits here.
 */
export async function withSessionLock<T>(url: string, key: number, work: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: 'rsg lock' });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [key]);
    return await work();
  } finally {
    // Ending the session gives the lock back.
    await client.end().catch(() => {});
  }
}

/**
 * Whether nobody holds the session-level advisory lock `key` now (taken and given back at once, in one
 * statement on one connection): a process that waits for another's work under that lock asks it.
 */
export async function advisoryLockFree(pool: pg.Pool, key: number): Promise<boolean> {
  const result = await pool.query<{ free: boolean }>(
    'SELECT CASE WHEN pg_try_advisory_lock($1) THEN pg_advisory_unlock($1) ELSE false END AS free',
    [key],
  );
  return result.rows[0]?.free === true;
}
