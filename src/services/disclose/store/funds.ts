/** The funds' SQL: a fund at a version of its parent offer, an offer's funds, holdings, fund versions. */
import type { Pool } from 'pg';
import type { FilingRow, Slice } from './register.ts';

export interface FundRow {
  fundNumber: string;
  offerNumber: string;
  version: number;
  currentVersion: number;
  offerVersion: number;
  changedAt: Date;
  lastChanged: Date;
  document: Record<string, unknown>;
  holdingsVersion: number | null;
  holdingsPeriodEnd: string | null;
  registeredOn: string;
}

const FUND_COLUMNS = `f.fund_number AS "fundNumber", f.offer_number AS "offerNumber", v.version,
  f.version AS "currentVersion", v.offer_version AS "offerVersion", v.changed_at AS "changedAt",
  f.last_changed AS "lastChanged", v.document, v.holdings_version AS "holdingsVersion",
  to_char(v.holdings_period_end, 'YYYY-MM-DD') AS "holdingsPeriodEnd",
  to_char(f.registered_on, 'YYYY-MM-DD') AS "registeredOn"`;

/**
 * A fund as it was at version `offerVersion` of its parent offer (the latest fund version made while
 * that offer version was current), or its current version; undefined when absent or not yet existing.
 */
export async function fundAt(
  pool: Pool,
  fundNumber: string,
  offerVersion: number | undefined,
): Promise<FundRow | undefined> {
  const result = await pool.query<FundRow>(
    `SELECT ${FUND_COLUMNS}
       FROM disclose_funds f JOIN disclose_fund_versions v ON v.fund_number = f.fund_number
      WHERE f.fund_number = $1 AND ($2::integer IS NULL OR v.offer_version <= $2)
      ORDER BY v.version DESC LIMIT 1`,
    [fundNumber, offerVersion ?? null],
  );
  return result.rows[0];
}

/** A fund at one of its own versions (`fundVersion`); undefined when the fund or the version is absent. */
export async function fundAtOwnVersion(
  pool: Pool,
  fundNumber: string,
  fundVersion: number,
): Promise<FundRow | undefined> {
  const result = await pool.query<FundRow>(
    `SELECT ${FUND_COLUMNS}
       FROM disclose_funds f JOIN disclose_fund_versions v ON v.fund_number = f.fund_number
      WHERE f.fund_number = $1 AND v.version = $2`,
    [fundNumber, fundVersion],
  );
  return result.rows[0];
}

/** The funds of an offer as they were at an offer version (or now), in fund number order. */
export async function fundsOfOffer(
  pool: Pool,
  offerNumber: string,
  offerVersion: number | undefined,
  slice: Slice,
): Promise<{ total: number; rows: FundRow[] }> {
  const result = await pool.query<FundRow & { total: number }>(
    `SELECT DISTINCT ON (f.fund_number) ${FUND_COLUMNS}, count(*) OVER () AS total
       FROM disclose_funds f JOIN disclose_fund_versions v ON v.fund_number = f.fund_number
      WHERE f.offer_number = $1 AND ($2::integer IS NULL OR v.offer_version <= $2)
      ORDER BY f.fund_number, v.version DESC`,
    [offerNumber, offerVersion ?? null],
  );
  const rows = result.rows;
  return { total: rows.length, rows: rows.slice(slice.offset, slice.offset + slice.limit) };
}

export interface HoldingRow {
  assetName: string;
  assetType: string;
  isin: string | null;
  value: number;
  percentageOfFund: number;
  currency: string;
}

/** The holdings filed with one fund version, in filing order, and how many there are. */
export async function holdings(
  pool: Pool,
  fundNumber: string,
  fundVersion: number,
  slice: Slice,
): Promise<{ total: number; rows: HoldingRow[] }> {
  const [rows, count] = await Promise.all([
    pool.query<HoldingRow>(
      `SELECT asset_name AS "assetName", asset_type AS "assetType", isin, value::float8 AS value,
              percentage_of_fund::float8 AS "percentageOfFund", currency
         FROM disclose_fund_holdings WHERE fund_number = $1 AND fund_version = $2
        ORDER BY line LIMIT $3 OFFSET $4`,
      [fundNumber, fundVersion, slice.limit, slice.offset],
    ),
    pool.query<{ n: number }>(
      'SELECT count(*) AS n FROM disclose_fund_holdings WHERE fund_number = $1 AND fund_version = $2',
      [fundNumber, fundVersion],
    ),
  ]);
  return { total: Number(count.rows[0]?.n ?? 0), rows: rows.rows };
}

/** Every version of a fund, newest first, with the offer version each belongs to. */
export async function fundVersions(
  pool: Pool,
  fundNumber: string,
): Promise<{ version: number; offerVersion: number; changedAt: Date; change: string }[]> {
  const result = await pool.query(
    `SELECT version, offer_version AS "offerVersion", changed_at AS "changedAt", change
       FROM disclose_fund_versions WHERE fund_number = $1 ORDER BY version DESC`,
    [fundNumber],
  );
  return result.rows;
}

/** The filing history entries that name a fund (in its scheme's or offer's history), newest first. */
export async function fundFilingHistory(
  pool: Pool,
  fundNumber: string,
  slice: Slice,
): Promise<{ total: number; rows: FilingRow[] }> {
  const [rows, count] = await Promise.all([
    pool.query<FilingRow>(
      `SELECT filed_at AS "filedAt", filing_type AS "filingType", description, fund_number AS "fundNumber", late
         FROM disclose_filing_history WHERE fund_number = $1
        ORDER BY filed_at DESC, id DESC LIMIT $2 OFFSET $3`,
      [fundNumber, slice.limit, slice.offset],
    ),
    pool.query<{ n: number }>('SELECT count(*) AS n FROM disclose_filing_history WHERE fund_number = $1', [
      fundNumber,
    ]),
  ]);
  return { total: Number(count.rows[0]?.n ?? 0), rows: rows.rows };
}

export interface FundReturnRow {
  periodEnd: string;
  filedAt: Date;
  late: boolean;
  version: number;
  document: Record<string, unknown>;
}

/** The fund updates a fund filed, each with the fund version it made, newest period first. */
export async function fundReturns(
  pool: Pool,
  fundNumber: string,
  slice: Slice,
): Promise<{ total: number; rows: FundReturnRow[] }> {
  const from = `FROM disclose_compliance_activities a
       JOIN disclose_fund_versions v ON v.fund_number = a.fund_number AND v.version = a.fund_version
      WHERE a.fund_number = $1 AND a.kind = 'FUND_UPDATE' AND a.filed_at IS NOT NULL`;
  const [rows, count] = await Promise.all([
    pool.query<FundReturnRow>(
      `SELECT to_char(a.period_end, 'YYYY-MM-DD') AS "periodEnd", a.filed_at AS "filedAt", coalesce(a.late, false) AS late,
              v.version, v.document
         ${from} ORDER BY a.period_end DESC LIMIT $2 OFFSET $3`,
      [fundNumber, slice.limit, slice.offset],
    ),
    pool.query<{ n: number }>(`SELECT count(*) AS n ${from}`, [fundNumber]),
  ]);
  return { total: Number(count.rows[0]?.n ?? 0), rows: rows.rows };
}
