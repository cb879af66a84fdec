/**
 * All SQL of compliance: the funds and filings `GET /activities` is built from, and a filing written in
 * one transaction (the new fund version with its holdings, the activity completed, the filing-history
 * entry, the offer's last change).
 */
import type { Pool, PoolClient } from 'pg';
import { copyField, copyText } from '../../../platform/db/copy-text.ts';
import { withTransaction } from '../../../platform/db/pool.ts';
import type { ActivityKind, Filing } from '../domain/activities.ts';

export interface ComplianceFund {
  fundNumber: string;
  fundName: string;
  offerNumber: string;
  registeredOn: string;
  fphRequired: boolean;
  filings: Filing[];
}

/** The funds of these numbers with their filings (missing numbers are left out). */
export async function complianceFunds(pool: Pool, fundNumbers: readonly string[]): Promise<ComplianceFund[]> {
  if (fundNumbers.length === 0) return [];
  const result = await pool.query<Omit<ComplianceFund, 'filings'> & { filings: Filing[] | null }>(
    `SELECT f.fund_number AS "fundNumber", f.name AS "fundName", f.offer_number AS "offerNumber",
            to_char(f.registered_on, 'YYYY-MM-DD') AS "registeredOn", f.fph_required AS "fphRequired",
            (SELECT json_agg(json_build_object(
                'kind', a.kind, 'periodEnd', to_char(a.period_end, 'YYYY-MM-DD'),
                'dueDate', to_char(a.due_date, 'YYYY-MM-DD'),
                'filedOn', to_char(a.filed_at AT TIME ZONE 'Pacific/Auckland', 'YYYY-MM-DD'), 'late', a.late))
               FROM disclose_compliance_activities a
              WHERE a.fund_number = f.fund_number AND a.filed_at IS NOT NULL) AS filings
       FROM disclose_funds f WHERE f.fund_number = ANY($1::text[]) ORDER BY f.fund_number`,
    [fundNumbers],
  );
  return result.rows.map((row) => ({ ...row, filings: row.filings ?? [] }));
}

export interface FilingInput {
  fundNumber: string;
  offerNumber: string;
  /** The fund version the caller's If-Match named: the filing fails when it is no longer current. */
  expectedVersion: number;
  kind: ActivityKind;
  periodEnd: string;
  dueDate: string;
  late: boolean;
  at: Date;
  organisation: string;
  /** The fund's answer fields this filing replaces (unit price, returns, fees, allocation). */
  documentChanges: Record<string, unknown>;
  /** Holdings as columns (full portfolio holdings filings). */
  holdings?: {
    assetName: string[];
    assetType: string[];
    isin: (string | null)[];
    value: number[];
    percentageOfFund: number[];
    currency: string[];
  };
  /**
   * The request's preconditions against the fund as it stands, locked: throws (412) to write nothing.
   * Called before anything changes.
   */
  preconditions(current: { version: number; lastChanged: Date }): void;
}

export type FilingOutcome =
  | { outcome: 'filed'; version: number }
  | { outcome: 'stale' }
  | { outcome: 'missing' }
  | { outcome: 'duplicate'; filedAt: Date };

/** Writes a filing whole, or nothing (a failed precondition, a fund changed meanwhile, a period already filed). */
export function fileCompliance(pool: Pool, input: FilingInput): Promise<FilingOutcome> {
  return withTransaction(pool, async (client) => {
    const fund = await client.query<{
      version: number;
      lastChanged: Date;
      offerVersion: number;
      scheme: string | null;
    }>(
      `SELECT f.version, f.last_changed AS "lastChanged", o.version AS "offerVersion", o.scheme_number AS scheme
         FROM disclose_funds f JOIN disclose_offers o ON o.offer_number = f.offer_number
        WHERE f.fund_number = $1 AND f.offer_number = $2 FOR UPDATE OF f`,
      [input.fundNumber, input.offerNumber],
    );
    const row = fund.rows[0];
    if (!row) return { outcome: 'missing' };
    input.preconditions(row);
    if (row.version !== input.expectedVersion) return { outcome: 'stale' };
    const already = await client.query<{ filedAt: Date }>(
      `SELECT filed_at AS "filedAt" FROM disclose_compliance_activities
        WHERE fund_number = $1 AND kind = $2 AND period_end = $3 AND filed_at IS NOT NULL`,
      [input.fundNumber, input.kind, input.periodEnd],
    );
    if (already.rows[0]) return { outcome: 'duplicate', filedAt: already.rows[0].filedAt };
    const version = row.version + 1;
    const fph = input.kind === 'FULL_PORTFOLIO_HOLDINGS';
    await client.query(
      `INSERT INTO disclose_fund_versions
         (fund_number, version, offer_version, changed_at, change, document, holdings_version, holdings_period_end)
       SELECT fund_number, $2, $3, $4, $5, document || $6::jsonb,
              CASE WHEN $7 THEN $2 ELSE holdings_version END,
              CASE WHEN $7 THEN $8::date ELSE holdings_period_end END
         FROM disclose_fund_versions WHERE fund_number = $1 AND version = $9`,
      [
        input.fundNumber,
        version,
        row.offerVersion,
        input.at,
        fph ? 'Full portfolio holdings filed' : 'Fund update filed',
        JSON.stringify(input.documentChanges),
        fph,
        input.periodEnd,
        row.version,
      ],
    );
    if (input.holdings) await insertHoldings(client, input.fundNumber, version, input.holdings);
    await client.query('UPDATE disclose_funds SET version = $2, last_changed = $3 WHERE fund_number = $1', [
      input.fundNumber,
      version,
      input.at,
    ]);
    await client.query(
      `INSERT INTO disclose_compliance_activities
         (fund_number, kind, period_end, due_date, filed_at, late, fund_version, filed_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        input.fundNumber,
        input.kind,
        input.periodEnd,
        input.dueDate,
        input.at,
        input.late,
        version,
        input.organisation,
      ],
    );
    const subject = row.scheme ? ['scheme', row.scheme] : ['offer', input.offerNumber];
    await client.query(
      `INSERT INTO disclose_filing_history
         (subject_kind, subject_number, fund_number, filed_at, filing_type, description, late, filed_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        subject[0],
        subject[1],
        input.fundNumber,
        input.at,
        input.kind,
        `${fph ? 'Full portfolio holdings' : 'Fund update'} for the period ending ${input.periodEnd}${input.late ? ' (filed late)' : ''}`,
        input.late,
        input.organisation,
      ],
    );
    await client.query('UPDATE disclose_offers SET last_changed = $2 WHERE offer_number = $1', [
      input.offerNumber,
      input.at,
    ]);
    if (row.scheme) {
      await client.query('UPDATE disclose_schemes SET last_changed = $2 WHERE scheme_number = $1', [
        row.scheme,
        input.at,
      ]);
    }
    return { outcome: 'filed', version };
  });
}

/** Holdings rows with `COPY … FROM STDIN`, streamed in chunks of about 64 KB. */
export async function insertHoldings(
  client: PoolClient,
  fundNumber: string,
  version: number,
  h: NonNullable<FilingInput['holdings']>,
): Promise<void> {
  await insertHoldingsOf(client, [{ fundNumber, version, holdings: h }]);
}

/** The holdings rows of several fund versions in one `COPY … FROM STDIN` (an import's chunk). */
export async function insertHoldingsOf(
  client: PoolClient,
  entries: readonly { fundNumber: string; version: number; holdings: NonNullable<FilingInput['holdings']> }[],
): Promise<void> {
  function* chunks(): Generator<string> {
    let buffer = '';
    for (const { fundNumber, version, holdings: h } of entries) {
      const prefix = `${copyField(fundNumber)}\t${version}\t`;
      for (let line = 0; line < h.assetName.length; line++) {
        buffer += `${prefix}${line}\t${copyField(h.assetName[line])}\t${copyField(h.assetType[line])}\t${copyField(h.isin[line])}\t${h.value[line]}\t${h.percentageOfFund[line]}\t${copyField(h.currency[line])}\n`;
        if (buffer.length >= 65_536) {
          yield buffer;
          buffer = '';
        }
      }
    }
    if (buffer) yield buffer;
  }
  await copyText(
    client,
    `COPY disclose_fund_holdings
       (fund_number, fund_version, line, asset_name, asset_type, isin, value, percentage_of_fund, currency)
     FROM STDIN`,
    chunks(),
  );
}
