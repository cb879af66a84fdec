/**
 * Correspondence: a registered user's tasks (the list, one task, the answer to one) and discussions (the
 * list, one discussion), answered by `POST /taskcorrespondence` and `POST /discussioncorrespondence`
 * (SOAP). Each takes the requestor whose items to show (`requestorShown`: the caller's own, or none);
 * the answer to a task, with its response documents, is one transaction, and in the sandbox the
 * examination simulator moves the case on (examination.ts).
 */
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { nzDate } from '../../../platform/calendar.ts';
import { withTransaction } from '../../../platform/db/pool.ts';
import type { DocumentStore } from '../../../platform/documents/store.ts';
import { RuleError } from '../../../platform/errors.ts';
import { documentStoreFor } from '../documents/location.ts';
import { checkDateRange, LIST_MAX, type ListFilter } from '../domain/correspondence.ts';
import { caseKey } from '../store/case-cache.ts';
import {
  type Discussion,
  findDiscussion,
  findTask,
  listDiscussions,
  listTasks,
  type Task,
} from '../store/correspondence.ts';
import { type Attachment, adoptAttachments, discardDocuments } from './attachments.ts';
import { answerTask } from './examination.ts';
import { type CaseCacheOption, caseWritten } from './support.ts';

/**
 * The requestor whose items a request shows: the caller's own when it names none or names them; a
 * `RequestorIdentifier` not the caller's has nothing to show (undefined), so the caller may not learn
 * whether another customer has any (domain/correspondence.ts).
 */
export const requestorShown = (userId: string, named: string | undefined): string | undefined =>
  named === undefined || named === userId ? userId : undefined;

const noTask = () => new RuleError('TaskIdentifier', 'names no task of this requestor');
const noDiscussion = () => new RuleError('DiscussionIdentifier', 'names no discussion of this requestor');

/** The requestor's tasks, narrowed by the filter (due dates `TaskDueDateFrom`, `TaskDueDateTo`). */
export async function listRequestorTasks(
  context: ServiceContext,
  input: { requestor: string | undefined; filter: ListFilter },
): Promise<Task[]> {
  checkDateRange(input.filter.from, input.filter.to, ['TaskDueDateFrom', 'TaskDueDateTo']);
  return input.requestor
    ? await listTasks(context.database.pool, input.requestor, input.filter, LIST_MAX)
    : [];
}

/** One task of the requestor's, or RuleError naming `TaskIdentifier`. */
export async function requestorTask(
  context: ServiceContext,
  input: { requestor: string | undefined; taskId: number },
): Promise<Task> {
  const task = input.requestor && (await findTask(context.database.pool, input.requestor, input.taskId));
  if (!task) throw noTask();
  return task;
}

export interface TaskAnswer {
  requestor: string | undefined;
  taskId: number;
  responseText: string | null;
  /** The response documents, staged: adopted under new document identifiers (one at least). */
  attachments: readonly Attachment[];
}

export interface TaskAnswerOptions extends CaseCacheOption {
  /** Where the documents go; the environment's folder by default. */
  documents?: DocumentStore | undefined;
}

/**
 * Answers an open task of the requestor's with response documents, in one transaction; the task as it
 * then stands, and the case's new status when the simulator moved it. RuleError (nothing written, the
 * adopted documents deleted) when a rule is broken.
 */
export async function answerRequestorTask(
  context: ServiceContext,
  input: TaskAnswer,
  options: TaskAnswerOptions = {},
): Promise<{ task: Task; caseStatus: string | undefined }> {
  const { requestor, taskId } = input;
  if (!requestor) throw noTask();
  if (input.attachments.length === 0)
    throw new RuleError('ResponseDocument', 'must hold at least one response document');
  const pool = context.database.pool;
  const documents = options.documents ?? documentStoreFor(context.database);
  const now = context.clock.now();
  const adopted = await adoptAttachments(documents, input.attachments, nzDate(now.getTime()));
  let echoed: Promise<void> | undefined;
  try {
    const outcome = await withTransaction(pool, async (tx) => {
      const task = await findTask(tx, requestor, taskId, true);
      if (!task) throw noTask();
      if (task.status !== 'open')
        throw new RuleError('TaskIdentifier', `names a task that is ${task.status}`);
      const change = await answerTask(
        tx,
        task,
        { responseText: input.responseText, documents: adopted },
        { simulate: context.environment === 'sandbox', now },
      );
      if (change) echoed = options.cases?.echo(caseKey(task.kind, task.caseNumber));
      return { task, change };
    });
    await caseWritten(options.cases, outcome.task.kind, outcome.task.caseNumber, echoed);
    const answered = await findTask(pool, requestor, taskId);
    return { task: answered!, caseStatus: outcome.change?.status };
  } catch (error) {
    await discardDocuments(documents, adopted);
    throw error;
  }
}

/** The requestor's discussions, narrowed by the filter (`DiscussionCreationDateFrom`, `…To`). */
export async function listRequestorDiscussions(
  context: ServiceContext,
  input: { requestor: string | undefined; filter: ListFilter },
): Promise<Discussion[]> {
  checkDateRange(input.filter.from, input.filter.to, [
    'DiscussionCreationDateFrom',
    'DiscussionCreationDateTo',
  ]);
  return input.requestor
    ? await listDiscussions(context.database.pool, input.requestor, input.filter, LIST_MAX)
    : [];
}

/** One discussion of the requestor's, or RuleError naming `DiscussionIdentifier`. */
export async function requestorDiscussion(
  context: ServiceContext,
  input: { requestor: string | undefined; discussionId: number },
): Promise<Discussion> {
  const found =
    input.requestor && (await findDiscussion(context.database.pool, input.requestor, input.discussionId));
  if (!found) throw noDiscussion();
  return found;
}
