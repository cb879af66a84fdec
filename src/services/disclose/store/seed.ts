/**
 * All SQL of the sandbox seed: whether the register is there, the companies of the sandbox business
 * number register that managers, supervisors and offerors are drawn from, and the generated register
 * written in one transaction (each table's rows as one JSON array, `json_populate_recordset`).
 */
import type { Pool } from 'pg';
import { withTransaction } from '../../../platform/db/pool.ts';

export async function registerIsSeeded(pool: Pool): Promise<boolean> {
  const result = await pool.query('SELECT 1 FROM disclose_schemes LIMIT 1');
  return (result.rowCount ?? 0) > 0;
}

/** The tables' rows, each as the table's own column names. */
export type SeedRows = Record<
  | 'disclose_schemes'
  | 'disclose_scheme_versions'
  | 'disclose_offers'
  | 'disclose_offer_versions'
  | 'disclose_funds'
  | 'disclose_fund_versions'
  | 'disclose_fund_holdings'
  | 'disclose_participants'
  | 'disclose_notices'
  | 'disclose_documents'
  | 'disclose_filing_history'
  | 'disclose_compliance_activities',
  Record<string, unknown>[]
>;

const ORDER: (keyof SeedRows)[] = [
  'disclose_schemes',
  'disclose_scheme_versions',
  'disclose_offers',
  'disclose_offer_versions',
  'disclose_funds',
  'disclose_fund_versions',
  'disclose_fund_holdings',
  'disclose_participants',
  'disclose_notices',
  'disclose_documents',
  'disclose_filing_history',
  'disclose_compliance_activities',
];

/** Writes the generated register unless one is there already (checked under an advisory lock). */
export function insertRegister(pool: Pool, rows: SeedRows): Promise<boolean> {
  return withTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('disclose-seed'))");
    const present = await client.query('SELECT 1 FROM disclose_schemes LIMIT 1');
    if ((present.rowCount ?? 0) > 0) return false;
    for (const table of ORDER) {
      const list = rows[table];
      for (let start = 0; start < list.length; start += 5000) {
        const columns = Object.keys(list[0] ?? {});
        if (columns.length === 0) break;
        await client.query(
          `INSERT INTO ${table} (${columns.join(', ')})
           SELECT ${columns.join(', ')} FROM json_populate_recordset(NULL::${table}, $1::json)`,
          [JSON.stringify(list.slice(start, start + 5000))],
        );
      }
    }
    return true;
  });
}
