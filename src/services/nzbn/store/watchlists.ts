/**
 * Watchlists and their business numbers (migration 003). Every function takes the owner key, so a
 * watchlist of another owner is simply not found.
 */
import type pg from 'pg';
import { withTransaction } from '../../../platform/db/pool.ts';
import { isWatchlistId, type WatchlistFields, type Wildcard } from '../domain/watchlist.ts';
import { DELIVERY_CHANNEL } from './delivery.ts';

export type { WatchlistFields };

export interface StoredWatchlist extends WatchlistFields {
  /** The internal key (a UUID) that notifications and deliveries use. */
  id: string;
  /** The published watchlistId: an integer, in the order watchlists were made. */
  number: number;
  userId: string | null;
  organisationId: string | null;
  lastSuccessfulChangeNoticeId: string | null;
  suspendedAt: Date | null;
  endDatedAt: Date | null;
  /** When the watchlist or its business numbers last changed: its Last-Modified. */
  updatedAt: Date;
  nzbns: string[];
}

interface Row {
  id: string;
  number: number;
  user_id: string | null;
  organisation_id: string | null;
  name: string;
  channel: 'EMAIL' | 'PUSH';
  frequency: string;
  wildcard: Wildcard | null;
  change_event_types: string[];
  push_endpoint: string | null;
  authorization_token: string | null;
  admin_email_address: string | null;
  watchlist_email_addresses: string[];
  from_date: Date;
  to_date: Date | null;
  last_successful_change_notice_id: string | null;
  suspended: boolean;
  suspended_at: Date | null;
  end_dated_at: Date | null;
  updated_at: Date;
  nzbns: string[];
}

const SELECT = `SELECT w.id::text AS id, w.number, user_id, organisation_id, name, channel, frequency, wildcard,
    change_event_types, push_endpoint, authorization_token, admin_email_address,
    watchlist_email_addresses, from_date, to_date, last_successful_change_notice_id::text AS
    last_successful_change_notice_id, suspended, suspended_at, end_dated_at, updated_at,
    ARRAY(SELECT nzbn FROM nzbn_watchlist_nzbns n WHERE n.watchlist_id = w.id ORDER BY nzbn) AS nzbns
  FROM nzbn_watchlists w`;

const toStored = (row: Row): StoredWatchlist => ({
  id: row.id,
  number: row.number,
  userId: row.user_id,
  organisationId: row.organisation_id,
  name: row.name,
  channel: row.channel,
  frequency: row.frequency,
  wildcard: row.wildcard,
  changeEventTypes: row.change_event_types,
  pushEndpoint: row.push_endpoint,
  authorizationToken: row.authorization_token,
  adminEmailAddress: row.admin_email_address,
  watchlistEmailAddresses: row.watchlist_email_addresses,
  fromDate: row.from_date,
  toDate: row.to_date,
  lastSuccessfulChangeNoticeId: row.last_successful_change_notice_id,
  suspended: row.suspended,
  suspendedAt: row.suspended_at,
  endDatedAt: row.end_dated_at,
  updatedAt: row.updated_at,
  nzbns: row.nzbns,
});

export async function findWatchlist(
  pool: pg.Pool,
  owner: string,
  id: string,
): Promise<StoredWatchlist | null> {
  if (!isWatchlistId(id)) return null;
  const result = await pool.query<Row>(`${SELECT} WHERE w.number = $1 AND w.owner_key = $2`, [
    Number(id),
    owner,
  ]);
  return result.rows[0] ? toStored(result.rows[0]) : null;
}

export interface WatchlistListing {
  name?: string | undefined;
  changeEventTypes?: string[] | undefined;
  sortBy: 'name' | 'fromDate' | 'watchlistId';
  descending: boolean;
  limit: number;
  offset: number;
}

export async function listWatchlists(
  pool: pg.Pool,
  owner: string,
  listing: WatchlistListing,
): Promise<{ total: number; watchlists: StoredWatchlist[] }> {
  const values: unknown[] = [owner];
  const where = ['w.owner_key = $1'];
  if (listing.name) {
    values.push(`%${listing.name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(`w.name ILIKE $${values.length}`);
  }
  if (listing.changeEventTypes) {
    values.push(listing.changeEventTypes);
    where.push(`w.change_event_types && $${values.length}::text[]`);
  }
  const column = { name: 'name', fromDate: 'from_date', watchlistId: 'number' }[listing.sortBy];
  const direction = listing.descending ? 'DESC' : 'ASC';
  const filter = where.join(' AND ');
  const count = await pool.query<{ total: string }>(
    `SELECT count(*)::text AS total FROM nzbn_watchlists w WHERE ${filter}`,
    values,
  );
  const rows = await pool.query<Row>(
    `${SELECT} WHERE ${filter} ORDER BY ${column} ${direction}, w.id ${direction}
      LIMIT ${Number(listing.limit)} OFFSET ${Number(listing.offset)}`,
    values,
  );
  return { total: Number(count.rows[0]!.total), watchlists: rows.rows.map(toStored) };
}

const FIELD_VALUES = (fields: WatchlistFields) => [
  fields.name,
  fields.channel,
  fields.frequency,
  fields.wildcard,
  fields.changeEventTypes,
  fields.pushEndpoint,
  fields.authorizationToken,
  fields.adminEmailAddress,
  fields.watchlistEmailAddresses,
  fields.fromDate,
  fields.toDate,
  fields.suspended,
];

export async function createWatchlist(
  pool: pg.Pool,
  owner: { key: string; userId: string | null; organisationId: string | null },
  fields: WatchlistFields,
  nzbns: readonly string[],
  secret: string,
  now: Date,
): Promise<string> {
  return withTransaction(pool, async (client) => {
    const inserted = await client.query<{ id: string; number: number }>(
      `INSERT INTO nzbn_watchlists (name, channel, frequency, wildcard, change_event_types, push_endpoint,
         authorization_token, admin_email_address, watchlist_email_addresses, from_date, to_date,
         suspended, owner_key, user_id, organisation_id, webhook_secret, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17)
       RETURNING id::text AS id, number`,
      [...FIELD_VALUES(fields), owner.key, owner.userId, owner.organisationId, secret, now],
    );
    const { id, number } = inserted.rows[0]!;
    await addNzbns(client, id, nzbns, now);
    return String(number);
  });
}

/**
 * The watchlist as it stands, locked for the rest of the transaction, for `check` (a write's
 * preconditions) to see before anything changes; null when the owner has no such watchlist.
 */
async function locked(
  client: pg.PoolClient,
  owner: string,
  id: string,
  check: (current: StoredWatchlist) => void,
): Promise<StoredWatchlist | null> {
  if (!isWatchlistId(id)) return null;
  const result = await client.query<Row>(
    `${SELECT} WHERE w.number = $1 AND w.owner_key = $2 FOR UPDATE OF w`,
    [Number(id), owner],
  );
  if (!result.rows[0]) return null;
  const current = toStored(result.rows[0]);
  check(current);
  return current;
}

/**
 * Saves the fields `change` makes from the watchlist as it stands (after its preconditions, checked by
 * `change` on the locked row). Resuming (suspended true → false) restarts delivery from the point of
 * suspension: the notification that failed is sent again first, on a fresh schedule (its original
 * attempt is the next one), then those created while suspended, in order.
 */
export async function updateWatchlist(
  pool: pg.Pool,
  owner: string,
  watchlistId: string,
  now: Date,
  change: (current: StoredWatchlist) => WatchlistFields,
): Promise<boolean> {
  return withTransaction(pool, async (client) => {
    let fields: WatchlistFields | undefined;
    const current = await locked(client, owner, watchlistId, (found) => {
      fields = change(found);
    });
    if (!current || !fields) return false;
    const { id } = current;
    const resuming = current.suspended && !fields.suspended;
    await client.query(
      `UPDATE nzbn_watchlists SET name = $1, channel = $2, frequency = $3, wildcard = $4,
         change_event_types = $5, push_endpoint = $6, authorization_token = $7, admin_email_address = $8,
         watchlist_email_addresses = $9, from_date = $10, to_date = $11, suspended = $12, updated_at = $13
       WHERE id = $14`,
      [...FIELD_VALUES(fields), now, id],
    );
    if (resuming) {
      await client.query(
        `UPDATE nzbn_notifications SET attempts = 0, first_attempt_at = NULL, next_attempt_at = NULL
          WHERE watchlist_id = $1 AND delivered_at IS NULL`,
        [id],
      );
      await client.query(
        `UPDATE nzbn_watchlists SET suspended_at = NULL, suspension_mail_due = false, lease_worker = NULL,
           next_due_at = CASE WHEN EXISTS (SELECT 1 FROM nzbn_notifications
             WHERE watchlist_id = $1 AND delivered_at IS NULL) THEN $2::timestamptz END
          WHERE id = $1`,
        [id, now],
      );
      await client.query(`SELECT pg_notify($1, 'resumed')`, [DELIVERY_CHANNEL]);
    }
    return true;
  });
}

/** Deletes the watchlist once `check` (its preconditions) passed on the locked row. */
export async function deleteWatchlist(
  pool: pg.Pool,
  owner: string,
  watchlistId: string,
  check: (current: StoredWatchlist) => void,
): Promise<boolean> {
  return withTransaction(pool, async (client) => {
    const current = await locked(client, owner, watchlistId, check);
    if (!current) return false;
    const { id } = current;
    await client.query('DELETE FROM nzbn_watchlists WHERE id = $1', [id]);
    // No foreign key (the fan-out writes too fast for one): its records go with it here.
    await client.query('DELETE FROM nzbn_notifications WHERE watchlist_id = $1', [id]);
    return true;
  });
}

/**
 * Adds and removes business numbers (already present ones are kept as they are, absent ones ignored)
 * once `check` (the preconditions) passed on the locked row; the watchlist's Last-Modified moves.
 */
export async function changeNzbns(
  pool: pg.Pool,
  owner: string,
  watchlistId: string,
  now: Date,
  check: (current: StoredWatchlist) => void,
  change: { add?: readonly string[]; remove?: readonly string[] },
): Promise<boolean> {
  return withTransaction(pool, async (client) => {
    const current = await locked(client, owner, watchlistId, check);
    if (!current) return false;
    const { id } = current;
    if (change.add) await addNzbns(client, id, change.add, now);
    if (change.remove && change.remove.length > 0) {
      await client.query(
        'DELETE FROM nzbn_watchlist_nzbns WHERE watchlist_id = $1 AND nzbn = ANY($2::text[])',
        [id, change.remove],
      );
    }
    await client.query('UPDATE nzbn_watchlists SET updated_at = $2 WHERE id = $1', [id, now]);
    return true;
  });
}

/** Adds business numbers (already present ones are kept as they are). The caller checked ownership. */
async function addNzbns(db: pg.PoolClient, id: string, nzbns: readonly string[], now: Date): Promise<void> {
  if (nzbns.length === 0) return;
  await db.query(
    `INSERT INTO nzbn_watchlist_nzbns (watchlist_id, nzbn, added_at)
     SELECT $1, nzbn, $3 FROM unnest($2::text[]) AS nzbn ON CONFLICT DO NOTHING`,
    [id, nzbns, now],
  );
}
