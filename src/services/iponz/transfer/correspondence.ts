/**
 * A filed case's correspondence as a transfer line (`record: "correspondence"`): who filed it and where
 * the examination stands (the filing's record), its tasks and its discussions under the names the
 * correspondence operations answer them with (`getTaskContent`, `getDiscussionContent`), their
 * documents by `ObjectIdentifier` (documents of the case's line, whose `Documents` list them). The
 * discussions' emails are not part of it: an import sends none.
 */
import { type Static, Type } from '@sinclair/typebox';
import { isDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import type { FiledKind, Stage } from '../domain/examination.ts';
import { parseCaseNumber } from '../domain/identifiers.ts';

const Closed = { additionalProperties: false } as const;
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const Ids = Type.Array(Type.String({ pattern: '^[0-9a-f]{16}$' }));
const Id = Type.String({ pattern: '^[1-9][0-9]{0,17}$' });

export const CASE_TYPES = { patent: 'Patent', trademark: 'Trade Mark' } as const;
const STAGES: readonly Stage[] = [
  'awaiting-request',
  'examination',
  'report-issued',
  'accepted',
  'registered',
  'abandoned',
];

const TaskLine = Type.Object(
  {
    TaskIdentifier: Id,
    TaskType: Type.String(),
    TaskTitle: Type.String(),
    TaskStatus: Type.Union([Type.Literal('open'), Type.Literal('completed'), Type.Literal('expired')]),
    TaskCreationDate: Type.String(),
    TaskDueDate: Type.String(),
    TaskDescription: Type.String(),
    ResponseText: Nullable(Type.String()),
    completedAt: Nullable(Type.String()),
    ObjectIdentifiers: Ids,
  },
  Closed,
);

const DiscussionLine = Type.Object(
  {
    DiscussionIdentifier: Id,
    Subject: Type.String(),
    Status: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
    DiscussionCreationDate: Type.String(),
    createdAt: Type.String(),
    TaskIdentifier: Nullable(Id),
    Body: Type.String(),
    recipientEmail: Nullable(Type.String()),
    ObjectIdentifiers: Ids,
  },
  Closed,
);

export const CorrespondenceLine = Type.Object(
  {
    record: Type.Literal('correspondence'),
    AssociatedCaseType: Type.Union([Type.Literal('Patent'), Type.Literal('Trade Mark')]),
    AssociatedCaseNumber: Type.String(),
    AssociatedCaseClientReference: Type.String(),
    filing: Type.Object(
      {
        RequestorIdentifier: Type.String(),
        requestorEmail: Nullable(Type.String()),
        subscriptionId: Type.String(),
        examinationRequested: Type.Boolean(),
        filedAt: Type.String(),
        stage: Type.Union(STAGES.map((s) => Type.Literal(s))),
        nextStepOn: Nullable(Type.String()),
      },
      Closed,
    ),
    tasks: Type.Array(TaskLine),
    discussions: Type.Array(DiscussionLine),
  },
  Closed,
);
export type CorrespondenceLineValue = Static<typeof CorrespondenceLine>;

export interface TaskRow {
  taskId: number;
  taskType: string;
  title: string;
  description: string;
  createdOn: string;
  dueOn: string;
  status: 'open' | 'completed' | 'expired';
  responseText: string | null;
  completedAt: Date | null;
  documents: string[];
}

export interface DiscussionRow {
  discussionId: number;
  taskId: number | null;
  subject: string;
  body: string;
  status: 'open' | 'closed';
  createdOn: string;
  createdAt: Date;
  recipientEmail: string | null;
  documents: string[];
}

/** A filed case's correspondence as the store reads and writes it. */
export interface CorrespondenceRecord {
  kind: FiledKind;
  caseNumber: number;
  clientReference: string;
  requestorId: string;
  requestorEmail: string | null;
  subscriptionId: string;
  examinationRequested: boolean;
  filedAt: Date;
  stage: Stage;
  nextStepOn: string | null;
  tasks: TaskRow[];
  discussions: DiscussionRow[];
}

function instant(text: string, field: string): Date {
  const at = new Date(text);
  if (Number.isNaN(at.getTime()) || at.toISOString() !== text)
    throw new RuleError(field, 'must be a UTC date-time, e.g. 2024-03-01T09:30:00.000Z');
  return at;
}

function date(text: string, field: string): string {
  if (!isDate(text)) throw new RuleError(field, 'must be a date, YYYY-MM-DD');
  return text;
}

function text(value: string, field: string, max: number): string {
  if (value.trim() === '') throw new RuleError(field, 'is required');
  if (value.length > max) throw new RuleError(field, `must be at most ${max} characters`);
  return value;
}

const kindOf = (type: 'Patent' | 'Trade Mark'): FiledKind => (type === 'Patent' ? 'patent' : 'trademark');

/** The line's record, checked; RuleError naming the field. */
export function correspondenceOf(line: CorrespondenceLineValue): CorrespondenceRecord {
  const kind = kindOf(line.AssociatedCaseType);
  const caseNumber = parseCaseNumber(kind, line.AssociatedCaseNumber, 'AssociatedCaseNumber');
  const f = line.filing;
  const tasks = line.tasks.map((t, i): TaskRow => {
    const at = `tasks.${i}`;
    const createdOn = date(t.TaskCreationDate, `${at}.TaskCreationDate`);
    const dueOn = date(t.TaskDueDate, `${at}.TaskDueDate`);
    if (dueOn < createdOn) throw new RuleError(`${at}.TaskDueDate`, 'must not be before TaskCreationDate');
    if ((t.TaskStatus === 'completed') !== (t.completedAt !== null))
      throw new RuleError(`${at}.completedAt`, 'is given exactly when TaskStatus is completed');
    return {
      taskId: Number(t.TaskIdentifier),
      taskType: text(t.TaskType, `${at}.TaskType`, 200),
      title: text(t.TaskTitle, `${at}.TaskTitle`, 500),
      description: text(t.TaskDescription, `${at}.TaskDescription`, 10_000),
      createdOn,
      dueOn,
      status: t.TaskStatus,
      responseText: t.ResponseText,
      completedAt: t.completedAt === null ? null : instant(t.completedAt, `${at}.completedAt`),
      documents: t.ObjectIdentifiers,
    };
  });
  const taskIds = new Set<number>();
  for (const [i, t] of tasks.entries()) {
    if (taskIds.has(t.taskId)) throw new RuleError(`tasks.${i}.TaskIdentifier`, 'is given twice');
    taskIds.add(t.taskId);
  }
  const discussions = line.discussions.map((d, i): DiscussionRow => {
    const at = `discussions.${i}`;
    const taskId = d.TaskIdentifier === null ? null : Number(d.TaskIdentifier);
    if (taskId !== null && !taskIds.has(taskId))
      throw new RuleError(`${at}.TaskIdentifier`, 'must be one of the tasks');
    return {
      discussionId: Number(d.DiscussionIdentifier),
      taskId,
      subject: text(d.Subject, `${at}.Subject`, 500),
      body: text(d.Body, `${at}.Body`, 20_000),
      status: d.Status,
      createdOn: date(d.DiscussionCreationDate, `${at}.DiscussionCreationDate`),
      createdAt: instant(d.createdAt, `${at}.createdAt`),
      recipientEmail: d.recipientEmail,
      documents: d.ObjectIdentifiers,
    };
  });
  const discussionIds = new Set<number>();
  for (const [i, d] of discussions.entries()) {
    if (discussionIds.has(d.discussionId))
      throw new RuleError(`discussions.${i}.DiscussionIdentifier`, 'is given twice');
    discussionIds.add(d.discussionId);
  }
  const linked = new Set<string>();
  for (const [where, list] of [
    ...tasks.map((t, i) => [`tasks.${i}`, t.documents] as const),
    ...discussions.map((d, i) => [`discussions.${i}`, d.documents] as const),
  ])
    for (const [j, id] of list.entries()) {
      if (linked.has(id)) throw new RuleError(`${where}.ObjectIdentifiers.${j}`, 'is linked twice');
      linked.add(id);
    }
  const byId =
    <T>(key: (item: T) => number) =>
    (a: T, b: T) =>
      key(a) - key(b);
  tasks.sort(byId((t) => t.taskId));
  discussions.sort(byId((d) => d.discussionId));
  for (const item of [...tasks, ...discussions]) item.documents.sort();
  return {
    kind,
    caseNumber,
    clientReference: text(line.AssociatedCaseClientReference, 'AssociatedCaseClientReference', 255),
    requestorId: text(f.RequestorIdentifier, 'filing.RequestorIdentifier', 200),
    requestorEmail: f.requestorEmail,
    subscriptionId: text(f.subscriptionId, 'filing.subscriptionId', 200),
    examinationRequested: f.examinationRequested,
    filedAt: instant(f.filedAt, 'filing.filedAt'),
    stage: f.stage,
    nextStepOn: f.nextStepOn === null ? null : date(f.nextStepOn, 'filing.nextStepOn'),
    tasks,
    discussions,
  };
}

/** A filed case's correspondence as its line. */
export function correspondenceLine(c: CorrespondenceRecord): CorrespondenceLineValue {
  return {
    record: 'correspondence',
    AssociatedCaseType: CASE_TYPES[c.kind],
    AssociatedCaseNumber: String(c.caseNumber),
    AssociatedCaseClientReference: c.clientReference,
    filing: {
      RequestorIdentifier: c.requestorId,
      requestorEmail: c.requestorEmail,
      subscriptionId: c.subscriptionId,
      examinationRequested: c.examinationRequested,
      filedAt: c.filedAt.toISOString(),
      stage: c.stage,
      nextStepOn: c.nextStepOn,
    },
    tasks: c.tasks.map((t) => ({
      TaskIdentifier: String(t.taskId),
      TaskType: t.taskType,
      TaskTitle: t.title,
      TaskStatus: t.status,
      TaskCreationDate: t.createdOn,
      TaskDueDate: t.dueOn,
      TaskDescription: t.description,
      ResponseText: t.responseText,
      completedAt: t.completedAt === null ? null : t.completedAt.toISOString(),
      ObjectIdentifiers: t.documents,
    })),
    discussions: c.discussions.map((d) => ({
      DiscussionIdentifier: String(d.discussionId),
      Subject: d.subject,
      Status: d.status,
      DiscussionCreationDate: d.createdOn,
      createdAt: d.createdAt.toISOString(),
      TaskIdentifier: d.taskId === null ? null : String(d.taskId),
      Body: d.body,
      recipientEmail: d.recipientEmail,
      ObjectIdentifiers: d.documents,
    })),
  };
}
