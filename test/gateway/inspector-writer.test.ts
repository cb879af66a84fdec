import type { Pool } from 'pg';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { CapturedCall } from '../../src/gateway/domain/inspector.ts';
import { reportInspectorDrops } from '../../src/gateway/http/inspector.ts';
import { Inspector } from '../../src/gateway/jobs/inspector.ts';

/** The inspector's writer without a database: what it writes, what it drops, and that a fault never throws. */
function call(subscriptionId: string, n: number): CapturedCall {
  return {
    sentAt: 1_000 + n,
    environment: 'sandbox',
    service: 'nzbn',
    subscriptionId,
    method: 'GET',
    url: `/sandbox/nzbn/v5/entities/${n}`,
    status: 200,
    durationMs: 1,
    requestHeaders: {},
    responseHeaders: {},
    requestBody: undefined,
    responseBody: undefined,
    bodies: true,
  };
}

function recordingPool(fail = false) {
  const inserted: string[][] = [];
  const pool = {
    async query(sql: string, params: unknown[]) {
      if (fail) throw Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
      if (sql.includes('INSERT INTO inspector_calls'))
        inserted.push((JSON.parse(params[0] as string) as { u: string }[]).map((row) => row.u));
      return { rows: [], rowCount: 0 };
    },
  };
  return { pool: pool as unknown as Pool, inserted };
}

describe('the inspector writer', () => {
  it('holds the calls of a subscription up to its bound between two writes, in order', async () => {
    const { pool, inserted } = recordingPool();
    const inspector = new Inspector(pool, { flushEveryMs: 0, keep: 3 });
    for (let n = 0; n < 5; n++) inspector.capture(call('a', n));
    expect(inspector.stats()).toMatchObject({ waiting: 3, skipped: 2, dropped: 0 });
    await inspector.flush();
    expect(inserted.flat()).toEqual([0, 1, 2].map((n) => `/sandbox/nzbn/v5/entities/${n}`));
    expect(inspector.stats()).toMatchObject({ waiting: 0, written: 3 });
  });

  it('holds at most its capacity in all, and counts the calls it dropped', async () => {
    const { pool, inserted } = recordingPool();
    const inspector = new Inspector(pool, { flushEveryMs: 0, capacity: 4 });
    for (let n = 0; n < 6; n++) inspector.capture(call(`s${n}`, n));
    expect(inspector.stats()).toMatchObject({ waiting: 4, dropped: 2 });
    await inspector.flush();
    expect(inserted.flat()).toHaveLength(4);
  });

  it('writes at most the bound of each subscription from a batch, in order, 500 rows a statement', async () => {
    const { pool, inserted } = recordingPool();
    const inspector = new Inspector(pool, { flushEveryMs: 0, capacity: 2_000, keep: 500 });
    for (let n = 0; n < 700; n++) inspector.capture(call('a', n));
    for (let n = 0; n < 10; n++) inspector.capture(call('b', n));
    await inspector.flush();
    const urls = inserted.flat();
    expect(urls).toHaveLength(510);
    expect(inserted.every((batch) => batch.length <= 500)).toBe(true);
    expect(urls[0]).toBe('/sandbox/nzbn/v5/entities/0');
    expect(urls[499]).toBe('/sandbox/nzbn/v5/entities/499');
    expect(inspector.stats()).toMatchObject({ written: 510, skipped: 200 });
  });

  it('survives a database that is away: the batch is dropped and counted, nothing thrown', async () => {
    const { pool } = recordingPool(true);
    const lines: string[] = [];
    const inspector = new Inspector(pool, { flushEveryMs: 0, log: (line) => lines.push(line) });
    inspector.capture(call('a', 1));
    await expect(inspector.flush()).resolves.toBeUndefined();
    inspector.capture(call('a', 2));
    await inspector.flush();
    expect(inspector.stats()).toMatchObject({ dropped: 2, written: 0 });
    expect(lines).toHaveLength(1);
    await expect(inspector.sweep()).resolves.toBe(0);
    await inspector.close();
  });

  it('counts what it dropped in /metrics: full, and unwritten while the database is away', async () => {
    const { pool } = recordingPool(true);
    const inspector = new Inspector(pool, { flushEveryMs: 0, capacity: 2 });
    const registry = new Registry();
    reportInspectorDrops(registry, () => inspector.stats());
    for (let n = 0; n < 3; n++) inspector.capture(call(`s${n}`, n));
    await inspector.flush();
    const text = await registry.metrics();
    expect(text).toContain('# TYPE rsg_inspector_calls_dropped_total counter');
    expect(text).toContain('rsg_inspector_calls_dropped_total{reason="full"} 1');
    expect(text).toContain('rsg_inspector_calls_dropped_total{reason="unwritten"} 2');
    expect(inspector.stats()).toMatchObject({ dropped: 3, full: 1, unwritten: 2 });
  });
});
