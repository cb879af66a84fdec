import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../../src/gateway/service-context.ts';
import { HttpError } from '../../../src/platform/http/errors.ts';
import { noPreconditions } from '../../../src/platform/http/operation.ts';
import { clientDetail, searchClientPage } from '../../../src/services/iponz/operations/clients.ts';
import {
  answerRequestorTask,
  listRequestorDiscussions,
  listRequestorTasks,
  requestorShown,
  requestorTask,
} from '../../../src/services/iponz/operations/correspondence.ts';
import { openDocument } from '../../../src/services/iponz/operations/documents.ts';
import { fileApplication } from '../../../src/services/iponz/operations/filing.ts';
import { checkCaseRenewal, payCaseRenewal } from '../../../src/services/iponz/operations/renewals.ts';
import { registeredRequestor } from '../../../src/services/iponz/operations/requestor.ts';
import { searchTradeMarks } from '../../../src/services/iponz/operations/trademark-search.ts';
import { findCase } from '../../../src/services/iponz/store/cases.ts';
import { type IponzTest, iponzTest, TODAY } from './support/api.ts';
import { sandboxCaller, sandboxContext } from './support/context.ts';

/**
 * The IP office's operations (src/services/iponz/operations/) called as the CLI, an import or a job
 * calls them: plain input and the service context, no HTTP, no case cache, no preconditions (that none
 * imports Fastify is ../operations-layer.test.ts).
 */

let t: IponzTest;
let context: ServiceContext;
beforeAll(async () => {
  t = await iponzTest();
  context = sandboxContext(t.gateway);
}, 120_000);
afterAll(async () => t?.close());

const feeCount = async (caseNumber: string) =>
  Number(
    (
      await context.database.pool.query(
        `SELECT count(*) FROM fee_records WHERE object_id = $1 AND service = 'iponz'`,
        [caseNumber],
      )
    ).rows[0].count,
  );

describe('renewals', () => {
  it('checks a renewal due now, with its validators', async () => {
    const check = await checkCaseRenewal(context, { kind: 'patent', caseNumber: '500050' });
    expect(check.validators.etag).toMatch(/^"/);
    expect(check.answer()).toMatchObject({ caseType: 'patent', renewalDue: true, state: 'open' });
  });

  it('refuses a number by the published parameter, and an unknown case', async () => {
    await expect(checkCaseRenewal(context, { kind: 'patent', caseNumber: '0' })).rejects.toMatchObject({
      field: 'patent-number',
    });
    await expect(checkCaseRenewal(context, { kind: 'design', caseNumber: '499999' })).rejects.toBeInstanceOf(
      HttpError,
    );
  });

  it('pays once per idempotency key: a repeat answers the first payment and charges nothing', async () => {
    const caller = await sandboxCaller(t.gateway, t.owner.userId);
    const payment = {
      kind: 'trademark' as const,
      caseNumber: '1000050',
      caller,
      requestId: 'import-renewal-1',
      idempotencyKey: 'import-renewal-1',
      preconditions: noPreconditions,
    };
    const first = await payCaseRenewal(context, payment);
    expect(first.repeat).toBe(false);
    expect(first.etag).toMatch(/^"/);
    expect(first.answer).toMatchObject({ caseNumber: '1000050', requestId: 'import-renewal-1' });
    expect(await feeCount('1000050')).toBe(1);
    const again = await payCaseRenewal(context, payment);
    expect(again).toMatchObject({ repeat: true, answer: first.answer });
    expect(await feeCount('1000050')).toBe(1);
    const check = await checkCaseRenewal(context, { kind: 'trademark', caseNumber: '1000050' });
    expect(check.answer().dueDate).not.toBe(TODAY);
  });

  it('refuses a user not registered with the office before any work', async () => {
    const caller = await sandboxCaller(t.gateway, t.stranger.userId);
    await expect(
      payCaseRenewal(context, {
        kind: 'design',
        caseNumber: '400050',
        caller,
        requestId: 'import-renewal-2',
        idempotencyKey: undefined,
        preconditions: noPreconditions,
      }),
    ).rejects.toMatchObject({ code: 'not-registered-user' });
    expect(await feeCount('400050')).toBe(0);
  });
});

describe('applications', () => {
  const application = (transactionIdentifier: string) => ({
    kind: 'trademark' as const,
    input: {
      transactionIdentifier,
      transactionCode: 'Trade Mark E-Filing',
      reference: 'IMPORT-1',
      applicationContact: 'Applicant',
      applicant: { clientId: 100000 },
      registrationOfficeCode: 'NZ',
      intendedUseCode: 'YAPP',
      markTitle: 'KAURI IMPORT',
      classes: [{ classNumber: 9, description: 'Computer software' }],
    },
  });

  it('files a trade mark application once per TransactionIdentifier, readable at once', async () => {
    const caller = await sandboxCaller(t.gateway, t.owner.userId);
    const requestor = await registeredRequestor(context, caller);
    const request = {
      caller,
      requestor,
      application: application('import-tm-1'),
      attachments: [],
      requestId: 'import-filing-1',
      describe: (created: { record: { caseNumber: number } }) => ({ number: created.record.caseNumber }),
    };
    const first = await fileApplication(context, request);
    expect(first).toMatchObject({ kind: 'trademark', created: true, answer: { number: first.caseNumber } });
    const record = await findCase(context.database.pool, 'trademark', first.caseNumber);
    expect(record).toMatchObject({ title: 'KAURI IMPORT', status: expect.any(String) });
    const again = await fileApplication(context, request);
    expect(again).toMatchObject({ created: false, caseNumber: first.caseNumber, answer: first.answer });
  });

  it('a broken rule writes nothing', async () => {
    const caller = await sandboxCaller(t.gateway, t.owner.userId);
    const requestor = await registeredRequestor(context, caller);
    const broken = application('import-tm-2');
    broken.input.applicant = { clientId: 999_999_999 };
    const cases = async () =>
      Number((await context.database.pool.query('SELECT count(*) FROM iponz_cases')).rows[0].count);
    const before = await cases();
    await expect(
      fileApplication(context, {
        caller,
        requestor,
        application: broken,
        attachments: [],
        requestId: 'import-filing-2',
        describe: () => ({}),
      }),
    ).rejects.toMatchObject({ field: 'Applicant.ClientIdentifier' });
    expect(await cases()).toBe(before);
  });
});

describe('correspondence', () => {
  it('shows the requestor their own discussions only: the filing acknowledged above', async () => {
    const own = requestorShown(t.owner.userId, undefined);
    expect(requestorShown(t.owner.userId, t.stranger.userId)).toBeUndefined();
    const discussions = await listRequestorDiscussions(context, { requestor: own, filter: {} });
    expect(discussions.some((d) => d.kind === 'trademark' && d.clientReference === 'IMPORT-1')).toBe(true);
    expect(await listRequestorDiscussions(context, { requestor: undefined, filter: {} })).toEqual([]);
  });

  it('names the field of a broken rule', async () => {
    await expect(
      listRequestorTasks(context, { requestor: t.owner.userId, filter: { from: '2026-02-30' } }),
    ).rejects.toMatchObject({ field: 'TaskDueDateFrom' });
    await expect(
      requestorTask(context, { requestor: t.owner.userId, taskId: 999_999 }),
    ).rejects.toMatchObject({
      field: 'TaskIdentifier',
    });
    await expect(
      answerRequestorTask(context, {
        requestor: t.owner.userId,
        taskId: 1,
        responseText: null,
        attachments: [],
      }),
    ).rejects.toMatchObject({ field: 'ResponseDocument' });
  });
});

describe('trade mark search', () => {
  it('finds marks by title, in the answer’s form', async () => {
    const found = await searchTradeMarks(context, { Title: 'KAURI IMPORT' });
    expect(found.more).toBe(false);
    expect(found.tradeMarks.map((mark) => mark.MarkTitle)).toContain('KAURI IMPORT');
  });

  it('names the criterion a query breaks', async () => {
    await expect(searchTradeMarks(context, { Title: '((' })).rejects.toMatchObject({ field: 'Title' });
  });
});

describe('documents', () => {
  it('opens a seeded document, its bytes made on demand; an unknown one is none', async () => {
    const { rows } = await context.database.pool.query(
      'SELECT document_identifier FROM iponz_case_documents ORDER BY document_identifier LIMIT 1',
    );
    const opened = await openDocument(context, { documentIdentifier: rows[0].document_identifier });
    expect(opened?.size).toBeGreaterThan(0);
    const chunks: Buffer[] = [];
    for await (const chunk of opened!.source()) chunks.push(Buffer.from(chunk));
    expect(Buffer.concat(chunks).length).toBe(opened!.size);
    await opened!.close();
    expect(await openDocument(context, { documentIdentifier: 'ffffffffffffffff' })).toBeUndefined();
  });
});

describe('clients', () => {
  it('searches a page of clients and reads one, in their answer form', async () => {
    const page = await searchClientPage(context, { name: 'kiwi', 'page-size': '2' });
    expect(page).toMatchObject({ page: 1, pageSize: 2 });
    expect(page.clients.length).toBeLessThanOrEqual(2);
    const client = await clientDetail(context, { clientId: '100000' });
    expect(client.clientId).toBe('100000');
    await expect(clientDetail(context, { clientId: '0100000' })).rejects.toMatchObject({
      field: 'client-id',
    });
    await expect(searchClientPage(context, {})).rejects.toMatchObject({ field: 'name' });
  });
});
