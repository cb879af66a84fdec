/**
 * The SQL of offers and schemes: a record at a version, its detail answer's data in one statement, and
 * its sub-resources (versions, participants, filing history, a scheme's offers). Searches, funds and
 * documents have files of their own (searches.ts, funds.ts, documents.ts).
 */
import type { Pool } from 'pg';
import type { DocumentRow } from './documents.ts';

export interface Slice {
  limit: number;
  offset: number;
}

/** The tables of offers and schemes and their columns. */
export const TABLES = {
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
  /** The regulator's notices on the record. */
  noticeCount: number;
  /** Schemes: their offers. */
  offerCount: number;
}

/**
 * A main answer's data in one statement: the offer or scheme at a version (or current), the first 10
 * versions, participants and documents, and how many there are of each (and of its notices, the offer's
 * funds, the scheme's offers).
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
  const offers =
    subject === 'scheme'
      ? '(SELECT count(*) FROM disclose_offers o WHERE o.scheme_number = r.scheme_number)'
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
            ${funds}::int AS "fundCount",
            (SELECT count(*) FROM disclose_notices WHERE subject_kind = $3 AND subject_number = r.${t.number})::int
              AS "noticeCount",
            ${offers}::int AS "offerCount"
       FROM ${t.table} r JOIN ${versions} v ON v.${t.number} = r.${t.number}
      WHERE r.${t.number} = $1 AND v.version = coalesce($2, r.version)`,
    [number, version ?? null, subject],
  );
  return result.rows[0];
}
