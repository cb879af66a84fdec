/**
 * The queries of the sandbox's invariants (sandbox/invariants.ts): each finds the statements that break
 * one rule, with what is wrong. Reads only.
 */
import type pg from 'pg';

export interface RuleBreak {
  registrationNumber: string;
  detail: string;
}

type Row = { registration_number: string; detail: string };
const found = (rows: Row[]): RuleBreak[] =>
  rows.map((row) => ({ registrationNumber: row.registration_number, detail: row.detail }));

/** Statements whose versions are out of order: not starting with the registration, numbered with gaps, dated backwards, or going on after a discharge. */
export async function historyOutOfOrder(pool: Pick<pg.Pool, 'query'>): Promise<RuleBreak[]> {
  return found(
    (
      await pool.query<Row>(
        `SELECT registration_number, string_agg(detail, '; ') AS detail FROM (
         SELECT registration_number,
                CASE
                  WHEN version = 1 AND change <> 'Registered' THEN 'version 1 is ' || change
                  WHEN version > 1 AND change = 'Registered' THEN 'version ' || version || ' is a second registration'
                  WHEN version <> row_number() OVER w THEN 'version ' || version || ' out of sequence'
                  WHEN changed_at < lag(changed_at) OVER w THEN 'version ' || version || ' dated before version ' || (version - 1)
                  WHEN lag(change) OVER w = 'Discharged' THEN 'version ' || version || ' follows the discharge'
                END AS detail
           FROM ppsr_financing_statement_versions
         WINDOW w AS (PARTITION BY registration_number ORDER BY version)
       ) v WHERE detail IS NOT NULL GROUP BY registration_number ORDER BY registration_number`,
      )
    ).rows,
  );
}

/** Statements whose registration date, version, discharge date or expiry disagree with their first and last versions. */
export async function statementsDisagreeingWithHistory(pool: Pick<pg.Pool, 'query'>): Promise<RuleBreak[]> {
  return found(
    (
      await pool.query<Row>(
        `SELECT registration_number, detail FROM (
         SELECT s.registration_number, concat_ws('; ',
                  CASE WHEN f.version IS NULL THEN 'no first version' END,
                  CASE WHEN s.registered_at <> f.changed_at THEN 'registered ' || s.registered_at || ', its first version ' || f.changed_at END,
                  CASE WHEN s.version <> l.version THEN 'version ' || s.version || ', its last ' || l.version END,
                  CASE WHEN s.expiry_date <> l.expiry_date THEN 'expires ' || s.expiry_date || ', its last version ' || l.expiry_date END,
                  CASE WHEN (s.discharged_at IS NOT NULL) <> (l.change = 'Discharged')
                         OR s.discharged_at <> l.changed_at THEN 'its discharge date disagrees with its last version' END
                ) AS detail
           FROM ppsr_financing_statements s
           LEFT JOIN ppsr_financing_statement_versions f
             ON f.registration_number = s.registration_number AND f.version = 1
           LEFT JOIN LATERAL (SELECT version, change, changed_at, expiry_date FROM ppsr_financing_statement_versions
                               WHERE registration_number = s.registration_number
                               ORDER BY version DESC LIMIT 1) l ON true
       ) checked WHERE detail <> '' ORDER BY registration_number`,
      )
    ).rows,
  );
}

/** Versions whose expiry is not after their registration or renewal, or more than five years after the latest one. */
export async function expiriesOutOfRange(pool: Pick<pg.Pool, 'query'>): Promise<RuleBreak[]> {
  return found(
    (
      await pool.query<Row>(
        `SELECT v.registration_number,
              'version ' || v.version || ' (' || v.change || ', ' || (v.changed_at AT TIME ZONE 'Pacific/Auckland')::date
                || ') expires ' || v.expiry_date AS detail
         FROM ppsr_financing_statement_versions v
        WHERE v.expiry_date <= (v.changed_at AT TIME ZONE 'Pacific/Auckland')::date AND v.change IN ('Registered', 'Renewed')
           OR v.expiry_date > (
                SELECT max((r.changed_at AT TIME ZONE 'Pacific/Auckland')::date) + interval '5 years'
                  FROM ppsr_financing_statement_versions r
                 WHERE r.registration_number = v.registration_number AND r.version <= v.version
                   AND r.change IN ('Registered', 'Renewed'))
        ORDER BY v.registration_number, v.version`,
      )
    ).rows,
  );
}

/** The debtor organisations with a business number in each statement's latest version, by statement. */
export async function numberedDebtors(
  pool: Pick<pg.Pool, 'query'>,
): Promise<{ record: string; nzbn: string; name: string }[]> {
  const { rows } = await pool.query<{ record: string; nzbn: string; name: string }>(
    `SELECT DISTINCT v.registration_number AS record, d ->> 'nzbn' AS nzbn, d ->> 'organisationName' AS name
       FROM ppsr_financing_statements s
       JOIN ppsr_financing_statement_versions v
         ON v.registration_number = s.registration_number AND v.version = s.version
       CROSS JOIN jsonb_array_elements(v.document -> 'debtors') d
      WHERE d ->> 'nzbn' IS NOT NULL
      ORDER BY 1, 2`,
  );
  return rows;
}

/**
 * The secured parties named in each generated statement's latest version (a statement no customer
 * organisation registered) and in the fixed test cases' (numbered FIX…), by statement; a statement
 * under a secured party group names none.
 */
export async function seededSecuredParties(
  pool: Pick<pg.Pool, 'query'>,
): Promise<{ record: string; name: string }[]> {
  const { rows } = await pool.query<{ record: string; name: string }>(
    `SELECT DISTINCT s.registration_number AS record, p ->> 'name' AS name
       FROM ppsr_financing_statements s
       JOIN ppsr_financing_statement_versions v
         ON v.registration_number = s.registration_number AND v.version = s.version
       CROSS JOIN jsonb_array_elements(coalesce(v.document -> 'securedParties', '[]'::jsonb)) p
      WHERE s.organisation_id IS NULL OR s.registration_number LIKE 'FIX%'
      ORDER BY 1, 2`,
  );
  return rows;
}
