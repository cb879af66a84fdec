import type pg from 'pg';

/**
 * Maintenance of the monthly cell tables from the bonds, always inside the caller's transaction, so a
 * reader sees the bonds and their histograms change together. Two ways, same result:
 *
 * - `rebuildAggregates`: from scratch with three GROUP BYs and one window sum. Used by the generator and
 *   by imports large enough that adding them one by one would cost more.
 * - `applyChanges`: adds the rows of a `market_rent_changes` temporary table (+1 for a bond's new
 *   version, −1 for the version it replaces) to the cells, the closed counts and the active counts.
 *
 * Either way the state row's revision moves on, which tells every process to drop its cached blocks.
 */

const CELL = 'market_rent_dwelling_code(dwelling_type), market_rent_bedrooms_code(bedrooms)';
const MONTH = (column: string) => `date_trunc('month', ${column})::date`;

/** Above this many changed rows an import rebuilds instead of applying changes one by one. */
export const INCREMENTAL_LIMIT = 20_000;

const INDEXES: [table: string, key: string][] = [
  ['market_rent_rent_cells', 'month, sa2_code, dwelling, bedrooms, weekly_rent'],
  ['market_rent_closed_cells', 'month, sa2_code, dwelling, bedrooms'],
  ['market_rent_active_cells', 'month, sa2_code, dwelling, bedrooms'],
];

export async function rebuildAggregates(client: pg.PoolClient): Promise<void> {
  await client.query('TRUNCATE market_rent_rent_cells, market_rent_closed_cells, market_rent_active_cells');
  // Filling tables without their indexes and building the indexes once is several times faster.
  for (const [table] of INDEXES) {
    await client.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey`);
    await client.query(`DROP INDEX ${table}_empty`);
  }
  await client.query(`
    INSERT INTO market_rent_rent_cells (month, sa2_code, dwelling, bedrooms, weekly_rent, bonds, bond_sum)
    SELECT ${MONTH('tenancy_start')}, sa2_code, ${CELL}, weekly_rent, count(*), sum(bond_amount)
    FROM market_rent_bonds GROUP BY 1, 2, 3, 4, 5`);
  await client.query(`
    INSERT INTO market_rent_closed_cells (month, sa2_code, dwelling, bedrooms, bonds)
    SELECT ${MONTH('closed')}, sa2_code, ${CELL}, count(*)
    FROM market_rent_bonds WHERE closed IS NOT NULL GROUP BY 1, 2, 3, 4`);
  await client.query(`
    UPDATE market_rent_state SET horizon = (
      SELECT max(greatest(${MONTH('tenancy_start')}, ${MONTH('closed')})) FROM market_rent_bonds)`);
  // Active at the end of a month = started up to then − closed up to then: a running sum of the
  // monthly change per cell, each value repeated for the months until the cell's next change (or the
  // horizon), so no month × cell grid is ever joined.
  await client.query(`
    INSERT INTO market_rent_active_cells (month, sa2_code, dwelling, bedrooms, bonds)
    WITH change AS (
      SELECT month, sa2_code, dwelling, bedrooms, sum(bonds)::integer AS change FROM (
        SELECT month, sa2_code, dwelling, bedrooms, bonds FROM market_rent_rent_cells
        UNION ALL
        SELECT month, sa2_code, dwelling, bedrooms, -bonds FROM market_rent_closed_cells) AS c
      GROUP BY 1, 2, 3, 4),
    running AS (
      SELECT month, sa2_code, dwelling, bedrooms, sum(change) OVER w AS active, lead(month) OVER w AS next
      FROM change WINDOW w AS (PARTITION BY sa2_code, dwelling, bedrooms ORDER BY month))
    SELECT m::date, r.sa2_code, r.dwelling, r.bedrooms, r.active
    FROM running r, market_rent_state s,
      generate_series(r.month, coalesce(r.next - interval '1 month', s.horizon), interval '1 month') AS m
    WHERE r.active > 0`);
  for (const [table, key] of INDEXES) {
    await client.query(`ALTER TABLE ${table} ADD PRIMARY KEY (${key})`);
    await client.query(`CREATE INDEX ${table}_empty ON ${table} (month) WHERE bonds = 0`);
  }
  await client.query('TRUNCATE market_rent_blocks');
  for (const kind of BLOCK_KINDS) await refreshBlocks(client, kind, null);
  await bumpRevision(client);
}

/** The temporary table `applyChanges` reads; rows are bond versions with a sign. */
export async function createChangesTable(client: pg.PoolClient): Promise<void> {
  await client.query(`
    CREATE TEMPORARY TABLE market_rent_changes (
      sign smallint NOT NULL, tenancy_start date NOT NULL, lodged date NOT NULL, closed date,
      sa2_code integer NOT NULL,
      dwelling_type text NOT NULL, bedrooms smallint, weekly_rent integer NOT NULL,
      bond_amount integer NOT NULL) ON COMMIT DROP`);
}

export async function applyChanges(client: pg.PoolClient): Promise<void> {
  const rent = await client.query<{ month: string }>(`
    INSERT INTO market_rent_rent_cells AS c (month, sa2_code, dwelling, bedrooms, weekly_rent, bonds, bond_sum)
    SELECT ${MONTH('tenancy_start')}, sa2_code, ${CELL}, weekly_rent, sum(sign), sum(sign * bond_amount)
    FROM market_rent_changes GROUP BY 1, 2, 3, 4, 5
    HAVING sum(sign) <> 0 OR sum(sign * bond_amount) <> 0
    ON CONFLICT (month, sa2_code, dwelling, bedrooms, weekly_rent) DO UPDATE
      SET bonds = c.bonds + excluded.bonds, bond_sum = c.bond_sum + excluded.bond_sum
    RETURNING month::text`);
  const closed = await client.query<{ month: string }>(`
    INSERT INTO market_rent_closed_cells AS c (month, sa2_code, dwelling, bedrooms, bonds)
    SELECT ${MONTH('closed')}, sa2_code, ${CELL}, sum(sign)
    FROM market_rent_changes WHERE closed IS NOT NULL GROUP BY 1, 2, 3, 4 HAVING sum(sign) <> 0
    ON CONFLICT (month, sa2_code, dwelling, bedrooms) DO UPDATE SET bonds = c.bonds + excluded.bonds
    RETURNING month::text`);

  // The horizon only moves forward; the months it gains start as copies of the old last month.
  const { rows } = await client.query<{ old: string | null; next: string | null }>(`
    SELECT s.horizon::text AS old, greatest(s.horizon, (
      SELECT max(greatest(${MONTH('tenancy_start')}, ${MONTH('closed')}))
      FROM market_rent_changes WHERE sign > 0))::text AS next
    FROM market_rent_state s`);
  const { old, next } = rows[0] ?? { old: null, next: null };
  const activeMonths = new Set<string>();
  if (old !== null && next !== null && next > old) {
    const extended = await client.query<{ month: string }>(
      `INSERT INTO market_rent_active_cells (month, sa2_code, dwelling, bedrooms, bonds)
       SELECT m::date, a.sa2_code, a.dwelling, a.bedrooms, a.bonds
       FROM market_rent_active_cells a,
         generate_series($1::date + interval '1 month', $2::date, interval '1 month') AS m
       WHERE a.month = $1::date
       RETURNING month::text`,
      [old, next],
    );
    for (const row of extended.rows) activeMonths.add(row.month);
  }
  await client.query('UPDATE market_rent_state SET horizon = $1::date', [next]);
  // A bond is active at the end of every month from its start up to the month before it closed.
  const active = await client.query<{ month: string }>(`
    INSERT INTO market_rent_active_cells AS a (month, sa2_code, dwelling, bedrooms, bonds)
    SELECT m::date, c.sa2_code, market_rent_dwelling_code(c.dwelling_type),
      market_rent_bedrooms_code(c.bedrooms), sum(c.sign)
    FROM market_rent_changes c, market_rent_state s,
      generate_series(date_trunc('month', c.tenancy_start),
        coalesce(date_trunc('month', c.closed) - interval '1 month', s.horizon), interval '1 month') AS m
    GROUP BY 1, 2, 3, 4 HAVING sum(c.sign) <> 0
    ON CONFLICT (month, sa2_code, dwelling, bedrooms) DO UPDATE SET bonds = a.bonds + excluded.bonds
    RETURNING month::text`);
  for (const row of active.rows) activeMonths.add(row.month);
  for (const table of ['market_rent_rent_cells', 'market_rent_closed_cells', 'market_rent_active_cells']) {
    await client.query(`DELETE FROM ${table} WHERE bonds = 0`);
  }
  const months = (rows: { month: string }[]) => [...new Set(rows.map((r) => r.month))];
  await refreshBlocks(client, 'rent', months(rent.rows));
  await refreshBlocks(client, 'closed', months(closed.rows));
  await refreshBlocks(client, 'active', [...activeMonths]);
  await bumpRevision(client);
}

export const BLOCK_KINDS = ['rent', 'closed', 'active'] as const;
export type BlockKind = (typeof BLOCK_KINDS)[number];

/**
 * A block is columnar and big-endian: the entry count (int4), then each column in turn — the packed cell
 * key `sa2_code·64 + dwelling·8 + bedrooms` (int4), and for `rent` the rent (int4), the bonds (int4)
 * and the bond sum (float8); for `closed` and `active` the bonds (int4) — all sorted by cell, then rent.
 * Whole columns can then be byte-swapped natively and viewed as typed arrays (store/blocks.ts).
 */
const KEY = 'sa2_code * 64 + dwelling * 8 + bedrooms';
export const BLOCK_SOURCES: Record<BlockKind, { table: string; columns: string[]; order: string }> = {
  rent: {
    table: 'market_rent_rent_cells',
    columns: [`int4send(${KEY})`, 'int4send(weekly_rent)', 'int4send(bonds)', 'float8send(bond_sum::float8)'],
    order: 'sa2_code, dwelling, bedrooms, weekly_rent',
  },
  closed: {
    table: 'market_rent_closed_cells',
    columns: [`int4send(${KEY})`, 'int4send(bonds)'],
    order: 'sa2_code, dwelling, bedrooms',
  },
  active: {
    table: 'market_rent_active_cells',
    columns: [`int4send(${KEY})`, 'int4send(bonds)'],
    order: 'sa2_code, dwelling, bedrooms',
  },
};

/** Re-packs the given months (every month when null) of one cell table into market_rent_blocks. */
async function refreshBlocks(client: pg.PoolClient, kind: BlockKind, months: string[] | null): Promise<void> {
  if (months !== null && months.length === 0) return;
  const source = BLOCK_SOURCES[kind];
  const only = months === null ? '' : 'AND month = ANY($2::date[])';
  const parameters = months === null ? [kind] : [kind, months];
  const columns = source.columns.map((c) => `string_agg(${c}, ''::bytea ORDER BY ${source.order})`);
  await client.query(`DELETE FROM market_rent_blocks WHERE kind = $1 ${only}`, parameters);
  await client.query(
    `INSERT INTO market_rent_blocks (kind, month, data)
     SELECT $1, month, int4send(count(*)::integer) || ${columns.join(' || ')}
     FROM ${source.table} WHERE true ${only} GROUP BY month`,
    parameters,
  );
}

async function bumpRevision(client: pg.PoolClient): Promise<void> {
  await client.query('UPDATE market_rent_state SET revision = revision + 1');
}
