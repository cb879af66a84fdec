/**
 * The change event search (GET /entities/changes) over nzbn_change_events, which the register's writes
 * fill in the transaction of each change (store/changes.ts). Filters: change event types (already
 * expanded from ALL / ENTITY by the caller into a "recorded type" condition), entity type codes and a
 * half-open period on change_date; sorted with the event id as the tie-breaker so paging is stable.
 */
import type pg from 'pg';
import type { ChangeRow } from '../domain/change-item.ts';

export type ChangeSortColumn = 'changeDate' | 'entityName' | 'nzbn';

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

export type { ChangeRow };

const COLUMNS: Record<ChangeSortColumn, string> = {
  changeDate: 'change_date',
  entityName: 'entity_name',
  nzbn: 'nzbn',
};

export async function searchChanges(
  pool: pg.Pool,
  search: ChangeSearch,
): Promise<{ total: number; rows: ChangeRow[] }> {
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
  const order = `${COLUMNS[search.sortBy]} ${direction}, id ${direction}`;
  const count = await pool.query<{ total: string }>(
    `SELECT count(*)::text AS total FROM nzbn_change_events ${filter}`,
    values,
  );
  const rows = await pool.query<ChangeRow>(
    `SELECT id::text AS id, nzbn, entity_name, entity_type_code, change_event_type, change_date,
            new_value, is_private
       FROM nzbn_change_events ${filter}
      ORDER BY ${order}
      LIMIT ${add(search.limit)} OFFSET ${add(search.offset)}`,
    values,
  );
  return { total: Number(count.rows[0]!.total), rows: rows.rows };
}
