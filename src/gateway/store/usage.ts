/** The SQL of `usage_minutes` (gateway database): calls per subscription per minute. */
import type { Pool } from 'pg';

export interface UsageCounts {
  calls: number;
  clientErrors: number;
  serverErrors: number;
  throttled: number;
}

export interface UsageRow extends UsageCounts {
  minute: Date;
}

/** Adds each subscription's minute of counts to what is stored (additive: several processes count one minute). */
export async function addUsageMinutes(
  pool: Pool,
  minutes: readonly { subscriptionId: string; minute: Date; counts: UsageCounts }[],
): Promise<void> {
  await pool.query(
    `INSERT INTO usage_minutes (subscription_id, minute, calls, client_errors, server_errors, throttled)
     SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::int[], $4::int[], $5::int[], $6::int[])
     ON CONFLICT (subscription_id, minute) DO UPDATE SET
       calls = usage_minutes.calls + excluded.calls,
       client_errors = usage_minutes.client_errors + excluded.client_errors,
       server_errors = usage_minutes.server_errors + excluded.server_errors,
       throttled = usage_minutes.throttled + excluded.throttled`,
    [
      minutes.map((row) => row.subscriptionId),
      minutes.map((row) => row.minute),
      minutes.map((row) => row.counts.calls),
      minutes.map((row) => row.counts.clientErrors),
      minutes.map((row) => row.counts.serverErrors),
      minutes.map((row) => row.counts.throttled),
    ],
  );
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
