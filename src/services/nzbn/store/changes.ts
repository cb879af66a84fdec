/**
 * Change events: one row per change, written by the transaction that makes the change, so a change
 * and its event commit or roll back together. The change event search and watchlists read
 * them. Field names of a change item are open in the reference; ours are listed in the README.
 */
import type pg from 'pg';

export interface ChangeEvent {
  nzbn: string;
  entityName: string;
  entityTypeCode: string;
  /** A recorded change event type (never the filter-only ALL or ENTITY). */
  changeEventType: string;
  changeDate: Date;
  /** The changed data after the change (for a director: the whole director). */
  newValue: unknown;
  /** The new value holds private data: only callers with authority over the entity may see it. */
  isPrivate: boolean;
}

export async function recordChange(client: pg.PoolClient, event: ChangeEvent): Promise<void> {
  await client.query(
    `INSERT INTO nzbn_change_events
       (nzbn, entity_name, entity_type_code, change_event_type, change_date, new_value, is_private)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      event.nzbn,
      event.entityName,
      event.entityTypeCode,
      event.changeEventType,
      event.changeDate,
      JSON.stringify(event.newValue ?? null),
      event.isPrivate,
    ],
  );
}

/** The next register-wide uniqueIdentifier for an item the register adds. */
export async function nextItemId(client: pg.PoolClient): Promise<string> {
  const result = await client.query<{ id: string }>("SELECT nextval('nzbn_item_id_seq')::text AS id");
  return result.rows[0]!.id;
}
