import type { Pool } from 'pg';
import { describe, expect, it } from 'vitest';
import { UsageRecorder } from '../../src/gateway/jobs/usage.ts';

/** The recorder's counting, read from the rows it hands the database (a pool that keeps its queries). */
function recorder() {
  const flushed: unknown[][] = [];
  const pool = {
    query: async (_sql: string, values: unknown[]) => {
      flushed.push(values);
      return { rows: [] };
    },
  } as unknown as Pool;
  const rows = (at: number) => {
    const [ids, minutes, calls, clientErrors, serverErrors, throttled] = flushed[at] as [
      string[],
      Date[],
      number[],
      number[],
      number[],
      number[],
    ];
    return ids
      .map((id, i) => ({
        id,
        minute: minutes[i]!.getTime(),
        calls: calls[i],
        clientErrors: clientErrors[i],
        serverErrors: serverErrors[i],
        throttled: throttled[i],
      }))
      .sort((a, b) => a.id.localeCompare(b.id) || a.minute - b.minute);
  };
  return { usage: new UsageRecorder(pool, 0), rows };
}

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const MINUTE = 60_000;
const T = 1_800_000_000_000; // a minute's start

describe('UsageRecorder', () => {
  it('counts per subscription and minute, whatever order the calls come in, and starts afresh after a flush', async () => {
    const { usage, rows } = recorder();
    usage.record(A, 200, T);
    usage.record(A, 404, T + 1);
    usage.record(B, 500, T + 2);
    usage.record(A, 429, T + 59_999);
    usage.record(A, 200, T + MINUTE); // the next minute
    usage.record(A, 503, T + 10); // a late call for the minute before
    usage.record(B, 200, T + MINUTE + 5);
    usage.record(A, 201, T + MINUTE + 7);
    await usage.flush();
    expect(rows(0)).toEqual([
      { id: A, minute: T, calls: 4, clientErrors: 1, serverErrors: 1, throttled: 1 },
      { id: A, minute: T + MINUTE, calls: 2, clientErrors: 0, serverErrors: 0, throttled: 0 },
      { id: B, minute: T, calls: 1, clientErrors: 0, serverErrors: 1, throttled: 0 },
      { id: B, minute: T + MINUTE, calls: 1, clientErrors: 0, serverErrors: 0, throttled: 0 },
    ]);

    usage.record(A, 400, T + MINUTE + 9);
    usage.record(A, 200, T + MINUTE + 9);
    await usage.flush();
    expect(rows(1)).toEqual([
      { id: A, minute: T + MINUTE, calls: 2, clientErrors: 1, serverErrors: 0, throttled: 0 },
    ]);
  });
});
