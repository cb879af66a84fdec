/**
 * Correspondence as SOAP operations, chosen by SOAPAction: `POST /taskcorrespondence` (getTaskList,
 * getTaskContent, updateTask) and `POST /discussioncorrespondence` (getDiscussionList,
 * getDiscussionContent). Every operation acts for a registered user (a three-legged token); their user id
 * is the `RequestorIdentifier` (domain/correspondence.ts), and they see only their own tasks and
 * discussions. `updateTask` answers a task with response documents (streamed to the document store) in
 * one transaction. The request trees are mapped here; the work is operations/correspondence.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { documentStoreFor } from '../documents/location.ts';
import { type ListFilter, parseDiscussionStatus } from '../domain/correspondence.ts';
import type { Attachment } from '../operations/attachments.ts';
import {
  answerRequestorTask,
  listRequestorDiscussions,
  listRequestorTasks,
  requestorDiscussion,
  requestorShown,
  requestorTask,
} from '../operations/correspondence.ts';
import { registeredRequestor } from '../operations/requestor.ts';
import { type SoapInput, soapEndpoint } from '../soap/endpoint.ts';
import type { Tree } from '../soap/validator.ts';
import { type XmlTree, xmlElement } from '../soap/writer.ts';
import type { CaseCache } from '../store/case-cache.ts';
import type { Discussion, Task } from '../store/correspondence.ts';
import {
  ATTACHMENTS_MAX_BYTES,
  binaryOf,
  documentsTree,
  errorFields,
  NS,
  REFUSAL_FAULTS,
  textOf,
  treesOf,
} from './soap-answers.ts';

const CASE_TYPE = { patent: 'Patent', trademark: 'Trade Mark' } as const;

const taskSummary = (t: Task): XmlTree => ({
  TaskIdentifier: t.taskId,
  TaskType: t.taskType,
  TaskTitle: t.title,
  TaskStatus: t.status,
  TaskCreationDate: t.createdOn,
  TaskDueDate: t.dueOn,
  AssociatedCaseType: CASE_TYPE[t.kind],
  AssociatedCaseNumber: t.caseNumber,
  AssociatedCaseClientReference: t.clientReference,
});

const taskContent = (t: Task): XmlTree => ({
  ...taskSummary(t),
  TaskDescription: t.description,
  ResponseText: t.responseText ?? undefined,
  Documents: documentsTree(t.documents),
});

const discussionSummary = (d: Discussion): XmlTree => ({
  DiscussionIdentifier: d.discussionId,
  Subject: d.subject,
  Status: d.status,
  DiscussionCreationDate: d.createdOn,
  AssociatedCaseType: CASE_TYPE[d.kind],
  AssociatedCaseNumber: d.caseNumber,
  AssociatedCaseClientReference: d.clientReference,
  TaskIdentifier: d.taskId ?? undefined,
});

const discussionContent = (d: Discussion): XmlTree => ({
  ...discussionSummary(d),
  Body: d.body,
  Documents: documentsTree(d.documents),
});

const optionalNumber = (text: string | undefined): number | undefined =>
  text === undefined ? undefined : Number(text);

export async function correspondenceRoutes(
  app: FastifyInstance,
  context: ServiceContext,
  cases: CaseCache,
): Promise<void> {
  const documents = documentStoreFor(context.database);

  /**
   * Runs one operation for the registered caller: `work` gets the request and the requestor whose
   * items to show (undefined: a RequestorIdentifier not the caller's, which has nothing to show).
   */
  const operation =
    (
      answer: string,
      echoOf: (body: Tree) => XmlTree,
      work: (body: Tree, requestor: string | undefined, input: SoapInput) => Promise<XmlTree>,
    ) =>
    async (input: SoapInput): Promise<{ xml: string }> => {
      const { userId } = await registeredRequestor(context, input.request.caller, { email: false });
      const echo = echoOf(input.body);
      try {
        const requestor = requestorShown(userId, textOf(input.body, 'RequestorIdentifier'));
        return { xml: xmlElement(answer, NS, { ...echo, ...(await work(input.body, requestor, input)) }) };
      } catch (error) {
        return { xml: xmlElement(answer, NS, { ...echo, ...errorFields(error, input.request) }) };
      }
    };

  const taskEcho = (body: Tree): XmlTree => ({
    TransactionIdentifier: textOf(body, 'TransactionIdentifier') ?? '',
    TransactionCode: textOf(body, 'TransactionCode') ?? '',
    RequestorIdentifier: textOf(body, 'RequestorIdentifier') ?? '',
  });
  const discussionEcho = (body: Tree): XmlTree => ({
    TransactionIdentifier: textOf(body, 'TransactionIdentifier') ?? '',
    TransactionCode: textOf(body, 'TransactionCode') ?? '',
  });

  await soapEndpoint(app, {
    path: '/taskcorrespondence',
    absoluteUrl: context.absoluteUrl,
    summary: 'Task correspondence: the tasks of a registered user, and their answers',
    wsdl: 'taskcorrespondence.wsdl',
    xsds: ['task-correspondence.xsd'],
    namespace: NS,
    faults: REFUSAL_FAULTS,
    documents,
    operations: [
      {
        name: 'getTaskList',
        soapAction: 'getTaskList',
        request: 'GetTaskList',
        handle: operation('GetTaskListResponse', taskEcho, async (body, requestor) => {
          const filter: ListFilter = {
            caseNumber: optionalNumber(textOf(body, 'AssociatedCaseNumber')),
            clientReference: textOf(body, 'AssociatedCaseClientReference'),
            from: textOf(body, 'TaskDueDateFrom'),
            to: textOf(body, 'TaskDueDateTo'),
          };
          const tasks = await listRequestorTasks(context, { requestor, filter });
          return { Tasks: { Task: tasks.map(taskSummary) } };
        }),
      },
      {
        name: 'getTaskContent',
        soapAction: 'getTaskContent',
        request: 'GetTaskContent',
        handle: operation('GetTaskContentResponse', taskEcho, async (body, requestor) => {
          const taskId = Number(textOf(body, 'TaskIdentifier'));
          return { Task: taskContent(await requestorTask(context, { requestor, taskId })) };
        }),
      },
      {
        name: 'updateTask',
        soapAction: 'updateTask',
        request: 'UpdateTask',
        maxBytes: ATTACHMENTS_MAX_BYTES,
        handle: operation('UpdateTaskResponse', taskEcho, async (body, requestor) => {
          const taskId = Number(textOf(body, 'TaskIdentifier'));
          const attachments: Attachment[] = treesOf(body, 'ResponseDocument').flatMap((element, i) => {
            const staged = binaryOf(element, 'ObjectData');
            const name = textOf(element, 'ObjectName') ?? 'Response.pdf';
            return staged ? [{ field: `ResponseDocument.${i}`, name, format: 'pdf' as const, staged }] : [];
          });
          const responseText = textOf(body, 'ResponseText')?.trim() || null;
          const answered = await answerRequestorTask(
            context,
            { requestor, taskId, responseText, attachments },
            { cases, documents },
          );
          return { Task: taskContent(answered.task), CaseStatusCode: answered.caseStatus };
        }),
      },
    ],
  });

  await soapEndpoint(app, {
    path: '/discussioncorrespondence',
    absoluteUrl: context.absoluteUrl,
    summary: 'Discussion correspondence: the formal steps of a registered user’s cases',
    wsdl: 'discussioncorrespondence.wsdl',
    xsds: ['discussion-correspondence.xsd'],
    namespace: NS,
    faults: REFUSAL_FAULTS,
    operations: [
      {
        name: 'getDiscussionList',
        soapAction: 'getDiscussionList',
        request: 'GetDiscussionList',
        handle: operation('GetDiscussionListResponse', discussionEcho, async (body, requestor) => {
          const filter: ListFilter = {
            caseNumber: optionalNumber(textOf(body, 'AssociatedCaseNumber')),
            clientReference: textOf(body, 'AssociatedCaseClientReference'),
            from: textOf(body, 'DiscussionCreationDateFrom'),
            to: textOf(body, 'DiscussionCreationDateTo'),
            status: parseDiscussionStatus(textOf(body, 'Status')),
          };
          const found = await listRequestorDiscussions(context, { requestor, filter });
          return { Discussions: { Discussion: found.map(discussionSummary) } };
        }),
      },
      {
        name: 'getDiscussionContent',
        soapAction: 'getDiscussionContent',
        request: 'GetDiscussionContent',
        handle: operation('GetDiscussionContentResponse', discussionEcho, async (body, requestor) => {
          const discussionId = Number(textOf(body, 'DiscussionIdentifier'));
          return {
            Discussion: discussionContent(await requestorDiscussion(context, { requestor, discussionId })),
          };
        }),
      },
    ],
  });
}
