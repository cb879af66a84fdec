import type { Pool } from 'pg';
import { isDatabaseUnavailable } from '../platform/db/faults.ts';

/**
 * Calls per subscription per minute (calls, 4xx, 5xx, 429), counted in memory and flushed to the
 * database every few seconds with additive upserts, so several processes can count the same minute.
 */
interface Counts {
  calls: number;
  clientErrors: number;
  serverErrors: number;
  throttled: number;
}

export interface UsageRow extends Counts {
  minute: Date;
}

export class UsageRecorder {
  private pending = new Map<string, Counts>();
  /** Per subscription, the counts its last call went to: in which minute and which batch (`pending`). */
  private readonly last = new Map<string, { minute: number; batch: Map<string, Counts>; counts: Counts }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: Pool,
    flushEveryMs = 5_000,
  ) {
    if (flushEveryMs > 0) {
      this.timer = setInterval(() => this.flush().catch(() => {}), flushEveryMs);
      this.timer.unref();
    }
  }

  record(subscriptionId: string, status: number, at: number = Date.now()): void {
    const minute = Math.floor(at / 60_000) * 60_000;
    // Most calls count into the same subscription's same minute as its last call: the counts found then
    // are reused while that minute and that batch last (building and hashing the key string was most of
    // this method's cost).
    const last = this.last.get(subscriptionId);
    let counts: Counts | undefined;
    if (last && last.minute === minute && last.batch === this.pending) counts = last.counts;
    else {
      const key = `${subscriptionId}|${minute}`;
      counts = this.pending.get(key);
      if (!counts) {
        counts = { calls: 0, clientErrors: 0, serverErrors: 0, throttled: 0 };
        this.pending.set(key, counts);
      }
      if (this.last.size >= 10_000) this.last.clear();
      this.last.set(subscriptionId, { minute, batch: this.pending, counts });
    }
    counts.calls++;
    if (status === 429) counts.throttled++;
    else if (status >= 500) counts.serverErrors++;
    else if (status >= 400) counts.clientErrors++;
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.last.clear();
    const ids: string[] = [];
    const minutes: Date[] = [];
    const columns: number[][] = [[], [], [], []];
    for (const [key, counts] of batch) {
      const [id, minute] = key.split('|');
      ids.push(id!);
      minutes.push(new Date(Number(minute)));
      columns[0]!.push(counts.calls);
      columns[1]!.push(counts.clientErrors);
      columns[2]!.push(counts.serverErrors);
      columns[3]!.push(counts.throttled);
    }
    await this.pool
      .query(
        `INSERT INTO usage_minutes (subscription_id, minute, calls, client_errors, server_errors, throttled)
       SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::int[], $4::int[], $5::int[], $6::int[])
       ON CONFLICT (subscription_id, minute) DO UPDATE SET
         calls = usage_minutes.calls + excluded.calls,
         client_errors = usage_minutes.client_errors + excluded.client_errors,
         server_errors = usage_minutes.server_errors + excluded.server_errors,
         throttled = usage_minutes.throttled + excluded.throttled`,
        [ids, minutes, ...columns],
      )
      .catch((error: unknown) => {
        // The database is away: keep the counts for the next flush rather than lose them.
        if (isDatabaseUnavailable(error)) this.restore(batch);
        throw error;
      });
  }

  private restore(batch: Map<string, Counts>): void {
    for (const [key, counts] of batch) {
      const current = this.pending.get(key);
      if (!current) this.pending.set(key, counts);
      else {
        current.calls += counts.calls;
        current.clientErrors += counts.clientErrors;
        current.serverErrors += counts.serverErrors;
        current.throttled += counts.throttled;
      }
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush().catch(() => {});
  }
}

export async function usageOf(pool: Pool, subscriptionId: string, since: Date): Promise<UsageRow[]> {
  const result = await pool.query<UsageRow>(
    `SELECT minute, calls, client_errors AS "clientErrors", server_errors AS "serverErrors", throttled
       FROM usage_minutes WHERE subscription_id = $1 AND minute >= $2 ORDER BY minute`,
    [subscriptionId, since],
  );
  return result.rows;
}

export interface DailyUsage {
  /** YYYY-MM-DD, UTC. */
  day: string;
  calls: number;
  clientErrors: number;
  serverErrors: number;
  throttled: number;
}

/** Calls per UTC day for the last `days` days up to `now` (today included), empty days filled in. */
export async function dailyUsage(
  pool: Pool,
  subscriptionId: string,
  days: number,
  now: Date,
): Promise<DailyUsage[]> {
  const result = await pool.query<DailyUsage>(
    `SELECT to_char(d.day, 'YYYY-MM-DD') AS day,
            COALESCE(SUM(m.calls), 0)::int AS calls,
            COALESCE(SUM(m.client_errors), 0)::int AS "clientErrors",
            COALESCE(SUM(m.server_errors), 0)::int AS "serverErrors",
            COALESCE(SUM(m.throttled), 0)::int AS throttled
       FROM generate_series(
              date_trunc('day', $2::timestamptz AT TIME ZONE 'UTC') - make_interval(days => $3 - 1),
              date_trunc('day', $2::timestamptz AT TIME ZONE 'UTC'),
              interval '1 day') AS d(day)
       LEFT JOIN usage_minutes m
         ON m.subscription_id = $1 AND m.minute >= d.day AT TIME ZONE 'UTC'
        AND m.minute < (d.day + interval '1 day') AT TIME ZONE 'UTC'
      GROUP BY d.day ORDER BY d.day`,
    [subscriptionId, now, days],
  );
  return result.rows;
}
