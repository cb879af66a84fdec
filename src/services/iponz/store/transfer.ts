/**
 * The import's and export's reads and writes (transfer/): what the register keeps of cases beside their
 * published document, a replaced case's row and parts, published international applications, and filed
 * cases' correspondence — read a page at a time in identifier order, written set by set in the import's
 * transaction.
 */
import type pg from 'pg';
import { nzDate } from '../../../platform/calendar.ts';
import type { InternationalApplication } from '../domain/applications.ts';
import type { CaseKind } from '../domain/renewals.ts';
import type { CorrespondenceRecord } from '../transfer/correspondence.ts';
import { CASE_CHANNEL } from './case-cache.ts';
import { CASE_COLUMNS, caseRow, copyCaseParts, type LoadedCase } from './seed.ts';

type Queryable = pg.Pool | pg.PoolClient;

export interface CaseKey {
  kind: CaseKind;
  caseNumber: number;
}

/** What the register keeps of a case beside its document: mark nature and type, stored documents. */
export interface CaseKept {
  markNature: string | null;
  markType: string | null;
  /** The documents whose bytes are stored: identifier to size. */
  stored: Map<string, number>;
}

const keyOf = (kind: string, caseNumber: number) => `${kind}:${caseNumber}`;

export async function casesKept(db: Queryable, keys: readonly CaseKey[]): Promise<Map<string, CaseKept>> {
  const { rows } = await db.query<{
    kind: string;
    case_number: number;
    mark_nature: string | null;
    mark_type: string | null;
    stored: [string, number][];
  }>(
    `SELECT c.kind, c.case_number, c.mark_nature, c.mark_type,
       (SELECT coalesce(json_agg(json_build_array(d.document_identifier, d.stored_size)), '[]')
          FROM iponz_case_documents d
         WHERE d.kind = c.kind AND d.case_number = c.case_number AND d.stored_size IS NOT NULL) AS stored
     FROM iponz_cases c JOIN unnest($1::text[], $2::int[]) AS k(kind, case_number) USING (kind, case_number)`,
    [keys.map((k) => k.kind), keys.map((k) => k.caseNumber)],
  );
  return new Map(
    rows.map((r) => [
      keyOf(r.kind, r.case_number),
      { markNature: r.mark_nature, markType: r.mark_type, stored: new Map(r.stored) },
    ]),
  );
}

export const caseKey = (c: CaseKey): string => keyOf(c.kind, c.caseNumber);

/** A case's row set to `caseRow`'s values (`$1` and `$2`, its kind and number, find it). */
const UPDATE_CASE = `UPDATE iponz_cases SET ${CASE_COLUMNS.slice(2)
  .map((column, i) => `${column} = $${i + 3}`)
  .join(', ')} WHERE kind = $1 AND case_number = $2`;

/**
 * Replaces cases the register holds with these: the row (its version and last change as given), the
 * status history, parties and goods rewritten; documents the case no longer lists removed, the others
 * set as given (a document keeps its links to tasks and discussions).
 */
export async function replaceCases(tx: pg.PoolClient, cases: readonly LoadedCase[]): Promise<void> {
  if (cases.length === 0) return;
  for (const c of cases) {
    await tx.query(UPDATE_CASE, caseRow(c, c.updatedAt!.toISOString(), nzDate(c.updatedAt!.getTime())));
  }
  const kinds = cases.map((c) => c.kind);
  const numbers = cases.map((c) => c.caseNumber);
  for (const table of ['iponz_status_history', 'iponz_case_parties', 'iponz_goods_services'])
    await tx.query(
      `DELETE FROM ${table} t USING unnest($1::text[], $2::int[]) AS k(kind, case_number)
       WHERE t.kind = k.kind AND t.case_number = k.case_number`,
      [kinds, numbers],
    );
  const documents = cases.flatMap((c) =>
    c.documents.map((d) => ({ ...d, kind: c.kind, caseNumber: c.caseNumber })),
  );
  await tx.query(
    `DELETE FROM iponz_case_documents d USING unnest($1::text[], $2::int[]) AS k(kind, case_number)
     WHERE d.kind = k.kind AND d.case_number = k.case_number AND NOT d.document_identifier = ANY($3::text[])`,
    [kinds, numbers, documents.map((d) => d.documentIdentifier)],
  );
  await tx.query(
    `INSERT INTO iponz_case_documents (document_identifier, kind, case_number, document_name, object_format,
       created_on, stored_size)
     SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::date[], $7::bigint[])
     ON CONFLICT (document_identifier) DO UPDATE SET document_name = excluded.document_name,
       object_format = excluded.object_format, created_on = excluded.created_on,
       stored_size = excluded.stored_size`,
    [
      documents.map((d) => d.documentIdentifier),
      documents.map((d) => d.kind),
      documents.map((d) => d.caseNumber),
      documents.map((d) => d.documentName),
      documents.map((d) => d.objectFormat),
      documents.map((d) => d.createdOn),
      documents.map((d) => d.storedSize ?? null),
    ],
  );
  await copyCaseParts(tx, cases, ['history', 'parties', 'goods']);
}

/** Of these document identifiers, those a case other than the one named holds: identifier to its case. */
export async function documentHolders(db: Queryable, ids: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await db.query<{ document_identifier: string; kind: string; case_number: number }>(
    'SELECT document_identifier, kind, case_number FROM iponz_case_documents WHERE document_identifier = ANY($1::text[])',
    [ids],
  );
  return new Map(rows.map((r) => [r.document_identifier, keyOf(r.kind, r.case_number)]));
}

/** Tells every process's case cache to forget every case (delivered at commit). */
export async function forgetCachedCases(tx: pg.PoolClient): Promise<void> {
  await tx.query('SELECT pg_notify($1, $2)', [CASE_CHANNEL, '*']);
}

// --- International applications ----------------------------------------------------------------------

const APPLICATION_COLUMNS = `international_application_number AS "internationalApplicationNumber",
  international_publication_number AS "internationalPublicationNumber",
  international_filing_date::text AS "internationalFilingDate", priority_date::text AS "priorityDate",
  priority_country_code AS "priorityCountryCode", title`;

export async function applicationsAfter(
  db: Queryable,
  after: string,
  limit: number,
): Promise<InternationalApplication[]> {
  const { rows } = await db.query<InternationalApplication>(
    `SELECT ${APPLICATION_COLUMNS} FROM iponz_international_applications
     WHERE international_application_number > $1 ORDER BY international_application_number LIMIT $2`,
    [after, limit],
  );
  return rows;
}

export async function applicationsNamed(
  db: Queryable,
  numbers: readonly string[],
): Promise<InternationalApplication[]> {
  const { rows } = await db.query<InternationalApplication>(
    `SELECT ${APPLICATION_COLUMNS} FROM iponz_international_applications
     WHERE international_application_number = ANY($1::text[])`,
    [numbers],
  );
  return rows;
}

/** Inserts or replaces published international applications. */
export async function putApplications(
  tx: pg.PoolClient,
  applications: readonly InternationalApplication[],
): Promise<void> {
  if (applications.length === 0) return;
  await tx.query(
    `INSERT INTO iponz_international_applications (international_application_number,
       international_publication_number, international_filing_date, priority_date, priority_country_code, title)
     SELECT * FROM unnest($1::text[], $2::text[], $3::date[], $4::date[], $5::text[], $6::text[])
     ON CONFLICT (international_application_number) DO UPDATE SET
       international_publication_number = excluded.international_publication_number,
       international_filing_date = excluded.international_filing_date, priority_date = excluded.priority_date,
       priority_country_code = excluded.priority_country_code, title = excluded.title`,
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

// --- Correspondence -------------------------------------------------------------------------------------

const DOCUMENT_IDS = (column: 'task_id' | 'discussion_id', id: string) =>
  `(SELECT coalesce(json_agg(l.document_identifier ORDER BY l.document_identifier), '[]')
      FROM iponz_correspondence_documents l WHERE l.${column} = ${id})`;

const CORRESPONDENCE = `SELECT a.kind, a.case_number AS "caseNumber", a.client_reference AS "clientReference",
  a.requestor_id AS "requestorId", a.requestor_email AS "requestorEmail", a.subscription_id AS "subscriptionId",
  a.examination_requested AS "examinationRequested", a.filed_at AS "filedAt", a.stage,
  a.next_step_on::text AS "nextStepOn",
  (SELECT coalesce(json_agg(json_build_object('taskId', t.task_id, 'taskType', t.task_type, 'title', t.title,
      'description', t.description, 'createdOn', t.created_on, 'dueOn', t.due_on, 'status', t.status,
      'responseText', t.response_text, 'completedAt', t.completed_at,
      'documents', ${DOCUMENT_IDS('task_id', 't.task_id')}) ORDER BY t.task_id), '[]')
     FROM iponz_tasks t WHERE t.kind = a.kind AND t.case_number = a.case_number) AS tasks,
  (SELECT coalesce(json_agg(json_build_object('discussionId', s.discussion_id, 'taskId', s.task_id,
      'subject', s.subject, 'body', s.body, 'status', s.status, 'createdOn', s.created_on,
      'createdAt', s.created_at, 'recipientEmail', s.recipient_email,
      'documents', ${DOCUMENT_IDS('discussion_id', 's.discussion_id')}) ORDER BY s.discussion_id), '[]')
     FROM iponz_discussions s WHERE s.kind = a.kind AND s.case_number = a.case_number) AS discussions
  FROM iponz_applications a`;

type CorrespondenceRow = Omit<CorrespondenceRecord, 'tasks' | 'discussions'> & {
  tasks: (Omit<CorrespondenceRecord['tasks'][number], 'completedAt'> & { completedAt: string | null })[];
  discussions: (Omit<CorrespondenceRecord['discussions'][number], 'createdAt'> & { createdAt: string })[];
};

const correspondenceOfRow = (row: CorrespondenceRow): CorrespondenceRecord => ({
  ...row,
  tasks: row.tasks.map((t) => ({
    ...t,
    taskId: Number(t.taskId),
    completedAt: t.completedAt === null ? null : new Date(t.completedAt),
  })),
  discussions: row.discussions.map((d) => ({
    ...d,
    discussionId: Number(d.discussionId),
    taskId: d.taskId === null ? null : Number(d.taskId),
    createdAt: new Date(d.createdAt),
  })),
});

export async function correspondenceAfter(
  db: Queryable,
  after: { kind: string; caseNumber: number },
  limit: number,
): Promise<CorrespondenceRecord[]> {
  const { rows } = await db.query<CorrespondenceRow>(
    `${CORRESPONDENCE} WHERE (a.kind, a.case_number) > ($1, $2) ORDER BY a.kind, a.case_number LIMIT $3`,
    [after.kind, after.caseNumber, limit],
  );
  return rows.map(correspondenceOfRow);
}

export async function correspondenceNamed(
  db: Queryable,
  keys: readonly CaseKey[],
): Promise<CorrespondenceRecord[]> {
  const { rows } = await db.query<CorrespondenceRow>(
    `${CORRESPONDENCE} JOIN unnest($1::text[], $2::int[]) AS k(kind, case_number) USING (kind, case_number)`,
    [keys.map((k) => k.kind), keys.map((k) => k.caseNumber)],
  );
  return rows.map(correspondenceOfRow);
}

/** Of these task and discussion ids, those another case holds: `task:<id>` / `discussion:<id>` to its case. */
export async function correspondenceHolders(
  db: Queryable,
  taskIds: readonly number[],
  discussionIds: readonly number[],
): Promise<Map<string, string>> {
  const { rows } = await db.query<{ id: string; holder: string }>(
    `SELECT 'task:' || task_id AS id, kind || ':' || case_number AS holder FROM iponz_tasks
       WHERE task_id = ANY($1::bigint[])
     UNION ALL
     SELECT 'discussion:' || discussion_id, kind || ':' || case_number FROM iponz_discussions
       WHERE discussion_id = ANY($2::bigint[])`,
    [taskIds, discussionIds],
  );
  return new Map(rows.map((r) => [r.id, r.holder]));
}

/**
 * Sets filed cases' correspondence to these: the filing's record, tasks and discussions by identifier
 * (those the case no longer has removed), their documents' links. Discussions are marked mailed: an
 * import sends no email. The identifier sequences move past the imported identifiers.
 */
export async function putCorrespondence(
  tx: pg.PoolClient,
  records: readonly CorrespondenceRecord[],
): Promise<void> {
  if (records.length === 0) return;
  const kinds = records.map((r) => r.kind);
  const numbers = records.map((r) => r.caseNumber);
  await tx.query(
    `INSERT INTO iponz_applications (kind, case_number, requestor_id, requestor_email, subscription_id,
       client_reference, examination_requested, filed_at, stage, next_step_on)
     SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::boolean[],
       $8::timestamptz[], $9::text[], $10::date[])
     ON CONFLICT (kind, case_number) DO UPDATE SET requestor_id = excluded.requestor_id,
       requestor_email = excluded.requestor_email, subscription_id = excluded.subscription_id,
       client_reference = excluded.client_reference, examination_requested = excluded.examination_requested,
       filed_at = excluded.filed_at, stage = excluded.stage, next_step_on = excluded.next_step_on`,
    [
      kinds,
      numbers,
      records.map((r) => r.requestorId),
      records.map((r) => r.requestorEmail),
      records.map((r) => r.subscriptionId),
      records.map((r) => r.clientReference),
      records.map((r) => r.examinationRequested),
      records.map((r) => r.filedAt),
      records.map((r) => r.stage),
      records.map((r) => r.nextStepOn),
    ],
  );
  const tasks = records.flatMap((r) => r.tasks.map((t) => ({ ...t, r })));
  const discussions = records.flatMap((r) => r.discussions.map((d) => ({ ...d, r })));
  // What the cases no longer have, and every link, go first (discussions before the tasks they name).
  await tx.query(
    `DELETE FROM iponz_correspondence_documents l USING iponz_tasks t, unnest($1::text[], $2::int[]) AS k(kind, case_number)
     WHERE l.task_id = t.task_id AND t.kind = k.kind AND t.case_number = k.case_number`,
    [kinds, numbers],
  );
  await tx.query(
    `DELETE FROM iponz_correspondence_documents l USING iponz_discussions s, unnest($1::text[], $2::int[]) AS k(kind, case_number)
     WHERE l.discussion_id = s.discussion_id AND s.kind = k.kind AND s.case_number = k.case_number`,
    [kinds, numbers],
  );
  await tx.query(
    `DELETE FROM iponz_discussions s USING unnest($1::text[], $2::int[]) AS k(kind, case_number)
     WHERE s.kind = k.kind AND s.case_number = k.case_number AND NOT s.discussion_id = ANY($3::bigint[])`,
    [kinds, numbers, discussions.map((d) => d.discussionId)],
  );
  await tx.query(`UPDATE iponz_discussions SET task_id = NULL WHERE discussion_id = ANY($1::bigint[])`, [
    discussions.map((d) => d.discussionId),
  ]);
  await tx.query(
    `DELETE FROM iponz_tasks t USING unnest($1::text[], $2::int[]) AS k(kind, case_number)
     WHERE t.kind = k.kind AND t.case_number = k.case_number AND NOT t.task_id = ANY($3::bigint[])`,
    [kinds, numbers, tasks.map((t) => t.taskId)],
  );
  await tx.query(
    `INSERT INTO iponz_tasks (task_id, kind, case_number, requestor_id, task_type, title, description,
       created_on, due_on, status, response_text, completed_at)
     OVERRIDING SYSTEM VALUE
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[],
       $8::date[], $9::date[], $10::text[], $11::text[], $12::timestamptz[])
     ON CONFLICT (task_id) DO UPDATE SET requestor_id = excluded.requestor_id, task_type = excluded.task_type,
       title = excluded.title, description = excluded.description, created_on = excluded.created_on,
       due_on = excluded.due_on, status = excluded.status, response_text = excluded.response_text,
       completed_at = excluded.completed_at`,
    [
      tasks.map((t) => t.taskId),
      tasks.map((t) => t.r.kind),
      tasks.map((t) => t.r.caseNumber),
      tasks.map((t) => t.r.requestorId),
      tasks.map((t) => t.taskType),
      tasks.map((t) => t.title),
      tasks.map((t) => t.description),
      tasks.map((t) => t.createdOn),
      tasks.map((t) => t.dueOn),
      tasks.map((t) => t.status),
      tasks.map((t) => t.responseText),
      tasks.map((t) => t.completedAt),
    ],
  );
  await tx.query(
    `INSERT INTO iponz_discussions (discussion_id, kind, case_number, requestor_id, task_id, subject, body,
       status, created_on, created_at, recipient_email, mailed_at)
     OVERRIDING SYSTEM VALUE
     SELECT d.*, d.created_at FROM unnest($1::bigint[], $2::text[], $3::int[], $4::text[], $5::bigint[],
       $6::text[], $7::text[], $8::text[], $9::date[], $10::timestamptz[], $11::text[])
       AS d(discussion_id, kind, case_number, requestor_id, task_id, subject, body, status, created_on,
            created_at, recipient_email)
     ON CONFLICT (discussion_id) DO UPDATE SET requestor_id = excluded.requestor_id, task_id = excluded.task_id,
       subject = excluded.subject, body = excluded.body, status = excluded.status,
       created_on = excluded.created_on, created_at = excluded.created_at,
       recipient_email = excluded.recipient_email`,
    [
      discussions.map((d) => d.discussionId),
      discussions.map((d) => d.r.kind),
      discussions.map((d) => d.r.caseNumber),
      discussions.map((d) => d.r.requestorId),
      discussions.map((d) => d.taskId),
      discussions.map((d) => d.subject),
      discussions.map((d) => d.body),
      discussions.map((d) => d.status),
      discussions.map((d) => d.createdOn),
      discussions.map((d) => d.createdAt),
      discussions.map((d) => d.recipientEmail),
    ],
  );
  const links = [
    ...tasks.flatMap((t) =>
      t.documents.map((id) => ({ id, task: t.taskId as number | null, discussion: null })),
    ),
    ...discussions.flatMap((d) =>
      d.documents.map((id) => ({ id, task: null, discussion: d.discussionId as number | null })),
    ),
  ];
  await tx.query(
    `INSERT INTO iponz_correspondence_documents (document_identifier, task_id, discussion_id)
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[])`,
    [links.map((l) => l.id), links.map((l) => l.task), links.map((l) => l.discussion)],
  );
  await tx.query(
    `SELECT setval(format('%I.%I', s.schemaname, s.sequencename), m.top)
     FROM pg_sequences s
     JOIN (SELECT 'iponz_tasks_task_id_seq' AS name, max(task_id) AS top FROM iponz_tasks
           UNION ALL SELECT 'iponz_discussions_discussion_id_seq', max(discussion_id) FROM iponz_discussions) m
       ON m.name = s.sequencename
     WHERE m.top >= coalesce(s.last_value + 1, s.start_value)`,
  );
}

/** The keys of these cases that the register holds. */
export async function heldCases(db: Queryable, keys: readonly CaseKey[]): Promise<Set<string>> {
  const { rows } = await db.query<{ kind: string; case_number: number }>(
    `SELECT c.kind, c.case_number FROM iponz_cases c
     JOIN unnest($1::text[], $2::int[]) AS k(kind, case_number) USING (kind, case_number)`,
    [keys.map((k) => k.kind), keys.map((k) => k.caseNumber)],
  );
  return new Set(rows.map((r) => keyOf(r.kind, r.case_number)));
}
