import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type IponzClient, RegisterError } from '../../packages/client/src/index.ts';
import { type IponzTest, iponzTest } from '../services/iponz/support/api.ts';
import { listening, servesCommittedDocuments } from './support.ts';

/**
 * The IP office through the client, against a running gateway with the sandbox seed: the client search
 * (JSON, paged), a case's detail (XML), the renewal check and a renewal paid once under its request id.
 */
let t: IponzTest;
let baseUrl: string;
let iponz: IponzClient;

beforeAll(async () => {
  t = await iponzTest();
  baseUrl = await listening(t.gateway);
  iponz = createClient({
    register: 'iponz',
    environment: 'sandbox',
    baseUrl,
    key: t.key,
    oauth: { token: async () => t.owner.token },
  });
}, 180_000);
afterAll(async () => t?.close());

it('is served the documents its types were made from', async () => {
  await servesCommittedDocuments(baseUrl, 'iponz', '/iponz/v5');
});

describe('REST operations', () => {
  it('searches clients page after page', async () => {
    const first = await iponz.searchClients({ query: { name: '%li%', 'page-size': 3 } });
    const all = [];
    for await (const client of iponz.paginate('searchClients', { query: { name: '%li%', 'page-size': 3 } })) {
      all.push(client);
    }
    expect(all).toHaveLength(first.totalResults);
  });

  it('reads a patent’s detail as JSON, and as the XML text when asked', async () => {
    const patent = await iponz.getPatent({ path: { patentNumber: '500050' } });
    expect(patent.Patent.PatentNumber).toBe('500050');
    const xml = await iponz.send('getPatent', {
      path: { patentNumber: '500050' },
      accept: 'application/xml',
    });
    expect(xml.headers.get('content-type')).toMatch(/xml/);
    expect(xml.body).toContain('<PatentNumber>500050</PatentNumber>');
    // The same through the method: the XML as text.
    const text: string = await iponz.getPatent({
      path: { patentNumber: '500050' },
      accept: 'application/xml',
    });
    expect(text).toContain('<PatentNumber>500050</PatentNumber>');
  });

  it('checks a renewal, and pays it once under its request id', async () => {
    const check = await iponz.checkPatentRenewal({ path: { patentNumber: '500050' } });
    expect(check.renewalDue).toBe(true);
    const requestId = crypto.randomUUID();
    const paid = await iponz.renewPatent({ path: { patentNumber: '500050' }, body: {}, requestId });
    const repeat = await iponz.renewPatent({ path: { patentNumber: '500050' }, body: {}, requestId });
    expect(repeat).toEqual(paid);
  });

  it('gives problem+json for an unknown client', async () => {
    const missing = await iponz.getClient({ path: { clientId: '999999999' } }).catch((e) => e);
    expect(missing).toBeInstanceOf(RegisterError);
    expect(missing.details.kind).toBe('problem');
    expect(missing.status).toBe(404);
  });
});

describe('SOAP operations', () => {
  it('searches trade marks, the answer typed from the XSDs', async () => {
    const answer = await iponz.soap.ListTrademarks({
      ListTradeMarks: {
        ListTradeMarksBody: {
          ListTradeMarksContentDetails: {
            TradeMarkSearchCriteria: { ClientRef: 'my-ref-1', Title: 'sandbox*' },
          },
        },
      },
    });
    expect(answer.appErrorEncountered).toBe(false);
    const marks = answer.ListTradeMarksResponseData?.TradeMark ?? [];
    expect(marks.length).toBeGreaterThan(0);
    // Repeating elements are arrays, numbers are numbers, even when one was answered.
    expect(Array.isArray(marks[0]!.GoodsAndServices.ClassNumber)).toBe(true);
    expect(typeof marks[0]!.GoodsAndServices.ClassNumber?.[0]).toBe('number');
  });

  it('lists a registered user’s tasks and discussions, repeating elements as arrays', async () => {
    const tasks = await iponz.soap.getTaskList({
      TransactionIdentifier: `tx-${crypto.randomUUID()}`,
      TransactionCode: 'Get Task List',
      RequestorIdentifier: t.owner.userId,
    });
    expect(tasks.TransactionCode).toBe('Get Task List');
    expect(Array.isArray(tasks.Tasks?.Task ?? [])).toBe(true);
    const discussions = await iponz.soap.getDiscussionList({
      TransactionIdentifier: `tx-${crypto.randomUUID()}`,
      TransactionCode: 'Get Discussion List',
    });
    expect(discussions.TransactionCode).toBe('Get Discussion List');
    expect(Array.isArray(discussions.Discussions?.Discussion ?? [])).toBe(true);
  });

  it('throws the 200-with-error answer as a typed transaction error', async () => {
    const failed = await iponz.soap
      .getTaskContent({
        TransactionIdentifier: `tx-${crypto.randomUUID()}`,
        TransactionCode: 'Get Task Content',
        RequestorIdentifier: t.owner.userId,
        TaskIdentifier: '999999999',
      })
      .catch((e) => e);
    expect(failed).toBeInstanceOf(RegisterError);
    expect(failed.status).toBe(200);
    expect(failed.details).toMatchObject({ kind: 'transaction-error', transactionErrorCode: 'App Error' });
  });

  it('throws a SOAP fault as a typed value', async () => {
    const title = 'x'.repeat(300); // the XSD allows 255
    const fault = await iponz.soap
      .ListTrademarks({
        ListTradeMarks: {
          ListTradeMarksBody: { ListTradeMarksContentDetails: { TradeMarkSearchCriteria: { Title: title } } },
        },
      })
      .catch((e) => e);
    expect(fault).toBeInstanceOf(RegisterError);
    expect(fault.details.kind).toBe('soap-fault');
    expect(fault.details.faultCode).toMatch(/Client/);
  });
});
