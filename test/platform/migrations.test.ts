import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/platform/db/migrations.ts';
import { openDatabase } from '../../src/platform/db/pool.ts';
import { rsg } from '../support/cli.ts';
import { freshDatabases } from '../support/runtime.ts';

let databases: Awaited<ReturnType<typeof freshDatabases>>;
beforeAll(async () => {
  databases = await freshDatabases();
});
afterAll(() => databases?.drop());

describe('migrations', () => {
  it('two `rsg migrate` at once (each with its own connections) apply every file exactly once', async () => {
    const [first, second] = await Promise.all([
      rsg(['migrate'], { urls: databases }),
      rsg(['migrate'], { urls: databases }),
    ]);
    expect(first.stderr).toBe('');
    expect(second.stderr).toBe('');
    expect([first.code, second.code]).toEqual([0, 0]);
    // The databases are migrated one after another, each under its own lock, so the work may be split
    // between the two commands; no file may be applied by both.
    const applied = [first.stdout, second.stdout].flatMap((out) =>
      out.split('\n').filter((line) => /^ {2}\S+: [\w-]+\/\d+_[\w-]+\.sql$/.test(line)),
    );
    expect(applied.length).toBeGreaterThan(0);
    expect(new Set(applied).size).toBe(applied.length);
    let recorded = 0;
    for (const url of [databases.gateway, databases.sandbox, databases.production]) {
      const database = openDatabase(url, 1);
      try {
        recorded += (await database.pool.query('SELECT count(*)::int AS n FROM schema_migrations')).rows[0].n;
      } finally {
        await database.close();
      }
    }
    expect(applied).toHaveLength(recorded);
    const gateway = openDatabase(databases.gateway, 1);
    try {
      const rows = await gateway.pool.query(
        'SELECT module, version FROM schema_migrations ORDER BY module, version',
      );
      expect(rows.rows).toEqual([
        { module: 'gateway', version: 1 },
        { module: 'gateway', version: 2 },
        { module: 'gateway', version: 3 },
        { module: 'gateway', version: 4 },
        { module: 'identity', version: 1 },
        { module: 'identity', version: 2 },
        { module: 'identity', version: 3 },
        { module: 'identity', version: 4 },
        { module: 'identity', version: 5 },
        { module: 'identity', version: 6 },
        { module: 'identity', version: 7 },
        { module: 'mail', version: 1 },
        { module: 'mail', version: 2 },
        { module: 'platform', version: 1 },
        { module: 'platform', version: 2 },
        { module: 'portal', version: 1 },
        { module: 'portal', version: 2 },
        { module: 'portal', version: 3 },
        { module: 'portal', version: 4 },
      ]);
      const products = await gateway.pool.query('SELECT count(*)::int AS n FROM products');
      expect(products.rows[0].n).toBe(10);
    } finally {
      await gateway.close();
    }
  });

  it('runs in number order, each file in its own transaction, and refuses an edited applied file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rsg-migrations-'));
    const scratch = await freshDatabases();
    const database = openDatabase(scratch.gateway, 4);
    try {
      await writeFile(path.join(dir, '001_first.sql'), 'CREATE TABLE t (n int);');
      await writeFile(path.join(dir, '002_second.sql'), 'INSERT INTO t VALUES (2);');
      const results = await Promise.all([
        migrate(database.pool, [{ module: 'm', dir }]),
        migrate(database.pool, [{ module: 'm', dir }]),
      ]);
      expect(results.map((r) => r.applied.length).sort()).toEqual([0, 2]);
      await writeFile(
        path.join(dir, '003_broken.sql'),
        'INSERT INTO t VALUES (3); SELECT no_such_function();',
      );
      await expect(migrate(database.pool, [{ module: 'm', dir }])).rejects.toThrow(
        /m\/003_broken.sql failed/,
      );
      // The failed file left nothing half-written.
      expect((await database.pool.query('SELECT n FROM t ORDER BY n')).rows).toEqual([{ n: 2 }]);
      await writeFile(path.join(dir, '003_broken.sql'), 'INSERT INTO t VALUES (3);');
      await writeFile(path.join(dir, '001_first.sql'), 'CREATE TABLE t (n bigint);');
      await expect(migrate(database.pool, [{ module: 'm', dir }])).rejects.toThrow(
        /changed after it was applied/,
      );
    } finally {
      await database.close();
      await scratch.drop();
    }
  });
});
