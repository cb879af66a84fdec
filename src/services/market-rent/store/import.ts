import type pg from 'pg';
import { withTransaction } from '../../../platform/db/pool.ts';
import { applyChanges, createChangesTable, INCREMENTAL_LIMIT, rebuildAggregates } from './aggregates.ts';
import { copyFrom } from './copy.ts';

/**
 * The SQL of `rsg import bonds` (operations/bonds.ts reads and checks the file): the checked rows are
 * staged in a temporary table, bond ids given twice are found, and the staged rows are merged into the
 * bonds with the monthly cells, all in one transaction, so the file goes in whole or not at all.
 */
const STAGE_COLUMNS =
  'line, bond_id, tenancy_start, lodged, closed, sa2_code, dwelling_type, bedrooms, weekly_rent, bond_amount';
const BOND_FIELDS =
  'tenancy_start, lodged, closed, sa2_code, dwelling_type, bedrooms, weekly_rent, bond_amount';

/** A bond id on more than one line of the file (`lines` in file order). */
export interface DuplicateBond {
  bondId: string;
  lines: number[];
}

export interface MergeCounts {
  inserted: number;
  updated: number;
  /** How the monthly cells were brought up to date. */
  aggregates: 'incremental' | 'rebuilt';
}

/**
 * Stages `staged` (COPY text lines: line number, then the bond's fields), shows `check` the first
 * `limit` bond ids given twice (it throws to refuse the file: nothing is kept), then merges.
 */
export async function importStagedBonds(
  pool: pg.Pool,
  staged: AsyncIterable<string>,
  limit: number,
  check: (duplicates: DuplicateBond[]) => void,
): Promise<MergeCounts> {
  return withTransaction(pool, async (client) => {
    await client.query(`
      CREATE TEMPORARY TABLE market_rent_import (
        line integer NOT NULL, bond_id text NOT NULL, tenancy_start date NOT NULL, lodged date NOT NULL,
        closed date, sa2_code integer NOT NULL, dwelling_type text NOT NULL, bedrooms smallint,
        weekly_rent integer NOT NULL, bond_amount integer NOT NULL) ON COMMIT DROP`);
    await copyFrom(client, `COPY market_rent_import (${STAGE_COLUMNS}) FROM STDIN`, staged);
    const duplicates = await client.query<{ bond_id: string; lines: number[] }>(
      `SELECT bond_id, array_agg(line ORDER BY line) AS lines FROM market_rent_import
       GROUP BY bond_id HAVING count(*) > 1 ORDER BY min(line) LIMIT $1`,
      [limit],
    );
    check(duplicates.rows.map((d) => ({ bondId: d.bond_id, lines: d.lines })));
    return merge(client);
  });
}

/** Moves the staged rows into the bonds and brings the monthly cells up to date. */
async function merge(client: pg.PoolClient): Promise<MergeCounts> {
  await client.query('CREATE INDEX ON market_rent_import (bond_id)');
  await client.query('ANALYZE market_rent_import');
  // Rows that differ from the stored bond of the same id, or are new.
  await client.query(`
    CREATE TEMPORARY TABLE market_rent_import_changed ON COMMIT DROP AS
    SELECT i.*, (b.bond_id IS NOT NULL) AS existing FROM market_rent_import i
    LEFT JOIN market_rent_bonds b ON b.bond_id = i.bond_id
    WHERE b.bond_id IS NULL OR (b.tenancy_start, b.lodged, b.closed, b.sa2_code, b.dwelling_type,
      b.bedrooms, b.weekly_rent, b.bond_amount) IS DISTINCT FROM (i.tenancy_start, i.lodged, i.closed,
      i.sa2_code, i.dwelling_type, i.bedrooms, i.weekly_rent, i.bond_amount)`);
  const counted = await client.query<{ inserted: number; updated: number }>(`
    SELECT count(*) FILTER (WHERE NOT existing)::integer AS inserted,
      count(*) FILTER (WHERE existing)::integer AS updated FROM market_rent_import_changed`);
  const { inserted, updated } = counted.rows[0] ?? { inserted: 0, updated: 0 };
  if (inserted + updated === 0) return { inserted, updated, aggregates: 'incremental' };

  const incremental = inserted + 2 * updated <= INCREMENTAL_LIMIT;
  if (incremental) {
    await createChangesTable(client);
    await client.query(`
      INSERT INTO market_rent_changes (sign, ${BOND_FIELDS})
      SELECT -1, ${prefixed('b')} FROM market_rent_bonds b
      JOIN market_rent_import_changed c ON c.bond_id = b.bond_id
      UNION ALL
      SELECT 1, ${BOND_FIELDS} FROM market_rent_import_changed`);
  }
  await client.query(`
    INSERT INTO market_rent_bonds (bond_id, ${BOND_FIELDS})
    SELECT bond_id, ${BOND_FIELDS} FROM market_rent_import_changed
    ON CONFLICT (bond_id) DO UPDATE SET ${BOND_FIELDS.split(', ')
      .map((f) => `${f} = excluded.${f}`)
      .join(', ')}`);
  if (incremental) await applyChanges(client);
  else await rebuildAggregates(client);
  return { inserted, updated, aggregates: incremental ? 'incremental' : 'rebuilt' };
}

const prefixed = (alias: string) =>
  BOND_FIELDS.split(', ')
    .map((f) => `${alias}.${f}`)
    .join(', ');
