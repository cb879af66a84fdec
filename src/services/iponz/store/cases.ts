/**
 * Cases: one case whole (status history, parties with their clients' names, documents, goods and
 * services), batches of cases for the date-range lists (keyset pages, so a long list streams in flat
 * memory), the renewal's writes, and the seed's inserts. The SOAP operations read and write
 * through these same functions.
 */
import type pg from 'pg';
import { nzDate } from '../../../platform/calendar.ts';
import type { CaseRecord } from '../domain/model.ts';
import type { CaseKind } from '../domain/renewals.ts';
import { noticeCaseChange } from './case-cache.ts';

type Queryable = pg.Pool | pg.PoolClient;

const CASE_COLUMNS = `c.kind, c.case_number, c.title, c.status, c.status_date::text, c.application_date::text,
  c.term_date::text, c.registration_date::text, c.last_renewal_due_date::text,
  c.international_application_number, c.international_publication_number,
  c.international_registration_number, c.priority_country_code, c.mark_image_name, c.novelty_statement, c.patent_detail,
  c.version, c.updated_at,
  (SELECT coalesce(json_agg(json_build_object('status', h.status, 'statusDate', h.status_date) ORDER BY h.seq), '[]')
     FROM iponz_status_history h
     WHERE h.kind = c.kind AND h.case_number = c.case_number AND h.event = 'status') AS history,
  (SELECT coalesce(json_agg(json_build_object('renewalDate', h.status_date,
       'renewedExpiryDate', h.renewed_expiry_date, 'newExpiryDate', h.new_expiry_date) ORDER BY h.seq), '[]')
     FROM iponz_status_history h
     WHERE h.kind = c.kind AND h.case_number = c.case_number AND h.event = 'renewal') AS renewals,
  (SELECT coalesce(json_agg(json_build_object('role', p.role, 'clientId', p.client_id, 'name', k.name,
       'countryCode', (SELECT a.country_code FROM iponz_client_addresses a WHERE a.client_id = k.client_id
         ORDER BY a.address_type = 'physical' DESC, a.address_type = 'service' DESC LIMIT 1))
       ORDER BY p.role, p.position), '[]')
     FROM iponz_case_parties p JOIN iponz_clients k USING (client_id)
     WHERE p.kind = c.kind AND p.case_number = c.case_number) AS parties,
  (SELECT coalesce(json_agg(json_build_object('documentIdentifier', d.document_identifier,
       'documentName', d.document_name, 'objectFormat', d.object_format, 'createdOn', d.created_on)
       ORDER BY d.created_on, d.document_identifier), '[]')
     FROM iponz_case_documents d WHERE d.kind = c.kind AND d.case_number = c.case_number) AS documents,
  (SELECT coalesce(json_agg(json_build_object('classNumber', g.class_number, 'description', g.description)
       ORDER BY g.class_number), '[]')
     FROM iponz_goods_services g WHERE g.kind = c.kind AND g.case_number = c.case_number) AS goods`;

interface CaseRow {
  kind: CaseKind;
  case_number: number;
  title: string;
  status: string;
  status_date: string;
  application_date: string;
  term_date: string;
  registration_date: string | null;
  last_renewal_due_date: string | null;
  international_application_number: string | null;
  international_publication_number: string | null;
  international_registration_number: string | null;
  priority_country_code: string | null;
  mark_image_name: string | null;
  novelty_statement: string | null;
  patent_detail: CaseRecord['patentDetail'];
  version: number;
  updated_at: Date;
  history: CaseRecord['history'];
  renewals: CaseRecord['renewals'];
  parties: CaseRecord['parties'];
  documents: CaseRecord['documents'];
  goods: CaseRecord['goodsAndServices'];
}

const recordOf = (row: CaseRow): CaseRecord => ({
  kind: row.kind,
  caseNumber: row.case_number,
  title: row.title,
  status: row.status,
  statusDate: row.status_date,
  applicationDate: row.application_date,
  termDate: row.term_date,
  registrationDate: row.registration_date,
  lastRenewalDueDate: row.last_renewal_due_date,
  internationalApplicationNumber: row.international_application_number,
  internationalPublicationNumber: row.international_publication_number,
  internationalRegistrationNumber: row.international_registration_number,
  priorityCountryCode: row.priority_country_code,
  markImageName: row.mark_image_name,
  noveltyStatement: row.novelty_statement,
  patentDetail: row.patent_detail,
  version: row.version,
  updatedAt: row.updated_at,
  history: row.history,
  renewals: row.renewals,
  parties: row.parties,
  documents: row.documents,
  goodsAndServices: row.goods,
});

/** One case whole, or null. `lock`: FOR UPDATE (inside the caller's transaction). */
export async function findCase(
  db: Queryable,
  kind: CaseKind,
  caseNumber: number,
  lock = false,
): Promise<CaseRecord | null> {
  const { rows } = await db.query<CaseRow>(
    `SELECT ${CASE_COLUMNS} FROM iponz_cases c WHERE c.kind = $1 AND c.case_number = $2${lock ? ' FOR UPDATE OF c' : ''}`,
    [kind, caseNumber],
  );
  return rows[0] ? recordOf(rows[0]) : null;
}

/** Cases after `after` in (kind, number) order, whole: a page of an export. */
export async function casesAfter(
  db: Queryable,
  after: { kind: string; caseNumber: number },
  limit: number,
): Promise<CaseRecord[]> {
  const { rows } = await db.query<CaseRow>(
    `SELECT ${CASE_COLUMNS} FROM iponz_cases c WHERE (c.kind, c.case_number) > ($1, $2)
     ORDER BY c.kind, c.case_number LIMIT $3`,
    [after.kind, after.caseNumber, limit],
  );
  return rows.map(recordOf);
}

/** The cases of these keys that the register holds, whole. */
export async function casesNamed(
  db: Queryable,
  keys: readonly { kind: CaseKind; caseNumber: number }[],
): Promise<CaseRecord[]> {
  const { rows } = await db.query<CaseRow>(
    `SELECT ${CASE_COLUMNS} FROM iponz_cases c
     JOIN unnest($1::text[], $2::int[]) AS k(kind, case_number) USING (kind, case_number)`,
    [keys.map((k) => k.kind), keys.map((k) => k.caseNumber)],
  );
  return rows.map(recordOf);
}

export interface CaseRange {
  /** `updated`: changed (or filed) on a New Zealand date in the range; `registered`: registered in it. */
  by: 'updated' | 'registered';
  from: string;
  to: string;
}

/** The next batch of a range's cases after `after` (a case number), whole, by case number. */
export async function casesInRange(
  db: Queryable,
  kind: CaseKind,
  range: CaseRange,
  after: number,
  limit: number,
): Promise<CaseRecord[]> {
  const column = range.by === 'updated' ? 'updated_on' : 'registration_date';
  const { rows } = await db.query<CaseRow>(
    `SELECT ${CASE_COLUMNS} FROM iponz_cases c
     WHERE c.kind = $1 AND c.${column} BETWEEN $2 AND $3 AND c.case_number > $4
     ORDER BY c.case_number LIMIT $5`,
    [kind, range.from, range.to, after, limit],
  );
  return rows.map(recordOf);
}

/** A range's cases in batches of `batch`, by case number: memory stays that of one batch. */
export async function* streamCases(
  pool: pg.Pool,
  kind: CaseKind,
  range: CaseRange,
  batch = 500,
): AsyncGenerator<CaseRecord> {
  let after = 0;
  for (;;) {
    const rows = await casesInRange(pool, kind, range, after, batch);
    yield* rows;
    if (rows.length < batch) return;
    after = rows.at(-1)!.caseNumber;
  }
}

/**
 * The renewal's writes on a locked case: the fee's due date paid, the version bumped, a renewal event in
 * the history (its date, the expiry renewed, the new expiry), a status row only when the renewal changes
 * the status (a trade mark past its expiry date registered again), and the change notice for the case
 * caches (delivered at commit).
 */
export async function recordRenewal(
  tx: pg.PoolClient,
  record: Pick<CaseRecord, 'kind' | 'caseNumber' | 'status'>,
  change: { renewedDueDate: string; newExpiryDate: string; status: string; statusDate: string; at: Date },
): Promise<void> {
  const statusChanged = change.status !== record.status;
  await tx.query(
    `UPDATE iponz_cases SET last_renewal_due_date = $3, status = $4,
       status_date = CASE WHEN $8::boolean THEN $5::date ELSE status_date END,
       version = version + 1, updated_at = $6, updated_on = $7
     WHERE kind = $1 AND case_number = $2`,
    [
      record.kind,
      record.caseNumber,
      change.renewedDueDate,
      change.status,
      change.statusDate,
      change.at,
      nzDate(change.at.getTime()),
      statusChanged,
    ],
  );
  await tx.query(
    `INSERT INTO iponz_status_history
       (kind, case_number, seq, status, status_date, recorded_at, event, renewed_expiry_date, new_expiry_date)
     SELECT $1, $2, coalesce(max(seq), 0) + 1, $3, $4, $5, 'renewal', $6, $7 FROM iponz_status_history
     WHERE kind = $1 AND case_number = $2`,
    [
      record.kind,
      record.caseNumber,
      change.status,
      change.statusDate,
      change.at,
      change.renewedDueDate,
      change.newExpiryDate,
    ],
  );
  if (statusChanged)
    await tx.query(
      `INSERT INTO iponz_status_history (kind, case_number, seq, status, status_date, recorded_at)
       SELECT $1, $2, coalesce(max(seq), 0) + 1, $3, $4, $5 FROM iponz_status_history
       WHERE kind = $1 AND case_number = $2`,
      [record.kind, record.caseNumber, change.status, change.statusDate, change.at],
    );
  await noticeCaseChange(tx, record.kind, record.caseNumber);
}
