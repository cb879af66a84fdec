/** `rsg export bonds` (transfer/export-bonds.ts): the bonds in bond id order, a page at a time. */
import type pg from 'pg';

export interface BondExportRow {
  bondId: string;
  tenancyStart: string;
  lodged: string;
  closed: string | null;
  sa2Code: number;
  dwellingType: string;
  bedrooms: number | null;
  weeklyRent: number;
  bondAmount: number;
}

/** Bonds after `after` (by bond id, code-point order), at most `limit`. */
export async function bondsAfter(
  client: Pick<pg.Pool, 'query'>,
  after: string,
  limit: number,
): Promise<BondExportRow[]> {
  const result = await client.query<BondExportRow>(
    `SELECT bond_id AS "bondId", to_char(tenancy_start, 'YYYY-MM-DD') AS "tenancyStart",
            to_char(lodged, 'YYYY-MM-DD') AS lodged, to_char(closed, 'YYYY-MM-DD') AS closed, sa2_code AS "sa2Code",
            dwelling_type AS "dwellingType", bedrooms, weekly_rent AS "weeklyRent", bond_amount AS "bondAmount"
       FROM market_rent_bonds WHERE bond_id COLLATE "C" > $1 ORDER BY bond_id COLLATE "C" LIMIT $2`,
    [after, limit],
  );
  return result.rows;
}
