/**
 * The queries of the sandbox's invariants (sandbox/invariants.ts): each finds the records that break one
 * rule, with what is wrong. Reads only.
 */
import type pg from 'pg';

export interface RuleBreak {
  record: string;
  detail: string;
}

type Pool = Pick<pg.Pool, 'query'>;
const breaks = async (pool: Pool, sql: string, values: unknown[] = []): Promise<RuleBreak[]> =>
  (await pool.query<RuleBreak>(sql, values)).rows;

/** A fund version's asset allocation lines: its class, actual and target percentages. */
const ALLOCATION = `jsonb_to_recordset(v.document -> 'assetAllocation')
                     AS a("assetType" text, "actualPercentage" numeric, "targetPercentage" numeric)`;

/**
 * Fund versions whose allocation does not hold at least `minimum` percent of the given classes for a
 * fund of the type, each with the share it holds (`types`: fund type → classes and minimum).
 */
export async function allocationsUnlikeType(
  pool: Pool,
  types: Readonly<Record<string, { classes: readonly string[]; minimum: number }>>,
): Promise<RuleBreak[]> {
  const rules = Object.entries(types).map(([fundType, r]) => ({
    fundType,
    classes: r.classes,
    minimum: r.minimum,
  }));
  return breaks(
    pool,
    `SELECT v.fund_number || '-v' || v.version AS record,
            f.fund_type || ' fund holds ' || coalesce(sum(a."actualPercentage") FILTER (WHERE a."assetType" = ANY(r.classes)), 0)
              || '% of ' || array_to_string(r.classes, ', ') AS detail
       FROM disclose_fund_versions v
       JOIN disclose_funds f USING (fund_number)
       JOIN jsonb_to_recordset($1::jsonb) AS r("fundType" text, classes text[], minimum numeric) ON r."fundType" = f.fund_type
       CROSS JOIN LATERAL ${ALLOCATION}
      GROUP BY v.fund_number, v.version, f.fund_type, r.classes, r.minimum
     HAVING coalesce(sum(a."actualPercentage") FILTER (WHERE a."assetType" = ANY(r.classes)), 0) < r.minimum
      ORDER BY v.fund_number, v.version`,
    [JSON.stringify(rules)],
  );
}

/** Fund versions whose one-year return is outside its fund type's range (`ranges`: fund type → [low, high]). */
export async function returnsUnlikeType(
  pool: Pool,
  ranges: Readonly<Record<string, readonly [number, number]>>,
): Promise<RuleBreak[]> {
  return breaks(
    pool,
    `SELECT v.fund_number || '-v' || v.version AS record,
            f.fund_type || ' fund returned ' || (r ->> 'percentage') || '% in a year' AS detail
       FROM disclose_fund_versions v
       JOIN disclose_funds f USING (fund_number)
       CROSS JOIN LATERAL jsonb_array_elements(v.document -> 'returns') r
      WHERE r ->> 'period' = '1y' AND $1::jsonb ? f.fund_type
        AND ((r ->> 'percentage')::numeric < ($1::jsonb -> f.fund_type ->> 0)::numeric
          OR (r ->> 'percentage')::numeric > ($1::jsonb -> f.fund_type ->> 1)::numeric)
      ORDER BY v.fund_number, v.version`,
    [JSON.stringify(ranges)],
  );
}

/** Fund versions whose actual allocation is more than `within` points off a target, or equal to every target. */
export async function allocationsOffTarget(pool: Pool, within: number): Promise<RuleBreak[]> {
  return breaks(
    pool,
    `SELECT v.fund_number || '-v' || v.version AS record,
            CASE WHEN bool_and(a."actualPercentage" = a."targetPercentage") THEN 'every actual percentage equals its target'
                 ELSE string_agg(a."assetType" || ' ' || a."actualPercentage" || '% against a target of ' || a."targetPercentage" || '%', '; ')
                        FILTER (WHERE abs(a."actualPercentage" - a."targetPercentage") > $1) END AS detail
       FROM disclose_fund_versions v CROSS JOIN LATERAL ${ALLOCATION}
      GROUP BY v.fund_number, v.version
     HAVING bool_and(a."actualPercentage" = a."targetPercentage")
         OR bool_or(abs(a."actualPercentage" - a."targetPercentage") > $1)
      ORDER BY v.fund_number, v.version`,
    [within],
  );
}

/** Holdings of an asset class the allocation of the fund version that filed them does not name. */
export async function holdingsOutsideAllocation(pool: Pool): Promise<RuleBreak[]> {
  return breaks(
    pool,
    `SELECT h.fund_number || '-v' || h.fund_version AS record,
            f.fund_type || ' fund holds ' || string_agg(DISTINCT h.asset_type, ', ') || ', not in its allocation' AS detail
       FROM disclose_fund_holdings h
       JOIN disclose_funds f USING (fund_number)
       JOIN disclose_fund_versions v ON v.fund_number = h.fund_number AND v.version = h.fund_version
      WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(v.document -> 'assetAllocation') a
                         WHERE a ->> 'assetType' = h.asset_type)
      GROUP BY h.fund_number, h.fund_version, f.fund_type
      ORDER BY h.fund_number, h.fund_version`,
  );
}

/**
 * Holdings whose name, ISIN and currency disagree with their class: a bond or note not fixed interest,
 * a property not property; an ISIN's country not that of the currency (NZ with NZD, AU with AUD…).
 */
export async function holdingsUnlikeThemselves(pool: Pool): Promise<RuleBreak[]> {
  return breaks(
    pool,
    `SELECT fund_number || '-v' || fund_version AS record,
            string_agg(asset_name || ': ' || concat_ws(', ',
              CASE WHEN asset_name ~ '\\m(Bond|Note)\\M' AND asset_type NOT LIKE '%FIXED_INTEREST' THEN 'typed ' || asset_type END,
              CASE WHEN asset_name ~ '\\mProperty\\M' AND asset_type NOT LIKE '%PROPERTY' THEN 'typed ' || asset_type END,
              CASE WHEN left(isin, 2) <> left(currency, 2) THEN 'ISIN ' || isin || ' in ' || currency END), '; '
              ORDER BY line) AS detail
       FROM disclose_fund_holdings
      WHERE (asset_name ~ '\\m(Bond|Note)\\M' AND asset_type NOT LIKE '%FIXED_INTEREST')
         OR (asset_name ~ '\\mProperty\\M' AND asset_type NOT LIKE '%PROPERTY')
         OR left(isin, 2) <> left(currency, 2)
      GROUP BY fund_number, fund_version
      ORDER BY fund_number, fund_version`,
  );
}

/**
 * Holdings filings whose values do not add up to the fund's size (within `tolerance`, a fraction) as
 * its fund update for the same period reports it (filings with no such fund update are passed over).
 */
export async function holdingsNotFundSize(pool: Pool, tolerance: number): Promise<RuleBreak[]> {
  return breaks(
    pool,
    `SELECT h.fund_number || '-v' || h.fund_version AS record,
            'holdings total ' || h.total || ', the fund update for ' || v.holdings_period_end
              || ' reports a fund size of ' || (u.document ->> 'fundSize') AS detail
       FROM (SELECT fund_number, fund_version, sum(value) AS total FROM disclose_fund_holdings
              GROUP BY fund_number, fund_version) h
       JOIN disclose_fund_versions v ON v.fund_number = h.fund_number AND v.version = h.fund_version
       JOIN disclose_compliance_activities c
         ON c.fund_number = h.fund_number AND c.kind = 'FUND_UPDATE' AND c.period_end = v.holdings_period_end
       JOIN disclose_fund_versions u ON u.fund_number = c.fund_number AND u.version = c.fund_version
      WHERE u.document ? 'fundSize'
        AND abs(h.total - (u.document ->> 'fundSize')::numeric) > (u.document ->> 'fundSize')::numeric * $1
      ORDER BY h.fund_number, h.fund_version`,
    [tolerance],
  );
}

/** Offers outside a scheme whose name does not end in the word of their product type (`names`: type → word). */
export async function offersMisnamed(
  pool: Pool,
  names: Readonly<Record<string, string>>,
): Promise<RuleBreak[]> {
  return breaks(
    pool,
    `SELECT offer_number AS record, '"' || name || '" is ' || product_type AS detail
       FROM disclose_offers
      WHERE scheme_number IS NULL AND name NOT LIKE '% ' || coalesce($1::jsonb ->> product_type, '?') || ' Offer'
      ORDER BY offer_number`,
    [JSON.stringify(names)],
  );
}

/**
 * KiwiSaver schemes beyond the first `fixed` schemes (the fixed test cases), when they are more than
 * `share` of those schemes (and more than one): each of them.
 */
export async function tooManyKiwiSaver(pool: Pool, fixed: number, share: number): Promise<RuleBreak[]> {
  return breaks(
    pool,
    `WITH generated AS (SELECT scheme_number, scheme_type FROM disclose_schemes ORDER BY scheme_number OFFSET $1::int),
          counted AS (SELECT count(*) FILTER (WHERE scheme_type = 'KiwiSaver scheme') AS kiwisaver, count(*) AS schemes
                        FROM generated)
     SELECT g.scheme_number AS record, c.kiwisaver || ' of ' || c.schemes || ' generated schemes are KiwiSaver schemes' AS detail
       FROM generated g CROSS JOIN counted c
      WHERE g.scheme_type = 'KiwiSaver scheme' AND c.kiwisaver > greatest(1, floor(c.schemes * $2::numeric))
      ORDER BY g.scheme_number`,
    [fixed, share],
  );
}

/** Every fund's number (for the activities the domain works out from its filings). */
export async function fundNumbers(pool: Pool): Promise<string[]> {
  return (
    await pool.query<{ n: string }>('SELECT fund_number AS n FROM disclose_funds ORDER BY fund_number')
  ).rows.map((r) => r.n);
}

/**
 * Schemes' managers and supervisors, offers' issuers and the other organisations named on a scheme or an
 * offer (custodians, auditors, offerors …) with a business number, by scheme or offer (a participant's
 * record with its role).
 */
export async function numberedParties(pool: Pool): Promise<{ record: string; nzbn: string; name: string }[]> {
  const { rows } = await pool.query<{ record: string; nzbn: string; name: string }>(
    `SELECT scheme_number AS record, manager_nzbn AS nzbn, manager_name AS name
       FROM disclose_schemes WHERE manager_nzbn IS NOT NULL
     UNION ALL
     SELECT scheme_number, supervisor_nzbn, supervisor_name FROM disclose_schemes WHERE supervisor_nzbn IS NOT NULL
     UNION ALL
     SELECT offer_number, issuer_nzbn, issuer_name FROM disclose_offers WHERE issuer_nzbn IS NOT NULL
     UNION ALL
     SELECT subject_number || ' ' || role, nzbn, name FROM disclose_participants
      WHERE nzbn IS NOT NULL AND NOT (subject_kind = 'scheme' AND role IN ('Manager', 'Supervisor'))
      ORDER BY record`,
  );
  return rows;
}

/**
 * Scheme, offer and fund versions dated before the version they follow: each with both dates. A
 * record's versions are numbered in the order they were made, so their dates never go backward.
 */
export async function versionsOutOfOrder(pool: Pool): Promise<RuleBreak[]> {
  return breaks(
    pool,
    `SELECT number || '-v' || version AS record,
            'dated ' || to_char(changed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || ', before version '
              || (version - 1) || ' (' || to_char(previous AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || ')' AS detail
       FROM (SELECT scheme_number AS number, version, changed_at,
                    lag(changed_at) OVER (PARTITION BY scheme_number ORDER BY version) AS previous
               FROM disclose_scheme_versions
             UNION ALL
             SELECT offer_number, version, changed_at,
                    lag(changed_at) OVER (PARTITION BY offer_number ORDER BY version)
               FROM disclose_offer_versions
             UNION ALL
             SELECT fund_number, version, changed_at,
                    lag(changed_at) OVER (PARTITION BY fund_number ORDER BY version)
               FROM disclose_fund_versions) v
      WHERE changed_at < previous
      ORDER BY number, version`,
  );
}
