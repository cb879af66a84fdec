/**
 * The queries of the sandbox's invariants (sandbox/invariants.ts): each finds the bonds (or groups of
 * bonds) that break one rule, with what is wrong. Reads only; each is one scan of the bonds.
 */
import type pg from 'pg';

export interface RuleBreak {
  record: string;
  detail: string;
}

type Pool = Pick<pg.Pool, 'query'>;
const found = async (pool: Pool, sql: string, values: unknown[] = []): Promise<RuleBreak[]> =>
  (await pool.query<RuleBreak>(sql, values)).rows;

/**
 * Bonds whose dates are out of order: a tenancy starting after today, lodged before it started or more
 * than `lodgeDays` calendar days after, or closed sooner than `shortestDays` after it started or after
 * today. (A bond lodged after today is one still to come in the statistics: in order.)
 */
export function bondDatesOutOfOrder(
  pool: Pool,
  today: string,
  lodgeDays: number,
  shortestDays: number,
): Promise<RuleBreak[]> {
  return found(
    pool,
    `SELECT bond_id AS record,
            CASE
              WHEN tenancy_start > $1::date THEN 'tenancy starts ' || tenancy_start || ', after today'
              WHEN lodged < tenancy_start THEN 'lodged ' || lodged || ', before the tenancy started ' || tenancy_start
              WHEN lodged > tenancy_start + $2::int THEN 'lodged ' || lodged || ', ' || (lodged - tenancy_start) || ' days after the tenancy started'
              WHEN closed > $1::date THEN 'closed ' || closed || ', after today'
              ELSE 'closed ' || closed || ', ' || (closed - tenancy_start) || ' days after the tenancy started'
            END AS detail
       FROM market_rent_bonds
      WHERE tenancy_start > $1::date OR lodged < tenancy_start OR lodged > tenancy_start + $2::int
         OR closed > $1::date OR closed < tenancy_start + $3::int
      ORDER BY bond_id`,
    [today, lodgeDays, shortestDays],
  );
}

/** Bonds of nothing, or of more than four weeks' rent. */
export function bondsOverFourWeeks(pool: Pool): Promise<RuleBreak[]> {
  return found(
    pool,
    `SELECT bond_id AS record, 'bond $' || bond_amount || ' on a weekly rent of $' || weekly_rent AS detail
       FROM market_rent_bonds WHERE bond_amount <= 0 OR bond_amount > 4 * weekly_rent
      ORDER BY bond_id`,
  );
}

/** Bonds whose weekly rent is outside its dwelling type's range (`ranges`: type → [lowest, highest]). */
export function rentsOutOfRange(
  pool: Pool,
  ranges: Readonly<Record<string, readonly [number, number]>>,
): Promise<RuleBreak[]> {
  return found(
    pool,
    `SELECT b.bond_id AS record,
            b.dwelling_type || ' let at $' || b.weekly_rent || ' a week, outside $' || r.low || '–$' || r.high AS detail
       FROM market_rent_bonds b
       JOIN jsonb_each($1::jsonb) t(dwelling, pair) ON t.dwelling = b.dwelling_type
       CROSS JOIN LATERAL (SELECT (pair ->> 0)::int AS low, (pair ->> 1)::int AS high) r
      WHERE b.weekly_rent < r.low OR b.weekly_rent > r.high
      ORDER BY b.bond_id`,
    [JSON.stringify(ranges)],
  );
}

/**
 * The median weekly rent of the tenancies started in the last year before `today`, by dwelling type and
 * bedroom group (1, 2, 3, 4, 5+; NA left out), with how many bonds each has.
 */
export async function medianRents(
  pool: Pool,
  today: string,
): Promise<{ dwelling: string; bedrooms: string; median: number; bonds: number }[]> {
  const { rows } = await pool.query<{ dwelling: string; bedrooms: string; median: number; bonds: number }>(
    `SELECT dwelling_type AS dwelling, CASE WHEN bedrooms >= 5 THEN '5+' ELSE bedrooms::text END AS bedrooms,
            percentile_disc(0.5) WITHIN GROUP (ORDER BY weekly_rent)::int AS median, count(*)::int AS bonds
       FROM market_rent_bonds
      WHERE bedrooms IS NOT NULL AND tenancy_start > $1::date - 365 AND tenancy_start <= $1::date
      GROUP BY 1, 2 ORDER BY 1, 2`,
    [today],
  );
  return rows;
}

/**
 * The median weekly rent of the three-bedroom houses let in the last year before `today`, by region
 * (`regionOf`: SA2 codes and the region of each), with how many bonds each has.
 */
export async function regionalHouseRents(
  pool: Pool,
  today: string,
  regionOf: { sa2: number[]; region: string[] },
): Promise<{ region: string; median: number; bonds: number }[]> {
  const { rows } = await pool.query<{ region: string; median: number; bonds: number }>(
    `SELECT g.region, percentile_disc(0.5) WITHIN GROUP (ORDER BY b.weekly_rent)::int AS median, count(*)::int AS bonds
       FROM market_rent_bonds b JOIN unnest($2::int[], $3::text[]) g(sa2, region) ON g.sa2 = b.sa2_code
      WHERE b.dwelling_type = 'House' AND b.bedrooms = 3
        AND b.tenancy_start > $1::date - 365 AND b.tenancy_start <= $1::date
      GROUP BY g.region ORDER BY g.region`,
    [today, regionOf.sa2, regionOf.region],
  );
  return rows;
}

/** The SA2 codes the bonds are in, with how many bonds each. */
export async function bondAreas(pool: Pool): Promise<{ sa2: number; bonds: number }[]> {
  const { rows } = await pool.query<{ sa2: number; bonds: number }>(
    `SELECT sa2_code AS sa2, count(*)::int AS bonds FROM market_rent_bonds GROUP BY sa2_code ORDER BY sa2_code`,
  );
  return rows;
}

/**
 * Months whose histograms (the rent and closed cells /statistics reads) do not count the bonds the
 * table holds: tenancies started, bond amounts, and tenancies closed in the month, each level against
 * the bonds.
 */
export function cellsAgainstBonds(pool: Pool): Promise<RuleBreak[]> {
  return found(
    pool,
    `WITH started AS (
       SELECT date_trunc('month', tenancy_start)::date AS month, count(*) AS bonds, sum(bond_amount) AS amount
         FROM market_rent_bonds GROUP BY 1),
     rent AS (SELECT month, sum(bonds) AS bonds, sum(bond_sum) AS amount FROM market_rent_rent_cells GROUP BY 1),
     ended AS (SELECT date_trunc('month', closed)::date AS month, count(*) AS bonds
                 FROM market_rent_bonds WHERE closed IS NOT NULL GROUP BY 1),
     closed AS (SELECT month, sum(bonds) AS bonds FROM market_rent_closed_cells GROUP BY 1)
     SELECT to_char(month, 'YYYY-MM') AS record, string_agg(detail, '; ') AS detail FROM (
       SELECT coalesce(s.month, r.month) AS month,
              'rent histograms count ' || coalesce(r.bonds, 0) || ' bonds worth $' || coalesce(r.amount, 0)
                || ', the bonds ' || coalesce(s.bonds, 0) || ' worth $' || coalesce(s.amount, 0) AS detail
         FROM started s FULL JOIN rent r USING (month)
        WHERE coalesce(s.bonds, 0) <> coalesce(r.bonds, 0) OR coalesce(s.amount, 0) <> coalesce(r.amount, 0)
       UNION ALL
       SELECT coalesce(e.month, c.month), 'closed histograms count ' || coalesce(c.bonds, 0)
                || ' closures, the bonds ' || coalesce(e.bonds, 0)
         FROM ended e FULL JOIN closed c USING (month)
        WHERE coalesce(e.bonds, 0) <> coalesce(c.bonds, 0)
     ) d GROUP BY month ORDER BY month`,
  );
}
