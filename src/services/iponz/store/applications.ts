/**
 * Applications filed through the API: application numbers, the published international applications a
 * national phase names, the new case's rows (case, status history, parties, goods and services,
 * documents), the filer and the examination simulator's stage, and the simulator's status changes (the
 * filings kept per TransactionIdentifier: kept-requests.ts). The filing's statements run in the caller's one transaction.
 */
import type pg from 'pg';
import { nzDate } from '../../../platform/calendar.ts';
import type { InternationalApplication } from '../domain/applications.ts';
import type { ApplicationState, CaseChange, FiledKind, Stage } from '../domain/examination.ts';
import type { CaseDocument, PartyRole } from '../domain/model.ts';
import { noticeCaseChange } from './case-cache.ts';

type Queryable = pg.Pool | pg.PoolClient;

/**
 * The next number of a counter (`patent`, `trademark`, `client`), skipping numbers already used. The
 * counter row stays locked until the caller's transaction ends: concurrent filings wait for it, so no two
 * get one number, and a rolled-back filing gives its number back.
 */
export async function allocateNumber(tx: pg.PoolClient, counter: FiledKind | 'client'): Promise<number> {
  for (;;) {
    const { rows } = await tx.query<{ number: number }>(
      `UPDATE iponz_case_numbers SET next_number = next_number + 1
       WHERE kind = $1 AND next_number <= last_number RETURNING next_number - 1 AS number`,
      [counter],
    );
    const number = rows[0]?.number;
    if (number === undefined) throw new Error(`iponz: the ${counter} numbers are used up`);
    const used =
      counter === 'client'
        ? await tx.query('SELECT 1 FROM iponz_clients WHERE client_id = $1', [number])
        : await tx.query('SELECT 1 FROM iponz_cases WHERE kind = $1 AND case_number = $2', [counter, number]);
    if (used.rowCount === 0) return number;
  }
}

/** A published international application by its canonical number, or undefined. */
export async function findInternationalApplication(
  db: Queryable,
  number: string,
): Promise<InternationalApplication | undefined> {
  const { rows } = await db.query<InternationalApplication>(
    `SELECT international_application_number AS "internationalApplicationNumber",
       international_publication_number AS "internationalPublicationNumber",
       international_filing_date::text AS "internationalFilingDate", priority_date::text AS "priorityDate",
       priority_country_code AS "priorityCountryCode", title
     FROM iponz_international_applications WHERE international_application_number = $1`,
    [number],
  );
  return rows[0];
}

/** Whether a patent case already carries this international application number. */
export async function nationalPhaseEntered(db: Queryable, number: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `SELECT 1 FROM iponz_cases WHERE kind = 'patent' AND international_application_number = $1 LIMIT 1`,
    [number],
  );
  return (rowCount ?? 0) > 0;
}

/** Serialises national phase entries of one international application (in the caller's transaction). */
export async function lockInternationalApplication(tx: pg.PoolClient, number: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 15))', [`iponz-pct|${number}`]);
}

/** The names of those of these client ids that exist. */
export async function existingClients(db: Queryable, ids: readonly number[]): Promise<Map<number, string>> {
  const { rows } = await db.query<{ client_id: number; name: string }>(
    'SELECT client_id, name FROM iponz_clients WHERE client_id = ANY($1::int[])',
    [ids],
  );
  return new Map(rows.map((r) => [r.client_id, r.name]));
}

/** A client's country: its physical address's, else its service or postal address's; undefined: none. */
export async function clientCountry(db: Queryable, clientId: number): Promise<string | undefined> {
  const { rows } = await db.query<{ country_code: string }>(
    `SELECT country_code FROM iponz_client_addresses WHERE client_id = $1
     ORDER BY address_type = 'physical' DESC, address_type = 'service' DESC LIMIT 1`,
    [clientId],
  );
  return rows[0]?.country_code;
}

/** Loads published international applications (the sandbox's set); those already there are kept. */
export async function insertInternationalApplications(
  db: Queryable,
  applications: readonly InternationalApplication[],
): Promise<void> {
  if (applications.length === 0) return;
  await db.query(
    `INSERT INTO iponz_international_applications (international_application_number,
       international_publication_number, international_filing_date, priority_date, priority_country_code, title)
     SELECT * FROM unnest($1::text[], $2::text[], $3::date[], $4::date[], $5::text[], $6::text[])
     ON CONFLICT DO NOTHING`,
    [
      applications.map((a) => a.internationalApplicationNumber),
      applications.map((a) => a.internationalPublicationNumber),
      applications.map((a) => a.internationalFilingDate),
      applications.map((a) => a.priorityDate),
      applications.map((a) => a.priorityCountryCode),
      applications.map((a) => a.title),
    ],
  );
}

export interface NewCase {
  kind: FiledKind;
  caseNumber: number;
  title: string;
  status: string;
  applicationDate: string;
  termDate: string;
  internationalApplicationNumber: string | null;
  internationalPublicationNumber: string | null;
  priorityCountryCode: string | null;
  markImageName: string | null;
  parties: { role: PartyRole; clientId: number }[];
  goodsAndServices: { classNumber: number; description: string }[];
  documents: FiledDocument[];
}

/** The new case's rows, its first status, and the change notice (delivered at commit). */
export async function insertCase(tx: pg.PoolClient, c: NewCase, at: Date): Promise<void> {
  const day = nzDate(at.getTime());
  await tx.query(
    `INSERT INTO iponz_cases (kind, case_number, title, status, status_date, application_date, term_date,
       international_application_number, international_publication_number, priority_country_code,
       mark_image_name, updated_at, updated_on)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $5)`,
    [
      c.kind,
      c.caseNumber,
      c.title,
      c.status,
      day,
      c.applicationDate,
      c.termDate,
      c.internationalApplicationNumber,
      c.internationalPublicationNumber,
      c.priorityCountryCode,
      c.markImageName,
      at,
    ],
  );
  await tx.query(
    `INSERT INTO iponz_status_history (kind, case_number, seq, status, status_date, recorded_at)
     VALUES ($1, $2, 1, $3, $4, $5)`,
    [c.kind, c.caseNumber, c.status, day, at],
  );
  const positions = new Map<string, number>();
  for (const party of c.parties) {
    const position = (positions.get(party.role) ?? 0) + 1;
    positions.set(party.role, position);
    await tx.query(
      'INSERT INTO iponz_case_parties (kind, case_number, role, position, client_id) VALUES ($1, $2, $3, $4, $5)',
      [c.kind, c.caseNumber, party.role, position, party.clientId],
    );
  }
  if (c.goodsAndServices.length > 0)
    await tx.query(
      `INSERT INTO iponz_goods_services (kind, case_number, class_number, description)
       SELECT 'trademark', $1, * FROM unnest($2::smallint[], $3::text[])`,
      [
        c.caseNumber,
        c.goodsAndServices.map((g) => g.classNumber),
        c.goodsAndServices.map((g) => g.description),
      ],
    );
  for (const document of c.documents) await insertDocument(tx, c.kind, c.caseNumber, document);
  await noticeCaseChange(tx, c.kind, c.caseNumber);
}

/** A document of a case; `storedSize`: the length of its bytes in the document store (none: generated). */
export type FiledDocument = CaseDocument & { storedSize?: number };

/** One document row of a case. */
export async function insertDocument(
  tx: pg.PoolClient,
  kind: FiledKind,
  caseNumber: number,
  d: FiledDocument,
): Promise<void> {
  await tx.query(
    `INSERT INTO iponz_case_documents (document_identifier, kind, case_number, document_name, object_format,
       created_on, stored_size)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      d.documentIdentifier,
      kind,
      caseNumber,
      d.documentName,
      d.objectFormat,
      d.createdOn,
      d.storedSize ?? null,
    ],
  );
}

export interface FiledApplication {
  kind: FiledKind;
  caseNumber: number;
  requestorId: string;
  requestorEmail: string | null;
  subscriptionId: string;
  clientReference: string;
  examinationRequested: boolean;
  stage: Stage;
  nextStepOn: string | null;
}

/** The filer and the simulator's first stage of a new case. */
export async function insertApplication(tx: pg.PoolClient, a: FiledApplication, at: Date): Promise<void> {
  await tx.query(
    `INSERT INTO iponz_applications (kind, case_number, requestor_id, requestor_email, subscription_id,
       client_reference, examination_requested, filed_at, stage, next_step_on)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      a.kind,
      a.caseNumber,
      a.requestorId,
      a.requestorEmail,
      a.subscriptionId,
      a.clientReference,
      a.examinationRequested,
      at,
      a.stage,
      a.nextStepOn,
    ],
  );
}

interface ApplicationRow {
  kind: FiledKind;
  case_number: number;
  requestor_id: string;
  requestor_email: string | null;
  subscription_id: string;
  client_reference: string;
  examination_requested: boolean;
  stage: Stage;
  next_step_on: string | null;
  title: string;
}

export type ApplicationWithTitle = FiledApplication & { title: string };

const applicationOf = (r: ApplicationRow): ApplicationWithTitle => ({
  kind: r.kind,
  caseNumber: r.case_number,
  requestorId: r.requestor_id,
  requestorEmail: r.requestor_email,
  subscriptionId: r.subscription_id,
  clientReference: r.client_reference,
  examinationRequested: r.examination_requested,
  stage: r.stage,
  nextStepOn: r.next_step_on,
  title: r.title,
});

const APPLICATION_COLUMNS = `a.kind, a.case_number, a.requestor_id, a.requestor_email, a.subscription_id,
  a.client_reference, a.examination_requested, a.stage, a.next_step_on::text, c.title`;

/** Applications with a step due on or before `today`, oldest first. */
export async function dueApplications(
  db: Queryable,
  today: string,
  limit: number,
): Promise<ApplicationWithTitle[]> {
  const { rows } = await db.query<ApplicationRow>(
    `SELECT ${APPLICATION_COLUMNS} FROM iponz_applications a JOIN iponz_cases c USING (kind, case_number)
     WHERE a.next_step_on <= $1 ORDER BY a.next_step_on, a.kind, a.case_number LIMIT $2`,
    [today, limit],
  );
  return rows.map(applicationOf);
}

/** One application, locked (FOR UPDATE) in the caller's transaction; undefined when not filed by API. */
export async function lockApplication(
  tx: pg.PoolClient,
  kind: FiledKind,
  caseNumber: number,
): Promise<ApplicationWithTitle | undefined> {
  const { rows } = await tx.query<ApplicationRow>(
    `SELECT ${APPLICATION_COLUMNS} FROM iponz_applications a JOIN iponz_cases c USING (kind, case_number)
     WHERE a.kind = $1 AND a.case_number = $2 FOR UPDATE OF a, c`,
    [kind, caseNumber],
  );
  return rows[0] ? applicationOf(rows[0]) : undefined;
}

/** Moves the simulator's stage. */
export async function setStage(
  tx: pg.PoolClient,
  state: ApplicationState & { caseNumber: number },
): Promise<void> {
  await tx.query(
    'UPDATE iponz_applications SET stage = $3, next_step_on = $4 WHERE kind = $1 AND case_number = $2',
    [state.kind, state.caseNumber, state.stage, state.nextStepOn],
  );
}

/** A status change of a case: status (and registration) date, history row, version, notice. */
export async function changeStatus(
  tx: pg.PoolClient,
  kind: FiledKind,
  caseNumber: number,
  change: CaseChange,
  at: Date,
): Promise<void> {
  await tx.query(
    `UPDATE iponz_cases SET status = $3, status_date = $4, registration_date = coalesce($5, registration_date),
       version = version + 1, updated_at = $6, updated_on = $7
     WHERE kind = $1 AND case_number = $2`,
    [
      kind,
      caseNumber,
      change.status,
      change.statusDate,
      change.registrationDate ?? null,
      at,
      nzDate(at.getTime()),
    ],
  );
  await tx.query(
    `INSERT INTO iponz_status_history (kind, case_number, seq, status, status_date, recorded_at)
     SELECT $1, $2, coalesce(max(seq), 0) + 1, $3, $4, $5 FROM iponz_status_history
     WHERE kind = $1 AND case_number = $2`,
    [kind, caseNumber, change.status, change.statusDate, at],
  );
  await noticeCaseChange(tx, kind, caseNumber);
}
