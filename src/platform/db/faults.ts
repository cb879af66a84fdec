import pg from 'pg';

/**
 * Database faults: which errors mean "the database is not there right now" (as opposed to a bug or a
 * client's bad input), and a per-database breaker that answers at once while the server is unreachable
 * and closes again as soon as a probe connects.
 *
 * Policy (docs/operations.md): a request that meets such a fault gets 503 with `Retry-After` in its
 * API's dialect; nothing half-written stays behind (PostgreSQL rolls back a transaction whose connection
 * ends); background jobs log the outage once, pause and resume where they stopped.
 */

/** Seconds a client is asked to wait after a database fault (`Retry-After`). */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** What a request meets while its database is unreachable (the breaker is open). */
export class DatabaseUnavailableError extends Error {
  readonly code = 'RSG_DB_UNAVAILABLE';
  constructor(
    readonly database: string,
    readonly reason: string,
  ) {
    super(`the ${database} database is unavailable: ${reason}`);
    this.name = 'DatabaseUnavailableError';
  }
}

/** Raised by the pool when no connection frees up within the acquire timeout. */
export const POOL_ACQUIRE_TIMEOUT = 'timeout exceeded when trying to connect';

/**
 * PostgreSQL's error classes, gone through once (Appendix A, "PostgreSQL Error Codes"): the conditions
 * that mean "the database cannot serve this now; the same request later may well succeed". Each is
 * answered 503 with `Retry-After` in the API's dialect (the statement's transaction was rolled back, so
 * nothing is half-written). Everything else that PostgreSQL raises is either the caller's input (mapped
 * to 4xx where a register expects it), our bug or a setting of the operator's, and stays a 500.
 *
 * | SQLSTATE | condition | why it is "unavailable, try again" |
 * |---|---|---|
 * | class 08 | connection exception (08000, 08001, 08003, 08004 rejected, 08006 failure, 08007, 08P01) | the connection is gone or was never made |
 * | class 53 | insufficient resources (53000, 53100 disk full, 53200 out of memory, 53300 too many connections, 53400 configuration limit exceeded) | the server is overloaded or full |
 * | 57P01, 57P02, 57P03 | admin shutdown (`pg_terminate_backend`, fast shutdown), crash shutdown, cannot connect now (starting up, shutting down, in recovery) | operator intervention; the server comes back |
 * | 57P04, 57P05 | database dropped, idle session timeout | the session was ended under us; a new one answers or fails on its own |
 * | 57014 | query canceled (`statement_timeout`, a cancel) | the statement took too long now; the same request later may not |
 * | 25P03, 25P04 | idle-in-transaction and transaction timeout | the server ended a transaction that took too long |
 * | 25006 | read-only SQL transaction | a write reached a read-only server (a standby after a failover, or `default_transaction_read_only` set for maintenance) |
 * | 55P03 | lock not available (`lock_timeout`, `NOWAIT`) | another transaction holds the row now |
 * | 55000, on connecting | "database … is not currently accepting connections" (`ALLOW_CONNECTIONS false`) | the operator closed the database for a while. 55000 is a generic class (it also means, for example, `currval` before `nextval`, our bug): it counts only with this message, which PostgreSQL sends only on connecting |
 * | 40001, 40P01 | serialization failure (also "conflict with recovery" on a standby), deadlock detected | retryable by definition |
 * | 58000, 58030 | system error, I/O error | the server's machine failed under it |
 * | 72000 | snapshot too old | the statement's snapshot outlived `old_snapshot_threshold` |
 *
 * Not on the list, on purpose: 40003 statement completion unknown (a retry could apply a write twice),
 * 58P01/58P02 (a missing or duplicate file: installation), class 28 and 3D000 (wrong credentials or
 * database name: configuration), class XX (internal error, data corrupted).
 */
const UNAVAILABLE_SQLSTATE =
  /^(08|53)|^(57P01|57P02|57P03|57P04|57P05|57014|25P03|25P04|25006|55P03|40001|40P01|58000|58030|72000)$/;
/** 55000 means "unavailable" only as the refusal of a database closed to connections. */
const NOT_ACCEPTING_CONNECTIONS = /is not currently accepting connections/;
const UNAVAILABLE_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'RSG_DB_UNAVAILABLE',
]);
const UNAVAILABLE_MESSAGE =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|is not queryable|Client was closed|Cannot use a pool after calling end|Connection ended|the database system is (starting up|shutting down|in recovery mode)/i;

function walk(error: unknown, test: (e: { code?: unknown; message?: unknown }) => boolean): boolean {
  let current = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    if (test(current)) return true;
    current = current.cause as typeof current;
  }
  return false;
}

/** True when `error` means the database is unreachable, restarting, overloaded or timed out. */
export function isDatabaseUnavailable(error: unknown): boolean {
  return walk(error, (e) => {
    const code = typeof e.code === 'string' ? e.code : '';
    if (code && (UNAVAILABLE_ERRNO.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
    if (typeof e.message !== 'string') return false;
    if (code === '55000') return NOT_ACCEPTING_CONNECTIONS.test(e.message);
    return UNAVAILABLE_MESSAGE.test(e.message);
  });
}

/** True when a failed connect means the server cannot be reached at all (opens the breaker). */
function isServerDown(error: unknown): boolean {
  return walk(error, (e) => {
    const code = typeof e.code === 'string' ? e.code : '';
    if (code === '57P03' || code === '57P01' || code === '57P02') return true;
    if (code === '55000' && typeof e.message === 'string' && NOT_ACCEPTING_CONNECTIONS.test(e.message))
      return true;
    if (code && UNAVAILABLE_ERRNO.has(code) && code !== 'RSG_DB_UNAVAILABLE') return true;
    return typeof e.message === 'string' && /connection timeout|Connection terminated/i.test(e.message);
  });
}

export type HealthListener = (state: 'down' | 'up', reason: string) => void;

/**
 * One database's breaker. Closed (up) until a new connection fails because the server cannot be
 * reached; then open (down): the pool refuses at once, without waiting for a TCP or connect timeout, and
 * a probe tries a fresh connection every `probeMs`; the first that answers closes it again.
 */
export class DatabaseHealth {
  private downSince: number | undefined;
  private reason = '';
  private probing: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<HealthListener>();
  private closed = false;

  constructor(
    readonly name: string,
    private readonly url: string,
    private readonly probeMs = 500,
    private readonly connectTimeoutMs = 2_000,
  ) {}

  get up(): boolean {
    return this.downSince === undefined;
  }

  /** Why it is down, or undefined when up. */
  get downReason(): string | undefined {
    return this.up ? undefined : this.reason;
  }

  on(listener: HealthListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The error a request gets while the breaker is open. */
  unavailable(): DatabaseUnavailableError {
    return new DatabaseUnavailableError(this.name, this.reason || 'not reachable');
  }

  /** Told of every failed connect: opens the breaker when the server is not there. */
  connectFailed(error: unknown): void {
    if (this.closed || !isServerDown(error) || this.downSince !== undefined) return;
    this.downSince = Date.now();
    this.reason = error instanceof Error ? error.message : String(error);
    for (const listener of this.listeners) listener('down', this.reason);
    this.scheduleProbe();
  }

  private scheduleProbe(): void {
    if (this.closed || this.probing) return;
    this.probing = setTimeout(() => {
      this.probing = undefined;
      void this.probe();
    }, this.probeMs);
    this.probing.unref();
  }

  private async probe(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: this.connectTimeoutMs,
    });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
      if (this.downSince !== undefined && !this.closed) {
        const seconds = ((Date.now() - this.downSince) / 1000).toFixed(1);
        this.downSince = undefined;
        this.reason = '';
        for (const listener of this.listeners) listener('up', `after ${seconds} s`);
      }
    } catch (error) {
      this.reason = error instanceof Error ? error.message : String(error);
      this.scheduleProbe();
    } finally {
      client.end().catch(() => {});
    }
  }

  close(): void {
    this.closed = true;
    if (this.probing) clearTimeout(this.probing);
    this.probing = undefined;
  }
}

/**
 * Logs a background job's database outage once, not once a second: the first failure that means the
 * database is away is a warning ("paused"), later ones are silent, and the first success afterwards
 * says "resumed". Other errors are logged as errors when their message is new (a refused password is
 * one line, not one a retry), and the first success after them says so.
 */
export class OutageLog {
  private since: number | undefined;
  /** The message of the other error logged last, while failures go on. */
  private failure: string | undefined;

  constructor(
    private readonly what: string,
    private readonly log: { info(o: object, m: string): void; error(o: object, m: string): void },
  ) {}

  failed(error: unknown): void {
    if (!isDatabaseUnavailable(error)) {
      const message = error instanceof Error ? error.message : String(error);
      if (message === this.failure) return;
      this.failure = message;
      this.log.error({ err: error }, `${this.what} failed`);
      return;
    }
    if (this.since !== undefined) return;
    this.since = Date.now();
    this.log.info(
      { reason: error instanceof Error ? error.message : String(error) },
      `${this.what} paused: the database is unavailable; resuming when it answers`,
    );
  }

  succeeded(): void {
    if (this.failure !== undefined) {
      this.failure = undefined;
      this.log.info({}, `${this.what} succeeds again`);
    }
    if (this.since === undefined) return;
    const seconds = ((Date.now() - this.since) / 1000).toFixed(1);
    this.since = undefined;
    this.log.info({}, `${this.what} resumed after ${seconds} s`);
  }
}
