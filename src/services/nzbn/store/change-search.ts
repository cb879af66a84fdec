/**
 * The change event search (GET /entities/changes) over nzbn_change_events, which the register's writes
 * fill in the transaction of each change (store/changes.ts). A change is the events of one entity
 * recorded at one instant (one transaction's): the search counts and pages changes, each with its events
 * in the order recorded. Filters: change event types (already expanded from ALL / ENTITY by the caller
 * into a "recorded type" condition), entity type codes and a period on change_date, both ends inclusive;
 * sorted with the change's first event as the tie-breaker so paging is stable.
 */
import type pg from 'pg';
import type { ChangeGroupRow } from '../domain/change-item.ts';

/** The published `sort-by` values, and the change's date when none is given. */
export type ChangeSortColumn = 'CHANGE_DATE' | 'NZBN' | 'ENTITY_NAME' | 'ENTITY_STATUS' | 'ENTITY_TYPE_CODE';

export interface ChangeSearch {
  /** `ALL`: every type; `ENTITY`: every type but NEW; otherwise the recorded types wanted. */
  changeEventTypes: 'ALL' | 'ENTITY' | readonly string[];
  typeCodes?: readonly string[] | undefined;
  /** Entity types never shown (public sector: no change feed), whatever else is asked. */
  excludeTypeCodes?: readonly string[] | undefined;
  /** Epoch milliseconds, inclusive. */
  from?: number | undefined;
  /** Epoch milliseconds, inclusive. */
  to?: number | undefined;
  sortBy: ChangeSortColumn;
  descending: boolean;
  limit: number;
  offset: number;
}

/** The column each order sorts by (the entity's present status is read from its row). */
const COLUMNS: Record<ChangeSortColumn, string> = {
  CHANGE_DATE: 'g.change_date',
  NZBN: 'g.nzbn',
  ENTITY_NAME: 'g.entity_name',
  ENTITY_STATUS: 'e.status_code',
  ENTITY_TYPE_CODE: 'g.entity_type_code',
};

export async function searchChanges(
  pool: pg.Pool,
  search: ChangeSearch,
): Promise<{ total: number; rows: ChangeGroupRow[] }> {
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (search.changeEventTypes === 'ENTITY') where.push(`change_event_type <> 'NEW'`);
  else if (search.changeEventTypes !== 'ALL') {
    where.push(`change_event_type = ANY(${add(search.changeEventTypes)}::text[])`);
  }
  if (search.typeCodes) where.push(`entity_type_code = ANY(${add(search.typeCodes)}::text[])`);
  if (search.excludeTypeCodes?.length) {
    where.push(`entity_type_code <> ALL(${add(search.excludeTypeCodes)}::text[])`);
  }
  if (search.from !== undefined) where.push(`change_date >= ${add(new Date(search.from))}`);
  if (search.to !== undefined) where.push(`change_date <= ${add(new Date(search.to))}`);
  const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const direction = search.descending ? 'DESC' : 'ASC';
  // The column comes from a fixed map, never from the request.
  const order = [COLUMNS[search.sortBy], 'g.change_date', 'g.first_id'].map((c) => `${c} ${direction}`);
  const count = await pool.query<{ total: string }>(
    `SELECT count(*)::text AS total
       FROM (SELECT 1 FROM nzbn_change_events ${filter} GROUP BY nzbn, change_date) g`,
    values,
  );
  const join = search.sortBy === 'ENTITY_STATUS' ? 'LEFT JOIN nzbn_entities e ON e.nzbn = g.nzbn' : '';
  const rows = await pool.query<ChangeGroupRow>(
    `WITH g AS (
       SELECT nzbn, change_date, min(id) AS first_id,
              (array_agg(entity_name ORDER BY id DESC))[1] AS entity_name,
              (array_agg(entity_type_code ORDER BY id DESC))[1] AS entity_type_code,
              json_agg(json_build_object('changeEventType', change_event_type, 'newValue', new_value,
                                         'isPrivate', is_private) ORDER BY id) AS events
         FROM nzbn_change_events ${filter}
        GROUP BY nzbn, change_date)
     SELECT g.nzbn, g.entity_name, g.change_date, g.events FROM g ${join}
      ORDER BY ${order.join(', ')}
      LIMIT ${add(search.limit)} OFFSET ${add(search.offset)}`,
    values,
  );
  return { total: Number(count.rows[0]!.total), rows: rows.rows };
}
