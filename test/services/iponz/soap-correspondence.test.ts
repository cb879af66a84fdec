import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../src/platform/calendar.ts';
import { setClock } from '../../../src/platform/environment-clocks.ts';
import {
  EXAMINATION_REPORT_DAYS,
  OPPOSITION_DAYS,
  RESPONSE_DAYS,
} from '../../../src/services/iponz/domain/examination.ts';
import { signedInUser } from '../../support/oauth.ts';
import { TODAY } from './support/api.ts';
import { call, expectValidAnswer, type SoapTest, soapTest, tradeMarkArgs } from './support/soap-filing.ts';

/**
 * The examination walk on the sandbox's virtual clock, through the correspondence operations of a real
 * SOAP client: a filed trade mark gets its examination report task on the documented day, the answer
 * (updateTask with a document) makes it Accepted, the end of the opposition period Registered — each
 * step a discussion, each discussion an email to the filer in the outbox; an unanswered report
 * abandons the application. Tasks and discussions are the requestor's own; every answer is valid
 * against its XSD.
 */
let t: SoapTest;
beforeAll(async () => {
  t = await soapTest();
}, 300_000);
afterAll(async () => t?.close());

/** Moves the sandbox clock to `date` (New Zealand noon) and runs the jobs until nothing is due. */
async function clockTo(date: string): Promise<void> {
  await setClock(t.gateway.runtime.gateway.pool, 'sandbox', `${date}T00:00:00Z`);
  await t.gateway.runtime.clocks.reload();
  await t.jobs.settle();
}

const mails = async (to: string) =>
  (
    await t.gateway.runtime.gateway.pool.query<{ subject: string; text: string }>(
      'SELECT subject, text FROM mail_outbox WHERE "to" = $1 ORDER BY id',
      [to],
    )
  ).rows;

const tx = (i: number | string) => `TX-${i}`;

async function taskList(token: string, requestor: string, over: Record<string, unknown> = {}) {
  const client = await t.client('taskcorrespondence', token);
  const answer = await call(client, 'getTaskList', {
    TransactionIdentifier: tx('list'),
    TransactionCode: 'Get Task List',
    RequestorIdentifier: requestor,
    ...over,
  });
  await expectValidAnswer('taskcorrespondence', answer.raw);
  const tasks = (answer.result.Tasks as { Task?: unknown } | undefined)?.Task;
  return {
    ...answer,
    tasks: (tasks === undefined ? [] : Array.isArray(tasks) ? tasks : [tasks]) as Record<string, unknown>[],
  };
}

async function discussionList(token: string, over: Record<string, unknown> = {}) {
  const client = await t.client('discussioncorrespondence', token);
  const answer = await call(client, 'getDiscussionList', {
    TransactionIdentifier: tx('discussions'),
    TransactionCode: 'Get Discussion List',
    ...over,
  });
  await expectValidAnswer('discussioncorrespondence', answer.raw);
  const found = (answer.result.Discussions as { Discussion?: unknown } | undefined)?.Discussion;
  return {
    ...answer,
    discussions: (found === undefined ? [] : Array.isArray(found) ? found : [found]) as Record<
      string,
      unknown
    >[],
  };
}

async function fileTradeMark(reference: string): Promise<number> {
  const client = await t.client('trademark');
  const { result } = await call(
    client,
    'FileTradeMarkApplication',
    tradeMarkArgs({ ApplicationReference: reference }),
  );
  return Number(result.ApplicationNumber);
}

const status = async (number: number) =>
  (await t.call('GET', `/trademarks/${number}`, { headers: { accept: 'application/json' } })).json()
    .TradeMark;

const pdf = Buffer.from('%PDF-1.4 response to the examination report\n').toString('base64');

describe('the examination walk', () => {
  let number: number;
  let taskId: string;

  it('filing: a closed discussion acknowledging it, emailed to the filer; no task yet', async () => {
    number = await fileTradeMark('WALK-1');
    await t.jobs.settle();
    const { discussions } = await discussionList(t.owner.token, { AssociatedCaseNumber: String(number) });
    expect(discussions).toHaveLength(1);
    expect(discussions[0]).toMatchObject({ Subject: `Application ${number} filed`, Status: 'closed' });
    expect((await mails(t.owner.email)).map((m) => m.subject)).toContain(
      `IPONZ: Application ${number} filed`,
    );
    expect(
      (await taskList(t.owner.token, t.owner.userId, { AssociatedCaseNumber: String(number) })).tasks,
    ).toEqual([]);
  });

  it(`the examination report task on day ${EXAMINATION_REPORT_DAYS.trademark}, not before`, async () => {
    await clockTo(addDays(TODAY, EXAMINATION_REPORT_DAYS.trademark - 1));
    expect(
      (await taskList(t.owner.token, t.owner.userId, { AssociatedCaseNumber: String(number) })).tasks,
    ).toEqual([]);
    await clockTo(addDays(TODAY, EXAMINATION_REPORT_DAYS.trademark));
    const { tasks, raw } = await taskList(t.owner.token, t.owner.userId, {
      AssociatedCaseNumber: String(number),
    });
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({
      TaskType: 'Respond to examination report',
      TaskStatus: 'open',
      AssociatedCaseType: 'Trade Mark',
      AssociatedCaseClientReference: 'WALK-1',
    });
    expect(raw).toContain(
      `<TaskDueDate>${addDays(TODAY, EXAMINATION_REPORT_DAYS.trademark + RESPONSE_DAYS)}</TaskDueDate>`,
    );
    taskId = String(tasks[0]!.TaskIdentifier);
    // The report is an open discussion carrying the report document, emailed.
    const open = await discussionList(t.owner.token, {
      AssociatedCaseNumber: String(number),
      Status: 'open',
    });
    expect(open.discussions).toHaveLength(1);
    const client = await t.client('discussioncorrespondence');
    const content = await call(client, 'getDiscussionContent', {
      TransactionIdentifier: tx('d1'),
      TransactionCode: 'Get Discussion Content',
      DiscussionIdentifier: String(open.discussions[0]!.DiscussionIdentifier),
    });
    await expectValidAnswer('discussioncorrespondence', content.raw);
    expect(content.raw).toMatch(/<ObjectIdentifier>09[0-9a-f]{14}<\/ObjectIdentifier>/);
    expect(content.raw).toContain(`Examination report ${number}.pdf`);
    expect((await mails(t.owner.email)).map((m) => m.subject)).toContain(
      `IPONZ: Examination report for application ${number}`,
    );
  });

  it('only the requestor sees the task: another requestor identifier, another registered user', async () => {
    expect((await taskList(t.owner.token, 'somebody-else')).tasks).toEqual([]);
    const other = await signedInUser(t.gateway);
    await t.register(other.userId);
    expect((await taskList(other.token, other.userId)).tasks).toEqual([]);
    const client = await t.client('taskcorrespondence', other.token);
    const { result, raw } = await call(client, 'getTaskContent', {
      TransactionIdentifier: tx('c'),
      TransactionCode: 'Get Task Content',
      RequestorIdentifier: other.userId,
      TaskIdentifier: taskId,
    });
    await expectValidAnswer('taskcorrespondence', raw);
    expect(result).toMatchObject({
      TransactionErrorCode: 'App Error',
      TransactionErrorField: 'TaskIdentifier',
    });
    // An unregistered user is refused outright.
    const stranger = await t.client('taskcorrespondence', t.stranger.token);
    await expect(
      call(stranger, 'getTaskList', {
        TransactionIdentifier: tx('s'),
        TransactionCode: 'Get Task List',
        RequestorIdentifier: t.stranger.userId,
      }),
    ).rejects.toMatchObject({ response: { status: 403 } });
  });

  it('updateTask needs a document; with one the case is Accepted, and the task completed', async () => {
    const client = await t.client('taskcorrespondence');
    const base = {
      TransactionIdentifier: tx('u'),
      TransactionCode: 'Update Task',
      RequestorIdentifier: t.owner.userId,
      TaskIdentifier: taskId,
    };
    const bare = await call(client, 'updateTask', { ...base, ResponseText: 'We disagree.' });
    await expectValidAnswer('taskcorrespondence', bare.raw);
    expect(bare.result).toMatchObject({
      TransactionErrorCode: 'App Error',
      TransactionErrorField: 'ResponseDocument',
    });
    expect((await status(number)).MarkCurrentStatusCode).toBe('Under Examination');
    await clockTo(addDays(TODAY, 20));
    const answered = await call(client, 'updateTask', {
      ...base,
      ResponseText: 'Amended specification of goods attached.',
      ResponseDocument: [{ ObjectName: 'Response.pdf', ObjectFormat: 'pdf', ObjectData: pdf }],
    });
    await expectValidAnswer('taskcorrespondence', answered.raw);
    expect(answered.result).toMatchObject({ CaseStatusCode: 'Accepted', Task: { TaskStatus: 'completed' } });
    expect(answered.raw).toContain('<ObjectName>Response.pdf</ObjectName>');
    const record = await status(number);
    expect(record.MarkCurrentStatusCode).toBe('Accepted');
    expect(record.Documents.Document.map((d: { ObjectName: string }) => d.ObjectName)).toContain(
      'Response.pdf',
    );
    const again = await call(client, 'updateTask', {
      ...base,
      ResponseDocument: [{ ObjectName: 'Again.pdf', ObjectFormat: 'pdf', ObjectData: pdf }],
    });
    expect(again.result).toMatchObject({
      TransactionErrorCode: 'App Error',
      TransactionErrorField: 'TaskIdentifier',
    });
    // The report's discussion is closed now: no open discussion left on the case.
    expect(
      (await discussionList(t.owner.token, { AssociatedCaseNumber: String(number), Status: 'open' }))
        .discussions,
    ).toEqual([]);
  });

  it(`Registered ${OPPOSITION_DAYS} days after acceptance, with a discussion and its email`, async () => {
    await clockTo(addDays(TODAY, 20 + OPPOSITION_DAYS - 1));
    expect((await status(number)).MarkCurrentStatusCode).toBe('Accepted');
    await clockTo(addDays(TODAY, 20 + OPPOSITION_DAYS));
    const record = await status(number);
    expect(record).toMatchObject({
      MarkCurrentStatusCode: 'Registered',
      RegistrationDate: addDays(TODAY, 20 + OPPOSITION_DAYS),
      RegistrationNumber: String(number),
    });
    expect(record.StatusHistory.Status.map((s: { StatusCode: string }) => s.StatusCode)).toEqual([
      'Under Examination',
      'Accepted',
      'Registered',
    ]);
    const { discussions } = await discussionList(t.owner.token, { AssociatedCaseNumber: String(number) });
    expect(discussions.map((d) => d.Subject)).toEqual([
      `Application ${number}: Registered`,
      `Application ${number}: Accepted`,
      `Examination report for application ${number}`,
      `Application ${number} filed`,
    ]);
    const subjects = (await mails(t.owner.email)).map((m) => m.subject);
    for (const d of discussions) expect(subjects).toContain(`IPONZ: ${d.Subject}`);
  });
});

describe('an unanswered report', () => {
  it('abandons the application the day after the task is due; the task expires', async () => {
    const start = addDays(TODAY, 200);
    await clockTo(start);
    const number = await fileTradeMark('WALK-2');
    const due = addDays(start, EXAMINATION_REPORT_DAYS.trademark + RESPONSE_DAYS);
    await clockTo(due);
    expect((await status(number)).MarkCurrentStatusCode).toBe('Under Examination');
    await clockTo(addDays(due, 1));
    expect((await status(number)).MarkCurrentStatusCode).toBe('Abandoned');
    const { tasks } = await taskList(t.owner.token, t.owner.userId, {
      AssociatedCaseClientReference: 'WALK-2',
    });
    expect(tasks.map((task) => task.TaskStatus)).toEqual(['expired']);
  });
});

describe('list filters', () => {
  it('date ranges: due dates narrow the tasks; an end before the start is an App Error', async () => {
    const all = await taskList(t.owner.token, t.owner.userId);
    expect(all.tasks.length).toBeGreaterThanOrEqual(2);
    const early = await taskList(t.owner.token, t.owner.userId, { TaskDueDateTo: addDays(TODAY, 100) });
    expect(early.tasks.map((task) => task.AssociatedCaseClientReference)).toEqual(['WALK-1']);
    const wrong = await taskList(t.owner.token, t.owner.userId, {
      TaskDueDateFrom: '2026-02-01',
      TaskDueDateTo: '2026-01-01',
    });
    expect(wrong.result).toMatchObject({
      TransactionErrorCode: 'App Error',
      TransactionErrorField: 'TaskDueDateTo',
    });
  });
  it('discussions by status and creation date', async () => {
    const closed = await discussionList(t.owner.token, { Status: 'closed' });
    expect(closed.discussions.every((d) => d.Status === 'closed')).toBe(true);
    const none = await discussionList(t.owner.token, {
      DiscussionCreationDateFrom: '2020-01-01',
      DiscussionCreationDateTo: '2020-12-31',
    });
    expect(none.discussions).toEqual([]);
  });
  it('an unknown SOAPAction is a soap:Client Fault', async () => {
    const response = await t.call('POST', '/taskcorrespondence', {
      token: t.owner.token,
      headers: { 'content-type': 'text/xml', soapaction: 'deleteTask' },
      payload:
        '<?xml version="1.0"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body/></soap:Envelope>',
    });
    expect(response.statusCode).toBe(500);
    expect(response.body).toContain('soap:Client');
  });
});
