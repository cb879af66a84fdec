import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../../src/platform/db/pool.ts';
import type { CaseRecord } from '../../../src/services/iponz/domain/model.ts';
import { CASE_CHANNEL, CaseCache, caseKey } from '../../../src/services/iponz/store/case-cache.ts';
import { freshDatabases } from '../../support/runtime.ts';

/**
 * The case cache: nothing served or kept until it listens; a notice from any connection drops the case
 * (`*` everything); a read under way when a notice arrives is not kept; the oldest entry goes first; a
 * writer's echo comes back.
 */
let databases: Awaited<ReturnType<typeof freshDatabases>>;
let cache: CaseCache;
let other: ReturnType<typeof openDatabase>;
const record = (n: number) => ({ kind: 'patent', caseNumber: n, version: 1 }) as unknown as CaseRecord;
const notify = (payload: string) => other.pool.query('SELECT pg_notify($1, $2)', [CASE_CHANNEL, payload]);
/** Waits (up to 2 s, vitest's waitFor) until the notice has reached the cache's listening connection. */
const until = (condition: () => boolean) =>
  vi.waitFor(() => expect(condition()).toBe(true), { timeout: 2_000, interval: 10 });

beforeAll(async () => {
  databases = await freshDatabases();
  other = openDatabase(databases.sandbox, 1);
  cache = new CaseCache(databases.sandbox, 3);
});
afterAll(async () => {
  await cache?.close();
  await other?.close();
  await databases?.drop();
});

describe('the case cache', () => {
  it('serves and keeps nothing until it listens', async () => {
    const key = caseKey('patent', 1);
    expect(cache.get(key)).toBeUndefined(); // opens the listening connection
    cache.keep(key, record(1), cache.mark());
    await until(() => cache.serving);
    expect(cache.get(key)).toBeUndefined();
  });

  it('keeps a read, and drops it on a notice from another connection', async () => {
    const key = caseKey('patent', 2);
    cache.keep(key, record(2), cache.mark());
    expect(cache.get(key)?.record.caseNumber).toBe(2);
    await notify(key);
    await until(() => cache.get(key) === undefined);
  });

  it('does not keep a read under way when a notice arrives', async () => {
    const key = caseKey('patent', 3);
    const mark = cache.mark();
    await notify(caseKey('design', 9));
    await until(() => cache.mark() !== mark);
    cache.keep(key, record(3), mark);
    expect(cache.get(key)).toBeUndefined();
  });

  it('drops everything on *, the least recently read first when full', async () => {
    for (const n of [4, 5, 6]) cache.keep(caseKey('patent', n), record(n), cache.mark());
    cache.get(caseKey('patent', 4)); // read again: 5 is now the oldest
    cache.keep(caseKey('patent', 7), record(7), cache.mark());
    expect(cache.get(caseKey('patent', 5))).toBeUndefined();
    expect(cache.get(caseKey('patent', 4))).toBeDefined();
    await notify('*');
    await until(
      () => cache.get(caseKey('patent', 4)) === undefined && cache.get(caseKey('patent', 7)) === undefined,
    );
  });

  it("a writer's echo comes back (and a drop is at once)", async () => {
    const key = caseKey('trademark', 8);
    cache.keep(key, record(8), cache.mark());
    cache.drop(key);
    expect(cache.get(key)).toBeUndefined();
    const echoed = cache.echo(key);
    let back = false;
    void echoed.then(() => {
      back = true;
    });
    await notify(key);
    await until(() => back);
  });
});
