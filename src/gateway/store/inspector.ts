/** The SQL of `inspector_calls` (gateway database): each subscription's last calls, already redacted. */
import type { Pool } from 'pg';
import type { InspectedCall } from '../domain/inspector.ts';

/** A stored call: what the portal lists and shows. */
export interface StoredCall extends InspectedCall {
  id: string;
}

/**
 * Writes a batch of calls in one statement, then trims the subscriptions it touched to their newest
 * `keep` calls. The rows go as one JSON document (`json_to_recordset`): JSON.stringify is native, where
 * fourteen text arrays of bodies and headers were escaped character by character by the driver, which
 * cost several times the redaction itself (bench:inspector).
 */
export async function insertCalls(pool: Pool, calls: readonly InspectedCall[], keep: number): Promise<void> {
  if (calls.length === 0) return;
  await pool.query(
    `INSERT INTO inspector_calls (subscription_id, environment, service, at, method, url, status, duration_ms,
                                  request_headers, response_headers, request_body, response_body, bodies_kept, reason)
     SELECT s, e, v, a, m, u, st, d, rh, ah, rb, ab, bk, r
       FROM json_to_recordset($1::json) AS t(s uuid, e text, v text, a timestamptz, m text, u text, st smallint,
                                             d real, rh jsonb, ah jsonb, rb text, ab text, bk boolean, r text)`,
    [
      JSON.stringify(
        calls.map((c) => ({
          s: c.subscriptionId,
          e: c.environment,
          v: c.service,
          a: c.at,
          m: c.method,
          u: c.url,
          st: c.status,
          d: c.durationMs,
          rh: c.requestHeaders,
          ah: c.responseHeaders,
          rb: c.requestBody,
          ab: c.responseBody,
          bk: c.bodiesKept,
          r: c.reason,
        })),
      ),
    ],
  );
  await trimSubscriptions(pool, [...new Set(calls.map((c) => c.subscriptionId))], keep);
}

/** Keeps the newest `keep` calls of each of these subscriptions. */
export async function trimSubscriptions(
  pool: Pool,
  subscriptionIds: readonly string[],
  keep: number,
): Promise<number> {
  if (subscriptionIds.length === 0) return 0;
  const result = await pool.query(
    `DELETE FROM inspector_calls WHERE id IN (
       SELECT id FROM (
         SELECT id, row_number() OVER (PARTITION BY subscription_id ORDER BY at DESC, id DESC) AS n
           FROM inspector_calls WHERE subscription_id = ANY($1::uuid[])) ranked
        WHERE n > $2)`,
    [subscriptionIds, keep],
  );
  return result.rowCount ?? 0;
}

/** Removes every call older than `before`. */
export async function deleteCallsBefore(pool: Pool, before: Date): Promise<number> {
  const result = await pool.query('DELETE FROM inspector_calls WHERE at < $1', [before]);
  return result.rowCount ?? 0;
}

const COLUMNS = `id::text AS id, subscription_id AS "subscriptionId", environment, service, at, method, url,
  status, duration_ms AS "durationMs", request_headers AS "requestHeaders",
  response_headers AS "responseHeaders", request_body AS "requestBody", response_body AS "responseBody",
  bodies_kept AS "bodiesKept", reason`;

/** A subscription's calls since `since`, newest first, at most `limit`. */
export async function callsOf(
  pool: Pool,
  subscriptionId: string,
  since: Date,
  limit: number,
): Promise<StoredCall[]> {
  const result = await pool.query<StoredCall>(
    `SELECT ${COLUMNS} FROM inspector_calls
      WHERE subscription_id = $1 AND at >= $2 ORDER BY at DESC, id DESC LIMIT $3`,
    [subscriptionId, since, limit],
  );
  return result.rows;
}

/** One call of a subscription, or undefined (another subscription's call is not found). */
export async function callOf(
  pool: Pool,
  subscriptionId: string,
  callId: string,
  since: Date,
): Promise<StoredCall | undefined> {
  if (!/^\d{1,18}$/.test(callId)) return undefined;
  const result = await pool.query<StoredCall>(
    `SELECT ${COLUMNS} FROM inspector_calls WHERE subscription_id = $1 AND id = $2 AND at >= $3`,
    [subscriptionId, callId, since],
  );
  return result.rows[0];
}

/** Every stored call as its row's text (tests search it for secrets). */
export async function everyCallAsText(pool: Pool): Promise<string[]> {
  const result = await pool.query<{ row: string }>(
    'SELECT c::text AS row FROM inspector_calls c ORDER BY id',
  );
  return result.rows.map((r) => r.row);
}

/** How many calls a subscription has stored. */
export async function countCalls(pool: Pool, subscriptionId: string): Promise<number> {
  const result = await pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM inspector_calls WHERE subscription_id = $1',
    [subscriptionId],
  );
  return result.rows[0]?.n ?? 0;
}
