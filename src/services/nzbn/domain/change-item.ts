import { formatNzDateTime } from '../../../platform/nz-time.ts';

/** A recorded change event as the store reads it. */
export interface ChangeRow {
  id: string;
  nzbn: string;
  entity_name: string;
  entity_type_code: string;
  change_event_type: string;
  change_date: Date;
  new_value: unknown;
  is_private: boolean;
}

/**
 * A change item: what the change event search lists and what a push notification carries, in one
 * shape (spec part E, events 4). A new value holding private data is never sent (`newValue: null`):
 * neither the search nor a watchlist's receiver is known to hold authority over the entity.
 */
export function changeItem(row: ChangeRow, base: string) {
  return {
    changeEventId: row.id,
    nzbn: row.nzbn,
    entityName: row.entity_name,
    entityTypeCode: row.entity_type_code,
    changeEventType: row.change_event_type,
    changeDate: formatNzDateTime(row.change_date.getTime()),
    newValue: row.is_private ? null : (row.new_value ?? null),
    links: [{ rel: 'entity', href: `${base}/entities/${row.nzbn}`, methods: ['GET'] }],
  };
}
