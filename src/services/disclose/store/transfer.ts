/**
 * The SQL of `rsg import disclose` and `rsg export disclose` (transfer/): schemes and offers with their
 * versions, participants, notices, documents and filing history; funds with their versions, compliance
 * activities and documents; the holdings of fund versions. Reads take a set of record numbers (a page of
 * an export, a chunk of an import); writes run on the import's client, inside its transaction.
 */
import type { Pool, PoolClient } from 'pg';
import { copyLine, copyText } from '../../../platform/db/copy-text.ts';
import { insertHoldingsOf } from './compliance.ts';
import type { DocumentRow } from './documents.ts';
import type { HoldingRow } from './funds.ts';

type Queryable = Pool | PoolClient;
export type RecordKind = 'scheme' | 'offer';

export interface VersionRow {
  version: number;
  changedAt: Date;
  change: string;
  document: Record<string, unknown>;
}

export interface ParticipantRow {
  role: string;
  name: string;
  nzbn: string | null;
}

export interface NoticeRow {
  noticeRecId: string;
  noticeType: string;
  noticeDate: string;
  summary: string;
  recordedAt: Date;
}

export type DocumentFileRow = Omit<DocumentRow, 'subjectKind' | 'subjectNumber'>;

export interface FilingRow {
  fundNumber: string | null;
  filedAt: Date;
  filingType: string;
  description: string;
  late: boolean;
  filedBy: string | null;
}

/** A scheme or an offer as the register holds it, everything an export line has. */
export interface RecordState {
  number: string;
  lastChanged: Date;
  versions: VersionRow[];
  participants: ParticipantRow[];
  notices: NoticeRow[];
  documents: DocumentFileRow[];
  filings: FilingRow[];
}

export interface FundVersionRow extends VersionRow {
  offerVersion: number;
  holdingsVersion: number | null;
  holdingsPeriodEnd: string | null;
}

export interface ActivityRow {
  kind: string;
  periodEnd: string;
  dueDate: string;
  filedAt: Date | null;
  late: boolean | null;
  fundVersion: number | null;
  filedBy: string | null;
}

export interface FundState {
  fundNumber: string;
  offerNumber: string;
  registeredOn: string;
  fphRequired: boolean;
  lastChanged: Date;
  versions: FundVersionRow[];
  activities: ActivityRow[];
  documents: DocumentFileRow[];
}

const TABLE = { scheme: 'disclose_schemes', offer: 'disclose_offers' } as const;
const KEY = { scheme: 'scheme_number', offer: 'offer_number' } as const;

/** Numbers of the kind's records after `after`, in order (an export's page). */
export async function numbersAfter(
  db: Queryable,
  kind: RecordKind | 'fund',
  after: string,
  limit: number,
): Promise<string[]> {
  const [table, key] = kind === 'fund' ? ['disclose_funds', 'fund_number'] : [TABLE[kind], KEY[kind]];
  const result = await db.query<{ n: string }>(
    `SELECT ${key} AS n FROM ${table} WHERE ${key} > $1 ORDER BY ${key} LIMIT $2`,
    [after, limit],
  );
  return result.rows.map((r) => r.n);
}

/** Which of the numbers the register holds, of a kind. */
export async function existingNumbers(
  db: Queryable,
  kind: RecordKind | 'fund',
  numbers: readonly string[],
): Promise<Set<string>> {
  const [table, key] = kind === 'fund' ? ['disclose_funds', 'fund_number'] : [TABLE[kind], KEY[kind]];
  const result = await db.query<{ n: string }>(`SELECT ${key} AS n FROM ${table} WHERE ${key} = ANY($1)`, [
    numbers,
  ]);
  return new Set(result.rows.map((r) => r.n));
}

/** Each offer's current version (the version a fund version made now belongs to). */
export async function offerVersions(db: Queryable, numbers: readonly string[]): Promise<Map<string, number>> {
  const result = await db.query<{ n: string; v: number }>(
    'SELECT offer_number AS n, version AS v FROM disclose_offers WHERE offer_number = ANY($1)',
    [numbers],
  );
  return new Map(result.rows.map((r) => [r.n, r.v]));
}

const DOCUMENT_COLUMNS = `subject_number AS "subject", document_rec_id AS "documentRecId",
  document_type AS "documentType", notice_rec_id AS "noticeRecId", title, file_name AS "fileName",
  content_type AS "contentType", size_bytes AS "sizeBytes", storage_key AS "storageKey", added_at AS "addedAt"`;

const grouped = <T extends { subject: string }>(rows: T[]): Map<string, Omit<T, 'subject'>[]> => {
  const map = new Map<string, Omit<T, 'subject'>[]>();
  for (const { subject, ...row } of rows) {
    const list = map.get(subject) ?? [];
    list.push(row);
    map.set(subject, list);
  }
  return map;
};

async function documentsOf(
  db: Queryable,
  kind: RecordKind | 'fund',
  numbers: readonly string[],
): Promise<Map<string, DocumentFileRow[]>> {
  const result = await db.query<DocumentFileRow & { subject: string }>(
    `SELECT ${DOCUMENT_COLUMNS} FROM disclose_documents
      WHERE subject_kind = $1 AND subject_number = ANY($2) ORDER BY subject_number, document_rec_id`,
    [kind, numbers],
  );
  return grouped(result.rows);
}

/** The schemes or offers named, as the register holds them, in number order. */
export async function recordStates(
  db: Queryable,
  kind: RecordKind,
  numbers: readonly string[],
): Promise<RecordState[]> {
  const table = TABLE[kind];
  const key = KEY[kind];
  // One after another: `db` may be the import's client, which runs one query at a time.
  const records = await db.query<{ number: string; lastChanged: Date }>(
    `SELECT ${key} AS number, last_changed AS "lastChanged" FROM ${table} WHERE ${key} = ANY($1) ORDER BY ${key}`,
    [numbers],
  );
  // Only the held records' parts are read, and nothing more when none is held (a load's every chunk).
  if (records.rows.length === 0) return [];
  numbers = records.rows.map((r) => r.number);
  const versions = await db.query<VersionRow & { subject: string }>(
    `SELECT ${key} AS subject, version, changed_at AS "changedAt", change, document
         FROM ${table.replace(/s$/, '')}_versions WHERE ${key} = ANY($1) ORDER BY ${key}, version`,
    [numbers],
  );
  const participants = await db.query<ParticipantRow & { subject: string }>(
    `SELECT subject_number AS subject, role, name, nzbn FROM disclose_participants
        WHERE subject_kind = $1 AND subject_number = ANY($2) ORDER BY subject_number, position`,
    [kind, numbers],
  );
  const notices = await db.query<NoticeRow & { subject: string }>(
    `SELECT subject_number AS subject, notice_rec_id AS "noticeRecId", notice_type AS "noticeType",
              to_char(notice_date, 'YYYY-MM-DD') AS "noticeDate", summary, recorded_at AS "recordedAt"
         FROM disclose_notices WHERE subject_kind = $1 AND subject_number = ANY($2)
        ORDER BY subject_number, notice_rec_id`,
    [kind, numbers],
  );
  const documents = await documentsOf(db, kind, numbers);
  const filings = await db.query<FilingRow & { subject: string }>(
    `SELECT subject_number AS subject, fund_number AS "fundNumber", filed_at AS "filedAt",
              filing_type AS "filingType", description, late, filed_by AS "filedBy"
         FROM disclose_filing_history WHERE subject_kind = $1 AND subject_number = ANY($2)
        ORDER BY subject_number, filed_at, id`,
    [kind, numbers],
  );
  const byVersion = grouped(versions.rows);
  const byParticipant = grouped(participants.rows);
  const byNotice = grouped(notices.rows);
  const byFiling = grouped(filings.rows);
  return records.rows.map((r) => ({
    number: r.number,
    lastChanged: r.lastChanged,
    versions: byVersion.get(r.number) ?? [],
    participants: byParticipant.get(r.number) ?? [],
    notices: byNotice.get(r.number) ?? [],
    documents: documents.get(r.number) ?? [],
    filings: byFiling.get(r.number) ?? [],
  }));
}

/** The funds named, as the register holds them, in number order. */
export async function fundStates(db: Queryable, numbers: readonly string[]): Promise<FundState[]> {
  const funds = await db.query<Omit<FundState, 'versions' | 'activities' | 'documents'>>(
    `SELECT fund_number AS "fundNumber", offer_number AS "offerNumber",
              to_char(registered_on, 'YYYY-MM-DD') AS "registeredOn", fph_required AS "fphRequired",
              last_changed AS "lastChanged"
         FROM disclose_funds WHERE fund_number = ANY($1) ORDER BY fund_number`,
    [numbers],
  );
  // Only the held funds' parts are read, and nothing more when none is held (a load's every chunk).
  if (funds.rows.length === 0) return [];
  numbers = funds.rows.map((f) => f.fundNumber);
  const versions = await db.query<FundVersionRow & { subject: string }>(
    `SELECT fund_number AS subject, version, offer_version AS "offerVersion", changed_at AS "changedAt",
              change, document, holdings_version AS "holdingsVersion",
              to_char(holdings_period_end, 'YYYY-MM-DD') AS "holdingsPeriodEnd"
         FROM disclose_fund_versions WHERE fund_number = ANY($1) ORDER BY fund_number, version`,
    [numbers],
  );
  const activities = await db.query<ActivityRow & { subject: string }>(
    `SELECT fund_number AS subject, kind, to_char(period_end, 'YYYY-MM-DD') AS "periodEnd",
              to_char(due_date, 'YYYY-MM-DD') AS "dueDate", filed_at AS "filedAt", late,
              fund_version AS "fundVersion", filed_by AS "filedBy"
         FROM disclose_compliance_activities WHERE fund_number = ANY($1)
        ORDER BY fund_number, kind, period_end`,
    [numbers],
  );
  const documents = await documentsOf(db, 'fund', numbers);
  const byVersion = grouped(versions.rows);
  const byActivity = grouped(activities.rows);
  return funds.rows.map((f) => ({
    ...f,
    versions: byVersion.get(f.fundNumber) ?? [],
    activities: byActivity.get(f.fundNumber) ?? [],
    documents: documents.get(f.fundNumber) ?? [],
  }));
}

/** The fund versions that hold holdings rows, after (fund, version), in order (an export's page). */
export async function holdingsVersionsAfter(
  db: Queryable,
  after: { fundNumber: string; version: number },
  limit: number,
): Promise<{ fundNumber: string; version: number; periodEnd: string | null }[]> {
  const result = await db.query<{ fundNumber: string; version: number; periodEnd: string | null }>(
    `SELECT v.fund_number AS "fundNumber", v.version,
            to_char(v.holdings_period_end, 'YYYY-MM-DD') AS "periodEnd"
       FROM disclose_fund_versions v
      WHERE (v.fund_number, v.version) > ($1, $2)
        AND EXISTS (SELECT 1 FROM disclose_fund_holdings h
                     WHERE h.fund_number = v.fund_number AND h.fund_version = v.version)
      ORDER BY v.fund_number, v.version LIMIT $3`,
    [after.fundNumber, after.version, limit],
  );
  return result.rows;
}

/** A fund version, as a holdings line names it. */
export interface FundVersionKey {
  fundNumber: string;
  version: number;
}

/** `fund version`: how a fund version is keyed in the maps and sets below. */
export const fundVersionKey = (v: FundVersionKey) => `${v.fundNumber} ${v.version}`;

const pairsOf = (versions: readonly FundVersionKey[]) => [
  versions.map((v) => v.fundNumber),
  versions.map((v) => v.version),
];

/** The holdings rows of each of the fund versions, in their order, by `fundVersionKey` (none: absent). */
export async function holdingsOfVersions(
  db: Queryable,
  versions: readonly FundVersionKey[],
): Promise<Map<string, HoldingRow[]>> {
  const result = await db.query<HoldingRow & { key: string; value: string; percentageOfFund: string }>(
    `SELECT h.fund_number || ' ' || h.fund_version AS key, asset_name AS "assetName",
            asset_type AS "assetType", isin, value::text AS value,
            percentage_of_fund::text AS "percentageOfFund", currency
       FROM disclose_fund_holdings h
       JOIN unnest($1::text[], $2::int[]) AS p(fund_number, fund_version) USING (fund_number, fund_version)
      ORDER BY h.fund_number, h.fund_version, h.line`,
    pairsOf(versions),
  );
  const byVersion = new Map<string, HoldingRow[]>();
  for (const { key, ...row } of result.rows) {
    const rows = byVersion.get(key) ?? [];
    byVersion.set(key, rows);
    rows.push({ ...row, value: Number(row.value), percentageOfFund: Number(row.percentageOfFund) });
  }
  return byVersion;
}

/** Of the fund versions, those the register holds (by `fundVersionKey`). */
export async function fundVersionsHeld(
  db: Queryable,
  versions: readonly FundVersionKey[],
): Promise<Set<string>> {
  const result = await db.query<{ key: string }>(
    `SELECT v.fund_number || ' ' || v.version AS key
       FROM disclose_fund_versions v
       JOIN unnest($1::text[], $2::int[]) AS p(fund_number, version) USING (fund_number, version)`,
    pairsOf(versions),
  );
  return new Set(result.rows.map((r) => r.key));
}

/** The record each of the ids belongs to, as a document or a notice (`kind number`). */
export async function idOwners(db: Queryable, ids: readonly string[]): Promise<Map<string, string>> {
  const result = await db.query<{ id: string; owner: string }>(
    `SELECT document_rec_id AS id, subject_kind || ' ' || subject_number AS owner
       FROM disclose_documents WHERE document_rec_id = ANY($1)
     UNION ALL
     SELECT notice_rec_id, subject_kind || ' ' || subject_number FROM disclose_notices
      WHERE notice_rec_id = ANY($1)`,
    [ids],
  );
  return new Map(result.rows.map((r) => [r.id, r.owner]));
}

/** What a scheme's or an offer's own row holds, from its current version. */
export interface RecordRow {
  number: string;
  schemeNumber: string | null;
  name: string;
  status: string;
  type: string;
  companyName: string;
  companyNzbn: string | null;
  supervisorName: string | null;
  supervisorNzbn: string | null;
  openDate: string | null;
  closeDate: string | null;
  version: number;
  firstRegistered: Date;
  lastChanged: Date;
}

/** What an import writes for one scheme or offer: its row, its new versions, and its other parts. */
export interface RecordWrite {
  row: RecordRow;
  added: VersionRow[];
  participants: ParticipantRow[];
  notices: NoticeRow[];
  documents: DocumentFileRow[];
  filings: FilingRow[];
}

const json = (value: unknown) => JSON.stringify(value);

/**
 * Writes schemes or offers (numbers distinct): each row new or replaced, its new versions added, and
 * its participants, notices, documents and filing history set to the given ones (entries in order).
 */
export async function writeRecords(
  client: PoolClient,
  kind: RecordKind,
  writes: readonly RecordWrite[],
): Promise<void> {
  if (writes.length === 0) return;
  const numbers = writes.map((w) => w.row.number);
  if (kind === 'scheme') {
    await client.query(
      `INSERT INTO disclose_schemes (scheme_number, name, status, scheme_type, manager_nzbn, manager_name,
         supervisor_nzbn, supervisor_name, version, first_registered, last_changed)
       SELECT r.number, r.name, r.status, r.type, r."companyNzbn", r."companyName", r."supervisorNzbn",
              r."supervisorName", r.version, r."firstRegistered", r."lastChanged"
         FROM json_to_recordset($1::json) AS r(number text, name text, status text, type text,
           "companyNzbn" text, "companyName" text, "supervisorNzbn" text, "supervisorName" text,
           version integer, "firstRegistered" timestamptz, "lastChanged" timestamptz)
       ON CONFLICT (scheme_number) DO UPDATE SET name = EXCLUDED.name, status = EXCLUDED.status,
         scheme_type = EXCLUDED.scheme_type, manager_nzbn = EXCLUDED.manager_nzbn,
         manager_name = EXCLUDED.manager_name, supervisor_nzbn = EXCLUDED.supervisor_nzbn,
         supervisor_name = EXCLUDED.supervisor_name, version = EXCLUDED.version,
         first_registered = EXCLUDED.first_registered, last_changed = EXCLUDED.last_changed`,
      [json(writes.map((w) => w.row))],
    );
  } else {
    await client.query(
      `INSERT INTO disclose_offers (offer_number, scheme_number, name, status, product_type, issuer_nzbn,
         issuer_name, open_date, close_date, version, first_registered, last_changed)
       SELECT r.number, r."schemeNumber", r.name, r.status, r.type, r."companyNzbn", r."companyName",
              r."openDate", r."closeDate", r.version, r."firstRegistered", r."lastChanged"
         FROM json_to_recordset($1::json) AS r(number text, "schemeNumber" text, name text, status text,
           type text, "companyNzbn" text, "companyName" text, "openDate" date, "closeDate" date,
           version integer, "firstRegistered" timestamptz, "lastChanged" timestamptz)
       ON CONFLICT (offer_number) DO UPDATE SET scheme_number = EXCLUDED.scheme_number,
         name = EXCLUDED.name, status = EXCLUDED.status, product_type = EXCLUDED.product_type,
         issuer_nzbn = EXCLUDED.issuer_nzbn, issuer_name = EXCLUDED.issuer_name,
         open_date = EXCLUDED.open_date, close_date = EXCLUDED.close_date, version = EXCLUDED.version,
         first_registered = EXCLUDED.first_registered, last_changed = EXCLUDED.last_changed`,
      [json(writes.map((w) => w.row))],
    );
  }
  const subject = 'subject_kind = $1 AND subject_number = ANY($2)';
  // Documents before notices: a notice's documents refer to it.
  for (const table of [
    'disclose_participants',
    'disclose_documents',
    'disclose_notices',
    'disclose_filing_history',
  ])
    await client.query(`DELETE FROM ${table} WHERE ${subject}`, [kind, numbers]);
  await copyRecordParts(client, kind, writes);
}

type CopyValue = string | number | boolean | Date | null;

/** Rows into `table`'s `columns` with one COPY (a date as its instant, in order: ids follow it). */
async function copyRows(
  client: PoolClient,
  table: string,
  columns: string,
  rows: readonly (readonly CopyValue[])[],
): Promise<void> {
  if (rows.length === 0) return;
  const lines = rows.map((row) => copyLine(row.map((v) => (v instanceof Date ? v.toISOString() : v))));
  await copyText(client, `COPY ${table} (${columns}) FROM STDIN`, lines);
}

/** A record's notices, documents (after the notices they name) and filing history, copied. */
async function copyParts(
  client: PoolClient,
  kind: RecordKind | 'fund',
  parts: readonly {
    number: string;
    notices?: readonly NoticeRow[];
    documents: readonly DocumentFileRow[];
    filings?: readonly FilingRow[];
  }[],
): Promise<void> {
  await copyRows(
    client,
    'disclose_notices',
    'notice_rec_id, subject_kind, subject_number, notice_type, notice_date, summary, recorded_at',
    parts.flatMap((p) =>
      (p.notices ?? []).map((n) => [
        n.noticeRecId,
        kind,
        p.number,
        n.noticeType,
        n.noticeDate,
        n.summary,
        n.recordedAt,
      ]),
    ),
  );
  await copyRows(
    client,
    'disclose_documents',
    `document_rec_id, subject_kind, subject_number, document_type, notice_rec_id, title, file_name,
     content_type, size_bytes, storage_key, added_at`,
    parts.flatMap((p) =>
      p.documents.map((d) => [
        d.documentRecId,
        kind,
        p.number,
        d.documentType,
        d.noticeRecId,
        d.title,
        d.fileName,
        d.contentType,
        d.sizeBytes,
        d.storageKey,
        d.addedAt,
      ]),
    ),
  );
  await copyRows(
    client,
    'disclose_filing_history',
    'subject_kind, subject_number, fund_number, filed_at, filing_type, description, late, filed_by',
    parts.flatMap((p) =>
      (p.filings ?? []).map((f) => [
        kind,
        p.number,
        f.fundNumber,
        f.filedAt,
        f.filingType,
        f.description,
        f.late,
        f.filedBy,
      ]),
    ),
  );
}

/**
 * Writes schemes or offers the register does not hold (numbers distinct, none held): what
 * `writeRecords` writes, copied into each table as a load is (no conflict to settle, nothing to
 * delete first).
 */
export async function copyNewRecords(
  client: PoolClient,
  kind: RecordKind,
  writes: readonly RecordWrite[],
): Promise<void> {
  if (writes.length === 0) return;
  if (kind === 'scheme')
    await copyRows(
      client,
      'disclose_schemes',
      `scheme_number, name, status, scheme_type, manager_nzbn, manager_name, supervisor_nzbn,
       supervisor_name, version, first_registered, last_changed`,
      writes.map(({ row: r }) => [
        r.number,
        r.name,
        r.status,
        r.type,
        r.companyNzbn,
        r.companyName,
        r.supervisorNzbn,
        r.supervisorName,
        r.version,
        r.firstRegistered,
        r.lastChanged,
      ]),
    );
  else
    await copyRows(
      client,
      'disclose_offers',
      `offer_number, scheme_number, name, status, product_type, issuer_nzbn, issuer_name, open_date,
       close_date, version, first_registered, last_changed`,
      writes.map(({ row: r }) => [
        r.number,
        r.schemeNumber,
        r.name,
        r.status,
        r.type,
        r.companyNzbn,
        r.companyName,
        r.openDate,
        r.closeDate,
        r.version,
        r.firstRegistered,
        r.lastChanged,
      ]),
    );
  await copyRecordParts(client, kind, writes);
}

/** A scheme's or an offer's new versions, participants, notices, documents and filing history, copied. */
async function copyRecordParts(client: PoolClient, kind: RecordKind, writes: readonly RecordWrite[]) {
  await copyRows(
    client,
    `${TABLE[kind].replace(/s$/, '')}_versions`,
    `${KEY[kind]}, version, changed_at, change, document`,
    writes.flatMap((w) =>
      w.added.map((v) => [w.row.number, v.version, v.changedAt, v.change, json(v.document)]),
    ),
  );
  await copyRows(
    client,
    'disclose_participants',
    'subject_kind, subject_number, position, role, name, nzbn',
    writes.flatMap((w) =>
      w.participants.map((p, position) => [kind, w.row.number, position, p.role, p.name, p.nzbn]),
    ),
  );
  await copyParts(
    client,
    kind,
    writes.map((w) => ({
      number: w.row.number,
      notices: w.notices,
      documents: w.documents,
      filings: w.filings,
    })),
  );
}

/** Writes funds the register does not hold (numbers distinct, none held), copied as `copyNewRecords`. */
export async function copyNewFunds(client: PoolClient, writes: readonly FundWrite[]): Promise<void> {
  if (writes.length === 0) return;
  await copyRows(
    client,
    'disclose_funds',
    'fund_number, offer_number, name, fund_type, registered_on, fph_required, version, last_changed',
    writes.map(({ fund: f }) => [
      f.fundNumber,
      f.offerNumber,
      f.name,
      f.fundType,
      f.registeredOn,
      f.fphRequired,
      f.version,
      f.lastChanged,
    ]),
  );
  await copyFundParts(client, writes);
}

/** A fund's new versions, compliance activities and documents, copied. */
async function copyFundParts(client: PoolClient, writes: readonly FundWrite[]) {
  await copyRows(
    client,
    'disclose_fund_versions',
    'fund_number, version, offer_version, changed_at, change, document, holdings_version, holdings_period_end',
    writes.flatMap((w) =>
      w.added.map((v) => [
        w.fund.fundNumber,
        v.version,
        v.offerVersion,
        v.changedAt,
        v.change,
        json(v.document),
        v.holdingsVersion,
        v.holdingsPeriodEnd,
      ]),
    ),
  );
  await copyRows(
    client,
    'disclose_compliance_activities',
    'fund_number, kind, period_end, due_date, filed_at, late, fund_version, filed_by',
    writes.flatMap((w) =>
      w.activities.map((a) => [
        w.fund.fundNumber,
        a.kind,
        a.periodEnd,
        a.dueDate,
        a.filedAt,
        a.late,
        a.fundVersion,
        a.filedBy,
      ]),
    ),
  );
  await copyParts(
    client,
    'fund',
    writes.map((w) => ({ number: w.fund.fundNumber, documents: w.documents })),
  );
}

/** What an import writes for one fund: its row, its new versions, activities and documents. */
export interface FundWrite {
  fund: {
    fundNumber: string;
    offerNumber: string;
    name: string;
    fundType: string;
    registeredOn: string;
    fphRequired: boolean;
    version: number;
    lastChanged: Date;
  };
  added: FundVersionRow[];
  activities: ActivityRow[];
  documents: DocumentFileRow[];
}

/** Writes funds (numbers distinct): rows new or replaced, versions added, activities and documents set. */
export async function writeFunds(client: PoolClient, writes: readonly FundWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const numbers = writes.map((w) => w.fund.fundNumber);
  await client.query(
    `INSERT INTO disclose_funds (fund_number, offer_number, name, fund_type, registered_on, fph_required,
       version, last_changed)
     SELECT f."fundNumber", f."offerNumber", f.name, f."fundType", f."registeredOn", f."fphRequired",
            f.version, f."lastChanged"
       FROM json_to_recordset($1::json) AS f("fundNumber" text, "offerNumber" text, name text,
         "fundType" text, "registeredOn" date, "fphRequired" boolean, version integer,
         "lastChanged" timestamptz)
     ON CONFLICT (fund_number) DO UPDATE SET offer_number = EXCLUDED.offer_number, name = EXCLUDED.name,
       fund_type = EXCLUDED.fund_type, registered_on = EXCLUDED.registered_on,
       fph_required = EXCLUDED.fph_required, version = EXCLUDED.version, last_changed = EXCLUDED.last_changed`,
    [json(writes.map((w) => w.fund))],
  );
  await client.query('DELETE FROM disclose_compliance_activities WHERE fund_number = ANY($1)', [numbers]);
  await client.query(
    "DELETE FROM disclose_documents WHERE subject_kind = 'fund' AND subject_number = ANY($1)",
    [numbers],
  );
  await copyFundParts(client, writes);
}

/** Sets each fund version's holdings rows to the given ones (versions distinct): one delete, one COPY. */
export async function replaceHoldings(
  client: PoolClient,
  entries: readonly (FundVersionKey & { holdings: readonly HoldingRow[] })[],
): Promise<void> {
  if (entries.length === 0) return;
  await client.query(
    `DELETE FROM disclose_fund_holdings h
      USING unnest($1::text[], $2::int[]) AS p(fund_number, fund_version)
      WHERE h.fund_number = p.fund_number AND h.fund_version = p.fund_version`,
    pairsOf(entries),
  );
  await insertHoldingsOf(
    client,
    entries.map((e) => ({
      fundNumber: e.fundNumber,
      version: e.version,
      holdings: {
        assetName: e.holdings.map((h) => h.assetName),
        assetType: e.holdings.map((h) => h.assetType),
        isin: e.holdings.map((h) => h.isin),
        value: e.holdings.map((h) => h.value),
        percentageOfFund: e.holdings.map((h) => h.percentageOfFund),
        currency: e.holdings.map((h) => h.currency),
      },
    })),
  );
}
