import type pg from 'pg';
import { withTransaction } from '../../../platform/db/pool.ts';
import { rebuildAggregates } from './aggregates.ts';
import { copyFrom } from './copy.ts';

/**
 * The bonds table as the sandbox generator writes it: the generated register replaces the bonds and the
 * monthly cells in one transaction, and the state row says which scale was generated.
 */
export const BOND_COLUMNS =
  'bond_id, tenancy_start, lodged, closed, sa2_code, dwelling_type, bedrooms, weekly_rent, bond_amount';

export interface GeneratedRegister {
  scale: string;
  /** Bonds the COPY text holds. */
  total: number;
  /** COPY text lines of the bonds (BOND_COLUMNS), in chunks. */
  text: AsyncIterable<string>;
  log: (line: string) => void;
}

/**
 * Replaces the bonds with `register`, with the monthly cells, in one transaction. Large registers drop
 * the bond indexes during COPY and build them after, which is several times faster.
 */
export async function replaceBonds(pool: pg.Pool, register: GeneratedRegister): Promise<void> {
  const big = register.total > 200_000;
  await withTransaction(pool, async (client) => {
    await client.query("SET LOCAL maintenance_work_mem = '512MB'");
    await client.query("SET LOCAL work_mem = '256MB'");
    await client.query('TRUNCATE market_rent_bonds');
    if (big) {
      await client.query('ALTER TABLE market_rent_bonds DROP CONSTRAINT market_rent_bonds_pkey');
      await client.query('DROP INDEX market_rent_bonds_start, market_rent_bonds_lodged');
    }
    await copyFrom(client, `COPY market_rent_bonds (${BOND_COLUMNS}) FROM STDIN`, register.text);
    if (big) {
      register.log('market-rent: indexing bonds');
      await client.query('ALTER TABLE market_rent_bonds ADD PRIMARY KEY (bond_id)');
      await client.query('CREATE INDEX market_rent_bonds_start ON market_rent_bonds (tenancy_start)');
      await client.query('CREATE INDEX market_rent_bonds_lodged ON market_rent_bonds (lodged)');
    }
    register.log('market-rent: building monthly cells');
    await rebuildAggregates(client);
    await client.query('UPDATE market_rent_state SET seed_scale = $1, seed_bonds = $2, seeded_at = now()', [
      register.scale,
      register.total,
    ]);
  });
  await pool.query('ANALYZE market_rent_bonds');
}

/** The scale of the generated register (null when none was generated) and whether any bond is stored. */
export async function seedState(pool: pg.Pool): Promise<{ scale: string | null; anyBond: boolean }> {
  const { rows } = await pool.query<{ seed_scale: string | null; any_bond: boolean }>(
    'SELECT seed_scale, EXISTS (SELECT 1 FROM market_rent_bonds) AS any_bond FROM market_rent_state',
  );
  return { scale: rows[0]?.seed_scale ?? null, anyBond: rows[0]?.any_bond ?? false };
}
