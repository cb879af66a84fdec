import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/platform/db/faults.ts';
import { databaseName } from '../../src/platform/db/urls.ts';
import { type NzbnTest, nzbnTest } from '../services/nzbn/support/api.ts';
import { freshDatabases } from '../support/runtime.ts';

/**
 * Which PostgreSQL errors mean "unavailable, try again" (503 with Retry-After) and which stay 500: one
 * case per SQLSTATE class of the list in platform/db/faults.ts, then the real errors of a server for the
 * ones a test can provoke, then a database closed to connections answered through the gateway.
 */

const pgError = (code: string, message = 'x') =>
  Object.assign(new Error(message), { code, severity: 'ERROR' });

describe('the unavailable conditions, class by class', () => {
  it.each([
    ['08006', 'connection failure'],
    ['08001', 'could not establish connection'],
    ['08P01', 'protocol violation'],
    ['53300', 'sorry, too many clients already'],
    ['53100', 'could not extend file: No space left on device'],
    ['53200', 'out of memory'],
    ['57P01', 'terminating connection due to administrator command'],
    ['57P02', 'terminating connection because of crash of another server process'],
    ['57P03', 'the database system is starting up'],
    ['57P04', 'database dropped'],
    ['57P05', 'terminating connection due to idle-session timeout'],
    ['57014', 'canceling statement due to statement timeout'],
    ['25P03', 'terminating connection due to idle-in-transaction timeout'],
    ['25P04', 'terminating connection due to transaction timeout'],
    ['25006', 'cannot execute INSERT in a read-only transaction'],
    ['55P03', 'could not obtain lock on row in relation "x"'],
    ['55000', 'database "rsg" is not currently accepting connections'],
    ['40001', 'could not serialize access due to concurrent update'],
    ['40P01', 'deadlock detected'],
    ['58000', 'system error'],
    ['58030', 'could not read block 0 in file "base/1/2": I/O error'],
    ['72000', 'snapshot too old'],
  ])('%s (%s) is unavailable', (code, message) => {
    expect(isDatabaseUnavailable(pgError(code, message))).toBe(true);
    // Also when wrapped, as a library's error with a cause.
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: pgError(code, message) }))).toBe(true);
  });

  it.each([
    ['55000', 'currval of sequence "s" is not yet defined in this session'],
    ['55000', 'object not in prerequisite state'],
    ['55006', 'database "x" is being accessed by other users'],
    ['40003', 'statement completion unknown'],
    ['58P01', 'could not access file "x": No such file or directory'],
    ['28P01', 'password authentication failed for user "x"'],
    ['3D000', 'database "x" does not exist'],
    ['XX000', 'internal error'],
    ['XX001', 'invalid page in block 1'],
    ['22012', 'division by zero'],
    ['23505', 'duplicate key value violates unique constraint "x"'],
    ['42P01', 'relation "x" does not exist'],
  ])('%s (%s) is not', (code, message) => {
    expect(isDatabaseUnavailable(pgError(code, message))).toBe(false);
  });
});

describe('real errors of a PostgreSQL server', () => {
  let admin: pg.Client;
  let other: pg.Client;
  let databases: Awaited<ReturnType<typeof freshDatabases>>;
  const failure = async (client: pg.Client, sql: string) =>
    client.query(sql).then(
      () => undefined,
      (error: unknown) => error as Error & { code?: string },
    );

  beforeAll(async () => {
    databases = await freshDatabases();
    admin = new pg.Client({ connectionString: databases.gateway });
    other = new pg.Client({ connectionString: databases.gateway });
    for (const client of [admin, other]) {
      client.on('error', () => {});
      await client.connect();
    }
  });
  afterAll(async () => {
    await admin?.end().catch(() => {});
    await other?.end().catch(() => {});
    await databases?.drop();
  });

  it('55000 from currval before nextval is a bug, not an outage', async () => {
    await admin.query('CREATE TEMP SEQUENCE faults_sequence');
    const error = await failure(admin, "SELECT currval('faults_sequence')");
    expect(error?.code).toBe('55000');
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('57014 (statement timeout), 25006 (read-only) and 55P03 (lock not available) are unavailable', async () => {
    await admin.query("SET statement_timeout = '50ms'");
    const timeout = await failure(admin, 'SELECT pg_sleep(5)');
    await admin.query('RESET statement_timeout');
    expect(timeout?.code).toBe('57014');
    expect(isDatabaseUnavailable(timeout)).toBe(true);

    await admin.query('CREATE TABLE faults_rows (id int PRIMARY KEY)');
    await admin.query('INSERT INTO faults_rows VALUES (1)');
    await admin.query('BEGIN READ ONLY');
    const readOnly = await failure(admin, 'INSERT INTO faults_rows VALUES (2)');
    await admin.query('ROLLBACK');
    expect(readOnly?.code).toBe('25006');
    expect(isDatabaseUnavailable(readOnly)).toBe(true);

    await admin.query('BEGIN');
    await admin.query('SELECT * FROM faults_rows WHERE id = 1 FOR UPDATE');
    const locked = await failure(other, 'SELECT * FROM faults_rows WHERE id = 1 FOR UPDATE NOWAIT');
    await admin.query('ROLLBACK');
    expect(locked?.code).toBe('55P03');
    expect(isDatabaseUnavailable(locked)).toBe(true);
    await admin.query('DROP TABLE faults_rows');
  });

  it('22012 (division by zero) is not', async () => {
    const error = await failure(admin, 'SELECT 1 / 0');
    expect(error?.code).toBe('22012');
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('a database closed to connections (ALLOW_CONNECTIONS false)', () => {
  let t: NzbnTest;
  let admin: pg.Client;
  let sandbox: string;

  beforeAll(async () => {
    t = await nzbnTest();
    admin = new pg.Client({ connectionString: t.gateway.urls.gateway });
    admin.on('error', () => {});
    await admin.connect();
    sandbox = databaseName(t.gateway.urls.sandbox);
  });
  afterAll(async () => {
    await admin?.query(`ALTER DATABASE "${sandbox}" WITH ALLOW_CONNECTIONS true`).catch(() => {});
    await admin?.end().catch(() => {});
    await t?.close();
  });

  it('answers 503 with Retry-After in the register’s dialect, then serves again once reopened', async () => {
    expect((await t.call('GET', '/entities?search-term=limited&page-size=5')).statusCode).toBe(200);
    await admin.query(`ALTER DATABASE "${sandbox}" WITH ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [sandbox]);
    // The connection refused with 55000 "is not currently accepting connections".
    const direct = new pg.Client({ connectionString: t.gateway.urls.sandbox });
    direct.on('error', () => {});
    const refusal = await direct.connect().then(
      () => undefined,
      (error: unknown) => error as Error & { code?: string },
    );
    await direct.end().catch(() => {});
    expect(refusal?.code).toBe('55000');
    expect(isDatabaseUnavailable(refusal)).toBe(true);

    for (let i = 0; i < 3; i++) {
      const response = await t.call('GET', '/entities?search-term=limited&page-size=5');
      expect(response.statusCode, response.body).toBe(503);
      expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
      expect(response.json()).toMatchObject({ status: '503', errorCode: 'service-unavailable', list: [] });
    }

    await admin.query(`ALTER DATABASE "${sandbox}" WITH ALLOW_CONNECTIONS true`);
    await expect
      .poll(async () => (await t.call('GET', '/entities?search-term=limited&page-size=5')).statusCode, {
        timeout: 15_000,
        interval: 100,
      })
      .toBe(200);
  });
});
