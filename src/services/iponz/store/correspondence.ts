/**
 * Tasks and discussions of cases, with their documents: written by the filing and the examination
 * simulator, listed and read by the correspondence operations (always for one requestor: a customer sees
 * only their own), and the discussions whose email is still to be sent.
 */
import type pg from 'pg';
import type { ListFilter } from '../domain/correspondence.ts';
import type { FiledKind } from '../domain/examination.ts';
import type { CaseDocument } from '../domain/model.ts';
import { type FiledDocument, insertDocument } from './applications.ts';

type Queryable = pg.Pool | pg.PoolClient;

export interface Task {
  taskId: number;
  kind: FiledKind;
  caseNumber: number;
  clientReference: string;
  taskType: string;
  title: string;
  description: string;
  createdOn: string;
  dueOn: string;
  status: 'open' | 'completed' | 'expired';
  responseText: string | null;
  documents: CaseDocument[];
}

export interface Discussion {
  discussionId: number;
  kind: FiledKind;
  caseNumber: number;
  clientReference: string;
  taskId: number | null;
  subject: string;
  body: string;
  status: 'open' | 'closed';
  createdOn: string;
  documents: CaseDocument[];
}

const DOCUMENTS = (
  column: 'task_id' | 'discussion_id',
  id: string,
) => `(SELECT coalesce(json_agg(json_build_object(
    'documentIdentifier', d.document_identifier, 'documentName', d.document_name,
    'objectFormat', d.object_format, 'createdOn', d.created_on) ORDER BY d.created_on, d.document_identifier), '[]')
  FROM iponz_correspondence_documents l JOIN iponz_case_documents d USING (document_identifier)
  WHERE l.${column} = ${id}) AS documents`;

const TASK_COLUMNS = `t.task_id::int AS "taskId", t.kind, t.case_number AS "caseNumber",
  a.client_reference AS "clientReference", t.task_type AS "taskType", t.title, t.description,
  t.created_on::text AS "createdOn", t.due_on::text AS "dueOn", t.status, t.response_text AS "responseText",
  ${DOCUMENTS('task_id', 't.task_id')}`;

const DISCUSSION_COLUMNS = `s.discussion_id::int AS "discussionId", s.kind, s.case_number AS "caseNumber",
  a.client_reference AS "clientReference", s.task_id::int AS "taskId", s.subject, s.body, s.status,
  s.created_on::text AS "createdOn", ${DOCUMENTS('discussion_id', 's.discussion_id')}`;

/** A new task; resolves to its id. */
export async function insertTask(
  tx: pg.PoolClient,
  task: {
    kind: FiledKind;
    caseNumber: number;
    requestorId: string;
    taskType: string;
    title: string;
    description: string;
    createdOn: string;
    dueOn: string;
  },
): Promise<number> {
  const { rows } = await tx.query<{ id: number }>(
    `INSERT INTO iponz_tasks (kind, case_number, requestor_id, task_type, title, description, created_on, due_on, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'open') RETURNING task_id::int AS id`,
    [
      task.kind,
      task.caseNumber,
      task.requestorId,
      task.taskType,
      task.title,
      task.description,
      task.createdOn,
      task.dueOn,
    ],
  );
  return rows[0]!.id;
}

/** A new discussion; resolves to its id. Its email is sent by the job (mailed_at stays NULL until then). */
export async function insertDiscussion(
  tx: pg.PoolClient,
  discussion: {
    kind: FiledKind;
    caseNumber: number;
    requestorId: string;
    recipientEmail: string | null;
    taskId: number | null;
    subject: string;
    body: string;
    status: 'open' | 'closed';
    createdOn: string;
  },
  at: Date,
): Promise<number> {
  const { rows } = await tx.query<{ id: number }>(
    `INSERT INTO iponz_discussions (kind, case_number, requestor_id, recipient_email, task_id, subject, body,
       status, created_on, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING discussion_id::int AS id`,
    [
      discussion.kind,
      discussion.caseNumber,
      discussion.requestorId,
      discussion.recipientEmail,
      discussion.taskId,
      discussion.subject,
      discussion.body,
      discussion.status,
      discussion.createdOn,
      at,
    ],
  );
  return rows[0]!.id;
}

/** A document of a case attached to a task (an answer) or a discussion (a report). */
export async function attachDocument(
  tx: pg.PoolClient,
  kind: FiledKind,
  caseNumber: number,
  document: FiledDocument,
  to: { taskId: number } | { discussionId: number },
): Promise<void> {
  await insertDocument(tx, kind, caseNumber, document);
  await tx.query(
    'INSERT INTO iponz_correspondence_documents (document_identifier, task_id, discussion_id) VALUES ($1, $2, $3)',
    [
      document.documentIdentifier,
      'taskId' in to ? to.taskId : null,
      'discussionId' in to ? to.discussionId : null,
    ],
  );
}

function filterSql(alias: string, dateColumn: string, filter: ListFilter, params: unknown[]): string {
  const where: string[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (filter.caseNumber !== undefined) add(`${alias}.case_number = ?`, filter.caseNumber);
  if (filter.clientReference !== undefined) add('a.client_reference = ?', filter.clientReference);
  if (filter.from !== undefined) add(`${alias}.${dateColumn} >= ?::date`, filter.from);
  if (filter.to !== undefined) add(`${alias}.${dateColumn} <= ?::date`, filter.to);
  if (filter.status !== undefined) add(`${alias}.status = ?`, filter.status);
  return where.map((w) => ` AND ${w}`).join('');
}

/** One requestor's tasks, by due date then id, at most `limit`. */
export async function listTasks(
  db: Queryable,
  requestorId: string,
  filter: ListFilter,
  limit: number,
): Promise<Task[]> {
  const params: unknown[] = [requestorId, limit];
  const { rows } = await db.query<Task>(
    `SELECT ${TASK_COLUMNS} FROM iponz_tasks t
     JOIN iponz_applications a ON a.kind = t.kind AND a.case_number = t.case_number
     WHERE t.requestor_id = $1${filterSql('t', 'due_on', filter, params)}
     ORDER BY t.due_on, t.task_id LIMIT $2`,
    params,
  );
  return rows;
}

/** One of the requestor's tasks (undefined when there is none of theirs); `lock`: FOR UPDATE. */
export async function findTask(
  db: Queryable,
  requestorId: string,
  taskId: number,
  lock = false,
): Promise<Task | undefined> {
  const { rows } = await db.query<Task>(
    `SELECT ${TASK_COLUMNS} FROM iponz_tasks t
     JOIN iponz_applications a ON a.kind = t.kind AND a.case_number = t.case_number
     WHERE t.requestor_id = $1 AND t.task_id = $2${lock ? ' FOR UPDATE OF t' : ''}`,
    [requestorId, taskId],
  );
  return rows[0];
}

/** Ends a task (answered or expired) and closes its discussions. */
export async function closeTask(
  tx: pg.PoolClient,
  taskId: number,
  outcome: { status: 'completed' | 'expired'; responseText: string | null; at: Date },
): Promise<void> {
  await tx.query(
    'UPDATE iponz_tasks SET status = $2, response_text = $3, completed_at = $4 WHERE task_id = $1',
    [taskId, outcome.status, outcome.responseText, outcome.at],
  );
  await tx.query(`UPDATE iponz_discussions SET status = 'closed' WHERE task_id = $1`, [taskId]);
}

/** The open task of a case, if any (the examination report waiting for an answer). */
export async function openTaskOf(
  tx: pg.PoolClient,
  kind: FiledKind,
  caseNumber: number,
): Promise<number | undefined> {
  const { rows } = await tx.query<{ id: number }>(
    `SELECT task_id::int AS id FROM iponz_tasks WHERE kind = $1 AND case_number = $2 AND status = 'open'
     ORDER BY task_id LIMIT 1`,
    [kind, caseNumber],
  );
  return rows[0]?.id;
}

/** One requestor's discussions, newest first, at most `limit`. */
export async function listDiscussions(
  db: Queryable,
  requestorId: string,
  filter: ListFilter,
  limit: number,
): Promise<Discussion[]> {
  const params: unknown[] = [requestorId, limit];
  const { rows } = await db.query<Discussion>(
    `SELECT ${DISCUSSION_COLUMNS} FROM iponz_discussions s
     JOIN iponz_applications a ON a.kind = s.kind AND a.case_number = s.case_number
     WHERE s.requestor_id = $1${filterSql('s', 'created_on', filter, params)}
     ORDER BY s.created_on DESC, s.discussion_id DESC LIMIT $2`,
    params,
  );
  return rows;
}

/** One of the requestor's discussions, or undefined. */
export async function findDiscussion(
  db: Queryable,
  requestorId: string,
  discussionId: number,
): Promise<Discussion | undefined> {
  const { rows } = await db.query<Discussion>(
    `SELECT ${DISCUSSION_COLUMNS} FROM iponz_discussions s
     JOIN iponz_applications a ON a.kind = s.kind AND a.case_number = s.case_number
     WHERE s.requestor_id = $1 AND s.discussion_id = $2`,
    [requestorId, discussionId],
  );
  return rows[0];
}

/**
 * Claims up to `limit` discussions whose email is still to be sent (marked sent in the same statement;
 * SKIP LOCKED, so processes share the work). The caller gives a claim back with `unclaimMail` when the
 * send fails.
 */
export async function claimUnmailed(
  db: Queryable,
  at: Date,
  limit: number,
): Promise<{ discussionId: number; caseNumber: number; to: string; subject: string; body: string }[]> {
  const { rows } = await db.query(
    `UPDATE iponz_discussions SET mailed_at = $1 WHERE discussion_id IN (
       SELECT discussion_id FROM iponz_discussions WHERE mailed_at IS NULL AND recipient_email IS NOT NULL
       ORDER BY discussion_id LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING discussion_id::int AS "discussionId", case_number AS "caseNumber", recipient_email AS "to",
       subject, body`,
    [at, limit],
  );
  return rows;
}

/** Gives back a claimed email that could not be sent. */
export async function unclaimMail(db: Queryable, discussionId: number): Promise<void> {
  await db.query('UPDATE iponz_discussions SET mailed_at = NULL WHERE discussion_id = $1', [discussionId]);
}
