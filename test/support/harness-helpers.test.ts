import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM_ERRORS } from '../../src/platform/http/error-codes.ts';
import { NZBN_ERRORS } from '../../src/services/nzbn/errors.ts';
import { dialectError, expectRefusal } from './error-codes.ts';
import { fingerprint } from './fingerprint.ts';
import { freshDatabases } from './runtime.ts';

/** The harnesses' own checks fail when they should: a write is seen, a wrong code is caught. */
describe('fingerprint', () => {
  let databases: Awaited<ReturnType<typeof freshDatabases>>;
  let pool: pg.Pool;
  beforeAll(async () => {
    databases = await freshDatabases();
    pool = new pg.Pool({ connectionString: databases.sandbox, max: 2 });
    await pool.query('CREATE TABLE demo_items (id int PRIMARY KEY, name text, cached text)');
    await pool.query('CREATE TABLE other_items (id int)');
    await pool.query("INSERT INTO demo_items VALUES (1, 'one', NULL), (2, 'two', NULL)");
  });
  afterAll(async () => {
    await pool?.end();
    await databases?.drop();
  });

  it('changes with every committed insert, update and delete, and not with a rolled-back one', async () => {
    const spec = { pool, prefixes: ['demo_'] };
    const start = await fingerprint(spec);
    expect(start).toMatch(/^demo_items:2:/);
    await pool.query("UPDATE demo_items SET name = 'one' WHERE id = 1"); // the same value: still a write
    const updated = await fingerprint(spec);
    expect(updated).not.toBe(start);
    await pool.query("INSERT INTO demo_items VALUES (3, 'three', NULL)");
    const inserted = await fingerprint(spec);
    expect(inserted).not.toBe(updated);
    await pool.query('DELETE FROM demo_items WHERE id = 3');
    expect(await fingerprint(spec)).not.toBe(inserted);
    const before = await fingerprint(spec);
    const client = await pool.connect();
    await client.query('BEGIN');
    await client.query("INSERT INTO demo_items VALUES (4, 'four', NULL)");
    await client.query("UPDATE demo_items SET name = 'x'");
    await client.query('ROLLBACK');
    client.release();
    expect(await fingerprint(spec)).toBe(before);
    // Another table than the prefix names is not part of it; `where` leaves rows out.
    await pool.query('INSERT INTO other_items VALUES (1)');
    expect(await fingerprint(spec)).toBe(before);
    const uncached = { pool, prefixes: ['demo_'], where: { demo_items: 't.cached IS NULL' } };
    const filled = await fingerprint(uncached);
    await pool.query("INSERT INTO demo_items VALUES (5, 'five', 'a cache')");
    expect(await fingerprint(uncached)).toBe(filled);
  });
});

describe('dialect errors', () => {
  const answer = (status: number, body: unknown, type = 'application/json'): LightMyRequestResponse =>
    ({
      statusCode: status,
      headers: { 'content-type': type },
      body: JSON.stringify(body),
      json: () => body,
    }) as unknown as LightMyRequestResponse;
  const nzbn = { status: '403', errorCode: 'FORBIDDEN', errorDescription: 'no', list: [] };

  it('reads the code of each dialect', () => {
    expect(dialectError(answer(403, nzbn), 'nzbn')).toBe('FORBIDDEN');
    const problem = { type: 'about:blank#not-found', title: 'Not Found', status: 404, detail: 'no' };
    expect(dialectError(answer(404, problem, 'application/problem+json'), 'problem')).toBe('not-found');
    expect(dialectError(answer(401, { statusCode: 401, message: 'no' }), 'apim')).toBeUndefined();
  });

  it('fails on another code, another status, or another dialect’s body', () => {
    expectRefusal(answer(403, nzbn), 'nzbn', NZBN_ERRORS.forbidden);
    expect(() => expectRefusal(answer(403, nzbn), 'nzbn', PLATFORM_ERRORS.notFound)).toThrow();
    expect(() =>
      expectRefusal(answer(404, { ...nzbn, status: '404' }), 'nzbn', NZBN_ERRORS.forbidden),
    ).toThrow();
    expect(() => dialectError(answer(403, { statusCode: 403, message: 'no' }), 'nzbn')).toThrow();
    expect(() => dialectError(answer(403, nzbn), 'problem')).toThrow();
  });
});
