/**
 * The queries of the sandbox's invariants (sandbox/invariants.ts): each finds the cases (or clients) that
 * break one rule, with what is wrong. Reads only.
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
 * Trade marks whose type disagrees with what they have: an image (Image, Combined) or none (the rest);
 * and each type no mark has (the search's type filters find something).
 */
export function marksTypedAgainstContent(pool: Pool): Promise<RuleBreak[]> {
  return found(
    pool,
    `SELECT case_number::text AS record,
            'typed ' || mark_type || CASE WHEN mark_image_name IS NULL THEN ' with no image' ELSE ' with an image' END AS detail
       FROM iponz_cases
      WHERE kind = 'trademark' AND (mark_image_name IS NOT NULL) <> (mark_type IN ('Image', 'Combined'))
     UNION ALL
     SELECT 'mark types', 'no trade mark typed ' || t
       FROM unnest(ARRAY['Word', 'Image', 'Combined', 'Colour', 'Shape', 'Sound']) t
      WHERE NOT EXISTS (SELECT 1 FROM iponz_cases WHERE kind = 'trademark' AND mark_type = t)
      ORDER BY record`,
  );
}

/** Cases numbered out of filing order: filed before the case numbered just below them in their series. */
export function numbersAgainstFilingOrder(pool: Pool): Promise<RuleBreak[]> {
  return found(
    pool,
    `SELECT case_number::text AS record, 'filed ' || application_date || ', after ' || previous_number
              || ' filed ' || previous_date AS detail
       FROM (SELECT case_number, application_date,
                    lag(case_number) OVER w AS previous_number, lag(application_date) OVER w AS previous_date
               FROM iponz_cases WINDOW w AS (PARTITION BY kind ORDER BY case_number)) c
      WHERE application_date < previous_date
      ORDER BY case_number`,
  );
}

/**
 * Cases whose dates are out of order: registration before filing; a history before filing, dated
 * backwards or after today; a Granted or Registered status dated otherwise than the registration; a
 * later status (lapsed, expired, removed…) or a renewal before the registration; a status date that is
 * not the last status change's.
 */
export function datesOutOfOrder(pool: Pool, today: string): Promise<RuleBreak[]> {
  return found(
    pool,
    `SELECT case_number::text AS record, string_agg(detail, '; ' ORDER BY seq) AS detail FROM (
       SELECT 0 AS seq, case_number, 'registered ' || registration_date || ' before its filing ' || application_date AS detail
         FROM iponz_cases WHERE registration_date < application_date
       UNION ALL
       SELECT 0, c.case_number, 'status dated ' || c.status_date || ', its last status change ' || l.status_date
         FROM iponz_cases c
         JOIN LATERAL (SELECT status_date FROM iponz_status_history h
                        WHERE h.kind = c.kind AND h.case_number = c.case_number AND h.event = 'status'
                        ORDER BY seq DESC LIMIT 1) l ON true
        WHERE c.status_date <> l.status_date
       UNION ALL
       SELECT seq, case_number,
              CASE
                WHEN status_date < application_date THEN 'event ' || seq || ' dated before the filing'
                WHEN status_date > $1::date THEN 'event ' || seq || ' dated after today'
                WHEN status_date < previous THEN 'event ' || seq || ' dated before event ' || (seq - 1)
                WHEN event = 'status' AND status IN ('Granted', 'Registered') AND status_date <> registration_date
                  THEN status || ' dated ' || status_date || ', registered ' || registration_date
                WHEN status_date < registration_date AND (event = 'renewal' AND kind <> 'patent' OR status IN
                       ('Lapsed', 'Expired', 'Removed', 'Revoked', 'Registered - past expiry date'))
                  THEN CASE WHEN event = 'renewal' THEN 'renewal' ELSE status END || ' dated ' || status_date
                       || ', before the registration ' || registration_date
              END
         FROM (SELECT h.seq, h.kind, h.case_number, h.status, h.status_date, h.event, c.application_date, c.registration_date,
                      lag(h.status_date) OVER (PARTITION BY h.kind, h.case_number ORDER BY h.seq) AS previous
                 FROM iponz_status_history h JOIN iponz_cases c USING (kind, case_number)) h
     ) d WHERE detail IS NOT NULL GROUP BY case_number ORDER BY case_number`,
    [today],
  );
}

/**
 * Cases whose renewal and maintenance fees paid (the due dates up to `last_renewal_due_date`: a patent's
 * from its 4th anniversary of the term date, one a year; a trade mark's one each ten years, a design's
 * each five) are not each in their history, or trade marks and designs renewed without being registered.
 */
export function renewalsMissingFromHistory(pool: Pool): Promise<RuleBreak[]> {
  return found(
    pool,
    `SELECT case_number::text AS record,
            CASE WHEN registration_date IS NULL AND kind <> 'patent' THEN 'renewed to ' || last_renewal_due_date || ' but never registered'
                 ELSE expected || ' fees paid (to ' || last_renewal_due_date || '), ' || shown || ' in its history' END AS detail
       FROM (SELECT c.kind, c.case_number, c.registration_date, c.last_renewal_due_date,
                    CASE c.kind WHEN 'patent' THEN round((c.last_renewal_due_date - c.term_date) / 365.2425)::int - 3
                                WHEN 'trademark' THEN round((c.last_renewal_due_date - c.term_date) / 3652.425)::int
                                ELSE round((c.last_renewal_due_date - c.term_date) / 1826.2125)::int END AS expected,
                    (SELECT count(*) FROM iponz_status_history h
                      WHERE h.kind = c.kind AND h.case_number = c.case_number AND h.event = 'renewal'
                        AND h.renewed_expiry_date <= c.last_renewal_due_date)::int AS shown
               FROM iponz_cases c WHERE c.last_renewal_due_date IS NOT NULL) r
      WHERE (registration_date IS NULL AND kind <> 'patent') OR expected <> shown
      ORDER BY case_number`,
  );
}

/** Inventors that are not persons. */
export function inventorsNotPersons(pool: Pool): Promise<RuleBreak[]> {
  return found(
    pool,
    `SELECT p.case_number::text AS record, 'inventor ' || c.client_id || ' (' || c.name || ') is an organisation' AS detail
       FROM iponz_case_parties p JOIN iponz_clients c USING (client_id)
      WHERE p.role = 'Inventor' AND c.client_type <> 'Person'
      ORDER BY p.case_number, c.client_id`,
  );
}

/** Clients acting as agents that are not agent firms (an organisation whose name matches `firmName`), by client. */
export function agentsNotFirms(pool: Pool, firmName: string): Promise<RuleBreak[]> {
  return found(
    pool,
    `SELECT c.client_id::text AS record,
            c.name || ' (' || c.client_type || ') acts as agent for ' || count(*) || ' cases' AS detail
       FROM iponz_case_parties p JOIN iponz_clients c USING (client_id)
      WHERE p.role = 'Agent' AND (c.client_type <> 'Organisation' OR c.name !~ $1)
      GROUP BY c.client_id, c.name, c.client_type
      ORDER BY c.client_id`,
    [firmName],
  );
}

/** What the expiry rule reads of a case: its status, the dates its renewals count from, what it paid. */
export interface CaseTerm {
  kind: 'patent' | 'trademark' | 'design';
  caseNumber: number;
  status: string;
  statusDate: string;
  termDate: string;
  registrationDate: string | null;
  lastRenewalDueDate: string | null;
}

/** Every case's status, its date and the dates its term counts from, by kind and number. */
export async function caseTerms(pool: Pool): Promise<CaseTerm[]> {
  const { rows } = await pool.query<CaseTerm>(
    `SELECT kind, case_number AS "caseNumber", status, status_date::text AS "statusDate",
            term_date::text AS "termDate", registration_date::text AS "registrationDate",
            last_renewal_due_date::text AS "lastRenewalDueDate"
       FROM iponz_cases ORDER BY kind, case_number`,
  );
  return rows;
}

/** Clients with a business number (businesses drawn from the business number register), by client. */
export async function numberedClients(pool: Pool): Promise<{ record: string; nzbn: string; name: string }[]> {
  const { rows } = await pool.query<{ record: string; nzbn: string; name: string }>(
    `SELECT client_id::text AS record, nzbn, name FROM iponz_clients WHERE nzbn IS NOT NULL ORDER BY client_id`,
  );
  return rows;
}

/** A seeded organisation client, where it is (its physical address's country, else its postal's) and its number. */
export interface PlacedClient {
  record: string;
  name: string;
  nzbn: string | null;
  countryCode: string | null;
}

/**
 * The organisation clients with ids below `below` (the seeded ones: fixed and generated; a client a
 * filing adds has a drawn id, almost always above them) whose name does not match `firmName` (attorney
 * firms, the agents), with the country of their physical address (else their postal one; none without
 * either), by client.
 */
export async function seededOrganisationClients(
  pool: Pool,
  below: number,
  firmName: string,
): Promise<PlacedClient[]> {
  const { rows } = await pool.query<PlacedClient>(
    `SELECT c.client_id::text AS record, c.name, c.nzbn,
            (SELECT a.country_code FROM iponz_client_addresses a
              WHERE a.client_id = c.client_id AND a.address_type IN ('physical', 'postal')
              ORDER BY a.address_type LIMIT 1) AS "countryCode"
       FROM iponz_clients c
      WHERE c.client_id < $1 AND c.client_type = 'Organisation' AND c.name !~ $2
      ORDER BY c.client_id`,
    [below, firmName],
  );
  return rows;
}

/** A New Zealand address of a client (no country, or NZ): its lines in order, its postcode. */
export interface ClientPlace {
  record: string;
  addressType: string;
  lines: string[];
  postcode: string | null;
}

/** The New Zealand addresses of the clients numbered below `below` (the seeded ones), in batches by client. */
export async function* seededClientPlaces(pool: Pool, below: number): AsyncGenerator<ClientPlace[]> {
  const BATCH = 20_000;
  for (let after = 0; ; ) {
    const last = (
      await pool.query<{ last: number | null }>(
        `SELECT max(client_id) AS last FROM (SELECT client_id FROM iponz_clients
          WHERE client_id > $1 AND client_id < $2 ORDER BY client_id LIMIT ${BATCH}) AS batch`,
        [after, below],
      )
    ).rows[0]!.last;
    if (last === null) return;
    const { rows } = await pool.query<{
      client_id: number;
      address_type: string;
      line1: string | null;
      line2: string | null;
      line3: string | null;
      city: string | null;
      postcode: string | null;
    }>(
      `SELECT client_id, address_type, line1, line2, line3, city, postcode FROM iponz_client_addresses
        WHERE client_id > $1 AND client_id <= $2 AND coalesce(country_code, 'NZ') = 'NZ'
        ORDER BY client_id, address_type`,
      [after, last],
    );
    yield rows.map((row) => ({
      record: String(row.client_id),
      addressType: row.address_type,
      lines: [row.line1, row.line2, row.line3, row.city].filter(
        (line): line is string => line !== null && line !== '',
      ),
      postcode: row.postcode,
    }));
    after = last;
  }
}
