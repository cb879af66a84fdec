/**
 * All SQL of the register's reads: searches, records at a version, their sub-resources (participants,
 * documents, filing history, funds, holdings) and new-or-changed.
 */
import type { Pool } from 'pg';

export interface SearchCriteria {
  /** Name or number contains (case ignored). */
  text?: string | undefined;
  status?: string | undefined;
  productType?: string | undefined;
  /** Issuer (offers) or manager (schemes) name contains. */
  issuer?: string | undefined;
}

export interface Slice {
  limit: number;
  offset: number;
}

export interface SummaryRow {
  number: string;
  name: string;
  status: string;
  kind: string;
  issuer: string;
  version: number;
  lastChanged: Date;
}

const like = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const TABLES = {
  offer: {
    table: 'disclose_offers',
    number: 'offer_number',
    kind: 'product_type',
    issuer: 'issuer_name',
  },
  scheme: {
    table: 'disclose_schemes',
    number: 'scheme_number',
    kind: 'scheme_type',
    issuer: 'manager_name',
  },
} as const;

/** One page of offers or schemes matching every criterion given, in number order, and how many match. */
export async function search(
  pool: Pool,
  subject: 'offer' | 'scheme',
  criteria: SearchCriteria,
  slice: Slice,
): Promise<{ total: number; rows: SummaryRow[] }> {
  const t = TABLES[subject];
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (sql: (n: string) => string, value: unknown) => {
    values.push(value);
    where.push(sql(`$${values.length}`));
  };
  if (criteria.text) add((n) => `(name ILIKE ${n} OR ${t.number} ILIKE ${n})`, like(criteria.text));
  if (criteria.status) add((n) => `lower(status) = lower(${n})`, criteria.status);
  if (criteria.productType) add((n) => `lower(${t.kind}) = lower(${n})`, criteria.productType);
  if (criteria.issuer) add((n) => `${t.issuer} ILIKE ${n}`, like(criteria.issuer));
  const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  values.push(slice.limit, slice.offset);
  const result = await pool.query<SummaryRow & { total: number }>(
    `SELECT ${t.number} AS number, name, status, ${t.kind} AS kind, ${t.issuer} AS issuer, version,
            last_changed AS "lastChanged", count(*) OVER () AS total
       FROM ${t.table} ${filter}
      ORDER BY ${t.number} LIMIT $${values.length - 1} OFFSET $${values.length}`,
    values,
  );
  const total =
    result.rows[0]?.total ??
    (slice.offset > 0
      ? Number(
          (await pool.query(`SELECT count(*) AS n FROM ${t.table} ${filter}`, values.slice(0, -2))).rows[0].n,
        )
      : 0);
  return { total, rows: result.rows };
}

/** Offers or schemes whose last change falls from `from` to `to` (dates, both inclusive, New Zealand time). */
export async function newOrChanged(
  pool: Pool,
  subject: 'offer' | 'scheme',
  from: string,
  to: string,
  slice: Slice,
): Promise<{ total: number; rows: SummaryRow[] }> {
  const t = TABLES[subject];
  const range = `last_changed >= ($1::date)::timestamp AT TIME ZONE 'Pacific/Auckland'
     AND last_changed < ($2::date + 1)::timestamp AT TIME ZONE 'Pacific/Auckland'`;
  const [rows, count] = await Promise.all([
    pool.query<SummaryRow>(
      `SELECT ${t.number} AS number, name, status, ${t.kind} AS kind, ${t.issuer} AS issuer, version,
              last_changed AS "lastChanged"
         FROM ${t.table} WHERE ${range}
        ORDER BY last_changed, ${t.number} LIMIT $3 OFFSET $4`,
      [from, to, slice.limit, slice.offset],
    ),
    pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${t.table} WHERE ${range}`, [from, to]),
  ]);
  return { total: Number(count.rows[0]?.n ?? 0), rows: rows.rows };
}

/**
 * When any offer (or scheme) last changed: the searches' Last-Modified. A change that takes a record out
 * of a search's results changes this too, so a search is never "not modified" after it.
 */
export async function latestChange(pool: Pool, subject: 'offer' | 'scheme'): Promise<Date> {
  const result = await pool.query<{ at: Date }>(
    `SELECT coalesce(max(last_changed), 'epoch') AS at FROM ${TABLES[subject].table}`,
  );
  return result.rows[0]!.at;
}

export interface VersionRow {
  number: string;
  version: number;
  currentVersion: number;
  changedAt: Date;
  lastChanged: Date;
  change: string;
  document: Record<string, unknown>;
}

/** An offer or scheme as it was at `version` (undefined: the current one); undefined when absent. */
export async function recordAt(
  pool: Pool,
  subject: 'offer' | 'scheme',
  number: string,
  version: number | undefined,
): Promise<VersionRow | undefined> {
  const t = TABLES[subject];
  const result = await pool.query<VersionRow>(
    `SELECT r.${t.number} AS number, v.version, r.version AS "currentVersion", v.changed_at AS "changedAt",
            r.last_changed AS "lastChanged", v.change, v.document
       FROM ${t.table} r JOIN ${t.table.replace(/s$/, '')}_versions v ON v.${t.number} = r.${t.number}
      WHERE r.${t.number} = $1 AND v.version = coalesce($2, r.version)`,
    [number, version ?? null],
  );
  return result.rows[0];
}

/** Every version of an offer or scheme, newest first (identifier, date and change). */
export async function versionsOf(
  pool: Pool,
  subject: 'offer' | 'scheme',
  number: string,
): Promise<{ version: number; changedAt: Date; change: string }[]> {
  const t = TABLES[subject];
  const result = await pool.query(
    `SELECT version, changed_at AS "changedAt", change FROM ${t.table.replace(/s$/, '')}_versions
      WHERE ${t.number} = $1 ORDER BY version DESC`,
    [number],
  );
  return result.rows;
}

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

export interface ParticipantRow {
  role: string;
  name: string;
  nzbn: string | null;
}

export async function participants(
  pool: Pool,
  subject: 'offer' | 'scheme',
  number: string,
  slice: Slice,
): Promise<{ total: number; rows: ParticipantRow[] }> {
  const [rows, count] = await Promise.all([
    pool.query<ParticipantRow>(
      `SELECT role, name, nzbn FROM disclose_participants WHERE subject_kind = $1 AND subject_number = $2
        ORDER BY position LIMIT $3 OFFSET $4`,
      [subject, number, slice.limit, slice.offset],
    ),
    pool.query<{ n: number }>(
      'SELECT count(*) AS n FROM disclose_participants WHERE subject_kind = $1 AND subject_number = $2',
      [subject, number],
    ),
  ]);
  return { total: Number(count.rows[0]?.n ?? 0), rows: rows.rows };
}

export interface DocumentRow {
  documentRecId: string;
  subjectKind: 'offer' | 'scheme' | 'fund';
  subjectNumber: string;
  documentType: string;
  noticeRecId: string | null;
  title: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  storageKey: string;
  addedAt: Date;
}

const DOCUMENT_COLUMNS = `document_rec_id AS "documentRecId", subject_kind AS "subjectKind",
  subject_number AS "subjectNumber", document_type AS "documentType", notice_rec_id AS "noticeRecId",
  title, file_name AS "fileName", content_type AS "contentType", size_bytes AS "sizeBytes",
  storage_key AS "storageKey", added_at AS "addedAt"`;

/** Documents of a record, of one type and notice when given, newest first. */
export async function documents(
  pool: Pool,
  filter: { kind: 'offer' | 'scheme' | 'fund'; number: string; type?: string; notice?: string },
  slice: Slice,
): Promise<{ total: number; rows: DocumentRow[] }> {
  const where = `subject_kind = $1 AND subject_number = $2 AND ($3::text IS NULL OR document_type = $3)
    AND ($4::text IS NULL OR notice_rec_id = $4)`;
  const values = [filter.kind, filter.number, filter.type ?? null, filter.notice ?? null];
  const [rows, count] = await Promise.all([
    pool.query<DocumentRow>(
      `SELECT ${DOCUMENT_COLUMNS} FROM disclose_documents WHERE ${where}
        ORDER BY added_at DESC, document_rec_id DESC LIMIT $5 OFFSET $6`,
      [...values, slice.limit, slice.offset],
    ),
    pool.query<{ n: number }>(`SELECT count(*) AS n FROM disclose_documents WHERE ${where}`, values),
  ]);
  return { total: Number(count.rows[0]?.n ?? 0), rows: rows.rows };
}

export async function documentById(pool: Pool, recId: string): Promise<DocumentRow | undefined> {
  const result = await pool.query<DocumentRow>(
    `SELECT ${DOCUMENT_COLUMNS} FROM disclose_documents WHERE document_rec_id = $1`,
    [recId],
  );
  return result.rows[0];
}

export interface FilingRow {
  filedAt: Date;
  filingType: string;
  description: string;
  fundNumber: string | null;
  late: boolean;
}

export async function filingHistory(
  pool: Pool,
  subject: 'offer' | 'scheme',
  number: string,
  slice: Slice,
): Promise<{ total: number; rows: FilingRow[] }> {
  const [rows, count] = await Promise.all([
    pool.query<FilingRow>(
      `SELECT filed_at AS "filedAt", filing_type AS "filingType", description, fund_number AS "fundNumber", late
         FROM disclose_filing_history WHERE subject_kind = $1 AND subject_number = $2
        ORDER BY filed_at DESC, id DESC LIMIT $3 OFFSET $4`,
      [subject, number, slice.limit, slice.offset],
    ),
    pool.query<{ n: number }>(
      'SELECT count(*) AS n FROM disclose_filing_history WHERE subject_kind = $1 AND subject_number = $2',
      [subject, number],
    ),
  ]);
  return { total: Number(count.rows[0]?.n ?? 0), rows: rows.rows };
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

/** The offers of a scheme, in number order. */
export async function offersOfScheme(
  pool: Pool,
  schemeNumber: string,
): Promise<{ offerNumber: string; name: string; status: string }[]> {
  const result = await pool.query(
    `SELECT offer_number AS "offerNumber", name, status FROM disclose_offers WHERE scheme_number = $1
      ORDER BY offer_number`,
    [schemeNumber],
  );
  return result.rows;
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

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export interface DetailRow extends VersionRow {
  versions: { version: number; changedAt: string; change: string }[];
  versionCount: number;
  participants: ParticipantRow[];
  participantCount: number;
  documents: (Omit<DocumentRow, 'addedAt'> & { addedAt: string })[];
  documentCount: number;
  /** Offers: funds that existed at the version shown. */
  fundCount: number;
}

/**
 * A main answer's data in one statement: the offer or scheme at a version (or current), the first 10
 * versions, participants and documents, and how many there are of each (and of the offer's funds).
 */
export async function detail(
  pool: Pool,
  subject: 'offer' | 'scheme',
  number: string,
  version: number | undefined,
): Promise<DetailRow | undefined> {
  const t = TABLES[subject];
  const versions = `${t.table.replace(/s$/, '')}_versions`;
  const funds =
    subject === 'offer'
      ? `(SELECT count(DISTINCT fv.fund_number) FROM disclose_funds f
            JOIN disclose_fund_versions fv ON fv.fund_number = f.fund_number
           WHERE f.offer_number = r.offer_number AND fv.offer_version <= v.version)`
      : '0';
  const result = await pool.query<DetailRow>(
    `SELECT r.${t.number} AS number, v.version, r.version AS "currentVersion", v.changed_at AS "changedAt",
            r.last_changed AS "lastChanged", v.change, v.document,
            (SELECT coalesce(json_agg(json_build_object('version', x.version, 'changedAt', ${ISO('x.changed_at')},
                    'change', x.change) ORDER BY x.version DESC), '[]')
               FROM (SELECT version, changed_at, change FROM ${versions} WHERE ${t.number} = r.${t.number}
                      ORDER BY version DESC LIMIT 10) x) AS versions,
            (SELECT count(*) FROM ${versions} WHERE ${t.number} = r.${t.number})::int AS "versionCount",
            (SELECT coalesce(json_agg(json_build_object('role', p.role, 'name', p.name, 'nzbn', p.nzbn)
                    ORDER BY p.position), '[]')
               FROM (SELECT position, role, name, nzbn FROM disclose_participants
                      WHERE subject_kind = $3 AND subject_number = r.${t.number} ORDER BY position LIMIT 10) p)
              AS participants,
            (SELECT count(*) FROM disclose_participants WHERE subject_kind = $3 AND subject_number = r.${t.number})::int
              AS "participantCount",
            (SELECT coalesce(json_agg(json_build_object('documentRecId', d.document_rec_id,
                    'subjectKind', d.subject_kind, 'subjectNumber', d.subject_number,
                    'documentType', d.document_type, 'noticeRecId', d.notice_rec_id, 'title', d.title,
                    'fileName', d.file_name, 'contentType', d.content_type, 'sizeBytes', d.size_bytes,
                    'storageKey', d.storage_key, 'addedAt', ${ISO('d.added_at')})
                    ORDER BY d.added_at DESC, d.document_rec_id DESC), '[]')
               FROM (SELECT * FROM disclose_documents WHERE subject_kind = $3 AND subject_number = r.${t.number}
                      ORDER BY added_at DESC, document_rec_id DESC LIMIT 10) d) AS documents,
            (SELECT count(*) FROM disclose_documents WHERE subject_kind = $3 AND subject_number = r.${t.number})::int
              AS "documentCount",
            ${funds}::int AS "fundCount"
       FROM ${t.table} r JOIN ${versions} v ON v.${t.number} = r.${t.number}
      WHERE r.${t.number} = $1 AND v.version = coalesce($2, r.version)`,
    [number, version ?? null, subject],
  );
  return result.rows[0];
}
