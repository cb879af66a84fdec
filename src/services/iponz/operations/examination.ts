/**
 * The examination simulator's transitions (sandbox), each in one transaction with the discussion that
 * records it: the examination report (a task and an open discussion carrying the report document), the
 * abandonment of an unanswered report, the registration or grant after the opposition period, and the
 * applicant's answer (`answerTask`, in the transaction of the correspondence operation
 * `answerRequestorTask`, SOAP `updateTask`). The jobs run the steps on the sandbox clock (jobs/index.ts);
 * the operations answer a task and make document identifiers with the same functions, so neither reaches
 * into the other. The rules and numbers of days are domain/examination.ts's; the statements are the
 * store's.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { nzDate } from '../../../platform/calendar.ts';
import { withTransaction } from '../../../platform/db/pool.ts';
import { reportDiscussion, statusDiscussion } from '../domain/correspondence.ts';
import {
  answerReport,
  type CaseChange,
  dueStep,
  type FiledKind,
  REPORT_TASK_TYPE,
} from '../domain/examination.ts';
import { documentIdentifierFrom } from '../domain/identifiers.ts';
import type { CaseDocument } from '../domain/model.ts';
import {
  type ApplicationWithTitle,
  changeStatus,
  dueApplications,
  type FiledDocument,
  lockApplication,
  setStage,
} from '../store/applications.ts';
import {
  attachDocument,
  closeTask,
  insertDiscussion,
  insertTask,
  openTaskOf,
} from '../store/correspondence.ts';

const BATCH = 200;

/** A new document identifier (`09` and 14 random hex digits). */
export const newDocumentIdentifier = (): string => documentIdentifierFrom(randomBytes(7));

const titleOf = (a: ApplicationWithTitle) => ({
  kind: a.kind,
  caseNumber: a.caseNumber,
  title: a.title,
  clientReference: a.clientReference,
});

/**
 * Runs every step due on or before the clock's New Zealand date, each on its own date, until none is
 * left. Resolves to the number of steps taken.
 */
export async function runDueSteps(pool: pg.Pool, now: Date): Promise<number> {
  const today = nzDate(now.getTime());
  let steps = 0;
  for (;;) {
    const due = await dueApplications(pool, today, BATCH);
    if (due.length === 0) return steps;
    for (const application of due)
      if (await stepOne(pool, application.kind, application.caseNumber, today, now)) steps++;
  }
}

/** Takes the one step due for a case (locked; another process may have taken it already). */
async function stepOne(
  pool: pg.Pool,
  kind: FiledKind,
  caseNumber: number,
  today: string,
  now: Date,
): Promise<boolean> {
  return withTransaction(pool, async (tx) => {
    const application = await lockApplication(tx, kind, caseNumber);
    if (!application) return false;
    const step = dueStep(application, today);
    if (!step) return false;
    const discussion = (
      text: { subject: string; body: string; status: 'open' | 'closed' },
      taskId: number | null,
    ) =>
      insertDiscussion(
        tx,
        {
          kind,
          caseNumber,
          requestorId: application.requestorId,
          recipientEmail: application.requestorEmail,
          taskId,
          ...text,
          createdOn: step.on,
        },
        now,
      );
    if (step.step === 'issue-report') {
      const taskId = await insertTask(tx, {
        kind,
        caseNumber,
        requestorId: application.requestorId,
        taskType: REPORT_TASK_TYPE,
        title: `${REPORT_TASK_TYPE}: application ${caseNumber}`,
        description: `Answer the examination report on application ${caseNumber} with your response documents by ${step.taskDueOn}.`,
        createdOn: step.on,
        dueOn: step.taskDueOn,
      });
      const discussionId = await discussion(reportDiscussion(titleOf(application), step.taskDueOn), taskId);
      const report: CaseDocument = {
        documentIdentifier: newDocumentIdentifier(),
        documentName: `Examination report ${caseNumber}.pdf`,
        objectFormat: 'pdf',
        createdOn: step.on,
      };
      await attachDocument(tx, kind, caseNumber, report, { discussionId });
    } else {
      if (step.step === 'abandon') {
        const taskId = await openTaskOf(tx, kind, caseNumber);
        if (taskId !== undefined)
          await closeTask(tx, taskId, { status: 'expired', responseText: null, at: now });
      }
      await changeStatus(tx, kind, caseNumber, step.change, now);
      await discussion(statusDiscussion(titleOf(application), step.change), null);
    }
    await setStage(tx, { ...step.next, caseNumber });
    return true;
  });
}

/**
 * The applicant's answer to a task, in the caller's transaction (the task locked and theirs): the task
 * completed with its documents and text, its discussion closed, and, when the simulator runs (the
 * sandbox), the case Accepted with a discussion. RuleError when the report no longer waits.
 */
export async function answerTask(
  tx: pg.PoolClient,
  task: { taskId: number; kind: FiledKind; caseNumber: number },
  answer: { responseText: string | null; documents: FiledDocument[] },
  options: { simulate: boolean; now: Date },
): Promise<CaseChange | undefined> {
  const today = nzDate(options.now.getTime());
  const application = await lockApplication(tx, task.kind, task.caseNumber);
  let change: CaseChange | undefined;
  if (options.simulate && application) {
    const moved = answerReport(application, today);
    change = moved.change;
    await changeStatus(tx, task.kind, task.caseNumber, moved.change, options.now);
    await setStage(tx, { ...moved.next, caseNumber: task.caseNumber });
  }
  for (const document of answer.documents)
    await attachDocument(tx, task.kind, task.caseNumber, document, { taskId: task.taskId });
  await closeTask(tx, task.taskId, {
    status: 'completed',
    responseText: answer.responseText,
    at: options.now,
  });
  if (change && application)
    await insertDiscussion(
      tx,
      {
        kind: task.kind,
        caseNumber: task.caseNumber,
        requestorId: application.requestorId,
        recipientEmail: application.requestorEmail,
        taskId: null,
        ...statusDiscussion(titleOf(application), change),
        createdOn: today,
      },
      options.now,
    );
  return change;
}
