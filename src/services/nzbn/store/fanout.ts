/**
 * Fan-out: turns recorded change events into notification records, one per watchlist that matches.
 * Set-based and batched (one INSERT … SELECT per batch of events), serialised by a transaction-level
 * advisory lock so the records of one watchlist are numbered in the order of its changes whatever
 * number of processes run the job; a batch marks its events as fanned out in the same transaction, so
 * a crash repeats a batch whole or not at all.
 *
 * A watchlist matches a change when it lists the business number, or its wildcard is ALL (every
 * change), or a type wildcard (COMPANIES, INCORPORATED, UNINCORPORATED) that takes the changed
 * entity's type; and its change event types take the change (ALL: any, ENTITY: any but NEW, or the type
 * named); and the change falls between its fromDate and
 * toDate; and it is not end-dated. A suspended watchlist still gets its records (spec: records are
 * created while suspended, delivered after resumption). Public sector entities have no source register,
 * so no watchlist reports them (the same rule as the change event search).
 */
import type pg from 'pg';
import { withTransaction } from '../../../platform/db/pool.ts';
import { PUBLIC_SECTOR_TYPE_CODES } from '../domain/codes.ts';
import { WILDCARD_TYPES } from '../domain/watchlist.ts';
import { DELIVERY_CHANNEL } from './delivery.ts';

export const FANOUT_LOCK = [4243, 0] as const;
export const FANOUT_BATCH = 5_000;

const PUBLIC_SECTOR_CODES = [...PUBLIC_SECTOR_TYPE_CODES];
/** The type wildcards as two parallel arrays (wildcard, entity type code) for the fan-out's join. */
const TYPE_WILDCARDS = Object.entries(WILDCARD_TYPES).flatMap(([wildcard, codes]) =>
  codes.map((code) => [wildcard, code] as const),
);
const TYPE_WILDCARD_NAMES = TYPE_WILDCARDS.map(([wildcard]) => wildcard);
const TYPE_WILDCARD_CODES = TYPE_WILDCARDS.map(([, code]) => code);

export interface FanOutResult {
  events: number;
  records: number;
  /** Another process held the fan-out: it will do the work. */
  busy: boolean;
}

const FAN_OUT = `
WITH batch AS (
  SELECT id, nzbn, change_event_type, change_date, entity_type_code
    FROM nzbn_change_events WHERE NOT fanned_out ORDER BY id LIMIT $1 FOR UPDATE
), marked AS (
  UPDATE nzbn_change_events e SET fanned_out = true FROM batch b WHERE e.id = b.id
), candidates AS (
  SELECT n.watchlist_id, b.id, b.change_event_type, b.change_date, b.entity_type_code
    FROM batch b JOIN nzbn_watchlist_nzbns n ON n.nzbn = b.nzbn
  UNION
  SELECT w.id, b.id, b.change_event_type, b.change_date, b.entity_type_code
    FROM batch b JOIN nzbn_watchlists w ON w.wildcard = 'ALL'

  UNION
  SELECT w.id, b.id, b.change_event_type, b.change_date, b.entity_type_code
    FROM batch b JOIN unnest($4::text[], $5::text[]) AS t(wildcard, type_code) ON t.type_code = b.entity_type_code
    JOIN nzbn_watchlists w ON w.wildcard = t.wildcard
), matched AS (
  SELECT c.watchlist_id, c.id AS change_event_id
    FROM candidates c JOIN nzbn_watchlists w ON w.id = c.watchlist_id
   WHERE w.end_dated_at IS NULL
     AND c.change_date >= w.from_date AND (w.to_date IS NULL OR c.change_date <= w.to_date)
     AND ('ALL' = ANY (w.change_event_types)
          OR (c.change_event_type <> 'NEW' AND 'ENTITY' = ANY (w.change_event_types))
          OR c.change_event_type = ANY (w.change_event_types))
     AND c.entity_type_code <> ALL ($3::text[])
), inserted AS (
  INSERT INTO nzbn_notifications (watchlist_id, change_event_id, created_at)
  SELECT watchlist_id, change_event_id, $2 FROM matched ORDER BY change_event_id, watchlist_id
  RETURNING watchlist_id
), touched AS (
  SELECT watchlist_id, count(*) AS records FROM inserted GROUP BY watchlist_id
), woken AS (
  -- The delivery job looks at a watchlist when its next_due_at comes: now for push (unless its head
  -- already waits for a retry), the next digest time for email.
  UPDATE nzbn_watchlists w
     SET next_due_at = coalesce(w.next_due_at, CASE
           WHEN w.channel = 'PUSH' OR w.frequency = 'ONEVENT' OR w.last_digest_at IS NULL THEN $2
           WHEN w.frequency = 'WEEKLY' THEN greatest($2, w.last_digest_at + interval '7 days')
           ELSE greatest($2, w.last_digest_at + interval '1 day') END)
    FROM touched t WHERE w.id = t.watchlist_id
)
SELECT (SELECT count(*) FROM batch)::int AS events, (SELECT coalesce(sum(records), 0) FROM touched)::int AS records`;

/** Fans out one batch of waiting change events; `now` is the environment clock's. */
export async function fanOutBatch(pool: pg.Pool, now: Date, batch = FANOUT_BATCH): Promise<FanOutResult> {
  return withTransaction(pool, async (client) => {
    const lock = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1, $2) AS ok', [
      ...FANOUT_LOCK,
    ]);
    if (!lock.rows[0]!.ok) return { events: 0, records: 0, busy: true };
    const result = await client.query<{ events: number; records: number }>(FAN_OUT, [
      batch,
      now,
      PUBLIC_SECTOR_CODES,
      TYPE_WILDCARD_NAMES,
      TYPE_WILDCARD_CODES,
    ]);
    const { events, records } = result.rows[0]!;
    if (records > 0) await client.query(`SELECT pg_notify($1, 'records')`, [DELIVERY_CHANNEL]);
    return { events, records, busy: false };
  });
}

/** Fans out until no change event waits (or another process holds the fan-out). */
export async function fanOutAll(
  pool: pg.Pool,
  now: () => Date,
): Promise<{ events: number; records: number }> {
  const total = { events: 0, records: 0 };
  for (;;) {
    const result = await fanOutBatch(pool, now());
    total.events += result.events;
    total.records += result.records;
    if (result.busy || result.events === 0) return total;
  }
}
