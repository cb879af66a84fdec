import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type IponzClient, RegisterError } from '../../packages/client/src/index.ts';
import { addDays } from '../../src/platform/calendar.ts';
import { setClock } from '../../src/platform/environment-clocks.ts';
import { startJobs } from '../../src/runtime.ts';
import { EXAMINATION_REPORT_DAYS } from '../../src/services/iponz/domain/examination.ts';
import {
  internationalApplication,
  PAST_DEADLINE_SERIAL,
} from '../../src/services/iponz/sandbox/international-applications.ts';
import { type IponzTest, iponzTest, TODAY } from '../services/iponz/support/api.ts';
import { listening } from './support.ts';

/**
 * The IP office's SOAP filings, correspondence answer and document download through the client's typed
 * methods, against a running gateway with the sandbox seed: a trade mark and a PCT national phase filed
 * (their answers typed from the XSDs, the new case read back through REST, a repeat under its
 * TransactionIdentifier — or the call's request id standing in for one — answered the same, filed once),
 * each refused with the office's own answers (the 200-with-error `App Error` naming its field, SOAP
 * faults for a request the XSD refuses and for a caller refused); `GetObject` of seeded documents and of
 * filed attachments, bytes and format checked, and of an unknown one; last, on the sandbox's clock, the
 * examination report task of a filed mark answered with `updateTask`.
 */
let t: IponzTest;
let baseUrl: string;
let iponz: IponzClient;

const client = (token: () => Promise<string>) =>
  createClient({ register: 'iponz', environment: 'sandbox', baseUrl, key: t.key, oauth: { token } });

beforeAll(async () => {
  t = await iponzTest();
  baseUrl = await listening(t.gateway);
  iponz = client(async () => t.owner.token);
}, 180_000);
afterAll(async () => t?.close());

const tx = () => `tx-${crypto.randomUUID()}`;
/** A published international application of the sandbox (0–89 enterable on the seed day). */
const pct = (i: number) => internationalApplication(i, TODAY).internationalApplicationNumber;

/** A one-pixel GIF: the mark's representation. */
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///ywAAAAAAQABAAACAUwAOw==', 'base64');
const PDF = Buffer.from('%PDF-1.4\n% amended specification\n'.repeat(200));

type TradeMarkRequest = Parameters<IponzClient['soap']['FileTradeMarkApplication']>[0];
type PatentRequest = Parameters<IponzClient['soap']['FilePatentApplication']>[0];

const tradeMark = (over: Partial<TradeMarkRequest> = {}): TradeMarkRequest => ({
  TransactionCode: 'Trade Mark E-Filing',
  ApplicationReference: 'TM-CLIENT-1',
  ApplicationContact: 'Applicant',
  RegistrationOfficeCode: 'NZ',
  IntendedUseCode: 'YAPP',
  MarkTitle: 'TUI & KERERŪ <CLOUD>',
  Applicant: { ClientIdentifier: '100000' },
  GoodsAndServices: {
    ClassDescription: [
      { ClassNumber: '9', Description: 'Computer software' },
      { ClassNumber: '42', Description: 'Software as a service' },
    ],
  },
  ...over,
});

const patent = (over: Partial<PatentRequest> = {}): PatentRequest => ({
  TransactionCode: 'Patent E-Filing',
  PatentApplicationReference: 'P-CLIENT-1',
  ApplicationContact: 'Applicant',
  ExaminationRequested: false,
  InternationalApplicationNumber: pct(0),
  Applicant: {
    ApplicantDetails: {
      Name: 'Aroha Innovations Limited',
      ClientType: 'Organisation',
      Address: { AddressLine1: '12 Tory Street', City: 'Wellington', Postcode: '6011', CountryCode: 'NZ' },
    },
  },
  ...over,
});

/** The call's rejection, which must be a `RegisterError`. */
async function refusal(call: Promise<unknown>): Promise<RegisterError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RegisterError);
  return error as RegisterError;
}

describe('FileTradeMarkApplication', () => {
  it('files a trade mark: the answer typed, REST reads the case, the representation downloads', async () => {
    const TransactionIdentifier = tx();
    const filed = await iponz.soap.FileTradeMarkApplication(
      tradeMark({
        TransactionIdentifier,
        MarkRepresentation: {
          ObjectName: 'tui.gif',
          ObjectFormat: 'gif',
          ObjectData: GIF.toString('base64'),
        },
      }),
    );
    expect(filed.TransactionErrorCode).toBeUndefined();
    expect(filed).toMatchObject({
      TransactionIdentifier,
      TransactionCode: 'Trade Mark E-Filing',
      ApplicationReference: 'TM-CLIENT-1',
      RegistrationOfficeCode: 'NZ',
      ApplicationDate: TODAY,
      MarkCurrentStatusCode: 'Under Examination',
      MarkTitle: 'TUI & KERERŪ <CLOUD>',
      Owner: { ClientIdentifier: 100000 },
      GoodsAndServices: {
        ClassDescription: [
          { ClassNumber: 9, Description: 'Computer software' },
          { ClassNumber: 42, Description: 'Software as a service' },
        ],
      },
      Fees: { Fee: [{ FeeCode: 'IPONZ_TRADE_MARK_APPLICATION', Quantity: 2 }] },
    });
    // Numbers are numbers, repeating elements arrays.
    expect(typeof filed.ApplicationNumber).toBe('number');
    expect(typeof filed.Fees?.Fee?.[0]?.AmountCents).toBe('number');
    const number = filed.ApplicationNumber!;

    const read = await iponz.getTradeMark({ path: { trademarkNumber: String(number) } });
    expect(read.TradeMark).toMatchObject({
      ApplicationNumber: String(number),
      MarkTitle: 'TUI & KERERŪ <CLOUD>',
      MarkCurrentStatusCode: 'Under Examination',
    });

    // The representation is a document of the case, downloaded as the bytes sent.
    const document = filed.Documents?.Document?.find((d) => d.ObjectName === 'tui.gif');
    expect(document).toBeDefined();
    const got = await iponz.soap.GetObject({ ObjectIdentifier: document!.ObjectIdentifier });
    expect(got).toMatchObject({ ObjectName: 'tui.gif', ObjectFormat: 'gif', ObjectSize: GIF.length });
    expect(Buffer.from(got.ObjectData!, 'base64').equals(GIF)).toBe(true);

    // A repeat under the same TransactionIdentifier is answered the first answer: no second case.
    const again = await iponz.soap.FileTradeMarkApplication(
      tradeMark({ TransactionIdentifier, MarkTitle: 'ANOTHER MARK' }),
    );
    expect(again).toEqual(filed);
  });

  it('names a filing by its request id when it has no TransactionIdentifier: a repeat files once', async () => {
    const requestId = crypto.randomUUID();
    const first = await iponz.soap.FileTradeMarkApplication(tradeMark({ MarkTitle: 'REPEATED KIWI' }), {
      requestId,
    });
    expect(first.TransactionIdentifier).toBe(requestId);
    const again = await iponz.soap.FileTradeMarkApplication(tradeMark({ MarkTitle: 'REPEATED KIWI' }), {
      requestId,
    });
    expect(again).toEqual(first);
    const found = await iponz.soap.ListTrademarks({
      ListTradeMarks: {
        ListTradeMarksBody: {
          ListTradeMarksContentDetails: { TradeMarkSearchCriteria: { Title: '"repeated kiwi"' } },
        },
      },
    });
    expect(found.ResultCount).toBe(1);
    // A request id too long for a TransactionIdentifier is refused before anything is sent.
    await expect(
      iponz.soap.FileTradeMarkApplication(tradeMark(), { requestId: 'r'.repeat(101) }),
    ).rejects.toThrow(/at most 100 characters/);
  });

  it('throws the office’s App Error, naming the field, as a typed transaction error', async () => {
    const failed = await refusal(
      iponz.soap.FileTradeMarkApplication(tradeMark({ Applicant: { ClientIdentifier: '99999999' } })),
    );
    expect(failed.status).toBe(200);
    expect(failed.details).toMatchObject({
      kind: 'transaction-error',
      transactionErrorCode: 'App Error',
      field: 'Applicant.ClientIdentifier',
    });
    expect(failed.details.body).toContain('<ApplicationReference>TM-CLIENT-1</ApplicationReference>');
  });

  it('throws a SOAP fault for a request the XSD refuses, naming the element', async () => {
    const fault = await refusal(
      iponz.soap.FileTradeMarkApplication(
        tradeMark({ GoodsAndServices: { ClassDescription: [{ ClassNumber: '46', Description: 'x' }] } }),
      ),
    );
    expect(fault.status).toBe(500);
    if (fault.details.kind !== 'soap-fault') throw new Error(`not a fault: ${fault.message}`);
    expect(fault.details.faultCode).toMatch(/Client/);
    expect(fault.details.code).toBe('invalid-request');
    expect(fault.details.faultString).toContain('ClassNumber');
    expect(fault.details.errors.map((e) => e.field).join(' ')).toContain('ClassNumber');
  });

  it('throws a SOAP fault for a user not registered with the office, and files nothing', async () => {
    const stranger = client(async () => t.stranger.token);
    const fault = await refusal(stranger.soap.FileTradeMarkApplication(tradeMark({ MarkTitle: 'STRANGER' })));
    expect(fault.status).toBe(403);
    expect(fault.details).toMatchObject({ kind: 'soap-fault', code: 'not-registered-user' });
    const found = await iponz.soap.ListTrademarks({
      ListTradeMarks: {
        ListTradeMarksBody: {
          ListTradeMarksContentDetails: { TradeMarkSearchCriteria: { Title: 'stranger' } },
        },
      },
    });
    expect(found.ResultCount).toBe(0);
  });
});

describe('FilePatentApplication', () => {
  it('files a PCT national phase with an attachment: the answer typed, REST reads it, the bytes download', async () => {
    const published = internationalApplication(0, TODAY);
    const filed = await iponz.soap.FilePatentApplication(
      patent({
        TransactionIdentifier: tx(),
        AmendedSpecification: {
          ObjectName: 'Amended specification.pdf',
          ObjectFormat: 'pdf',
          ObjectData: PDF.toString('base64'),
        },
      }),
    );
    expect(filed).toMatchObject({
      TransactionCode: 'Patent E-Filing',
      PatentApplicationReference: 'P-CLIENT-1',
      PatentCurrentStatusCode: 'Filed',
      ApplicationDate: TODAY,
      InternationalApplicationNumber: published.internationalApplicationNumber,
      InternationalPublicationNumber: published.internationalPublicationNumber,
      PatentTitle: published.title,
      ExaminationRequested: false,
      Applicant: { ClientName: 'Aroha Innovations Limited' },
      Fees: { Fee: [{ FeeCode: 'IPONZ_PATENT_APPLICATION', Quantity: 1 }] },
    });
    expect(typeof filed.PatentNumber).toBe('number');
    expect(typeof filed.Applicant?.ClientIdentifier).toBe('number');

    const read = await iponz.getPatent({ path: { patentNumber: String(filed.PatentNumber) } });
    expect(read.Patent.InternationalApplicationNumber).toBe(published.internationalApplicationNumber);
    const applicant = await iponz.getClient({
      path: { clientId: String(filed.Applicant!.ClientIdentifier) },
    });
    expect(JSON.stringify(applicant)).toContain('Aroha Innovations Limited');

    const [document] = filed.Documents?.Document ?? [];
    expect(document?.ObjectName).toBe('Amended specification.pdf');
    const got = await iponz.soap.GetObject({ ObjectIdentifier: document!.ObjectIdentifier });
    expect(got).toMatchObject({ ObjectFormat: 'pdf', ObjectSize: PDF.length });
    expect(Buffer.from(got.ObjectData!, 'base64').equals(PDF)).toBe(true);
  });

  it('throws the office’s App Error for an application past its deadline or entered already', async () => {
    const late = await refusal(
      iponz.soap.FilePatentApplication(
        patent({ InternationalApplicationNumber: pct(PAST_DEADLINE_SERIAL - 900_000) }),
      ),
    );
    expect(late.status).toBe(200);
    expect(late.details).toMatchObject({
      kind: 'transaction-error',
      transactionErrorCode: 'App Error',
      field: 'InternationalApplicationNumber',
    });
    expect(late.message).toMatch(/deadline/);
    const entered = await refusal(iponz.soap.FilePatentApplication(patent()));
    expect(entered.details).toMatchObject({ kind: 'transaction-error', transactionErrorCode: 'App Error' });
    expect(entered.message).toMatch(/already entered/);
  });

  it('throws a SOAP fault for a request the XSD refuses, and one for a call without a user', async () => {
    const fault = await refusal(
      iponz.soap.FilePatentApplication(patent({ InternationalApplicationNumber: 'not a PCT number' })),
    );
    expect(fault.details).toMatchObject({ kind: 'soap-fault', code: 'invalid-request' });
    if (fault.details.kind === 'soap-fault') expect(fault.details.faultCode).toMatch(/Client/);
    const keyOnly = createClient({ register: 'iponz', environment: 'sandbox', baseUrl, key: t.key });
    const anonymous = await refusal(
      keyOnly.soap.FilePatentApplication(patent({ InternationalApplicationNumber: pct(1) })),
    );
    expect(anonymous.status).toBe(401);
    expect(anonymous.details.kind).toBe('soap-fault');
  });
});

describe('GetObject', () => {
  it('downloads a seeded document of a patent: its name, format, size and bytes', async () => {
    const read = await iponz.getPatent({ path: { patentNumber: '500050' } });
    const documents = read.Patent.Documents?.Document ?? [];
    const seeded = documents.find((d) => d.ObjectFormat === 'pdf');
    expect(seeded).toBeDefined();
    const TransactionIdentifier = tx();
    const got = await iponz.soap.GetObject({
      TransactionIdentifier,
      TransactionCode: 'Get Object',
      ObjectIdentifier: seeded!.ObjectIdentifier,
    });
    expect(got).toMatchObject({
      TransactionIdentifier,
      TransactionCode: 'Get Object',
      ObjectIdentifier: seeded!.ObjectIdentifier,
      ObjectName: seeded!.ObjectName,
      ObjectFormat: 'pdf',
    });
    const bytes = Buffer.from(got.ObjectData!, 'base64');
    expect(got.ObjectSize).toBe(bytes.length);
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(bytes.toString('latin1').trimEnd().endsWith('%%EOF')).toBe(true);
    // The same bytes every time.
    const again = await iponz.soap.GetObject({ ObjectIdentifier: seeded!.ObjectIdentifier });
    expect(again.ObjectData).toBe(got.ObjectData);
  });

  it('downloads a trade mark’s image found from the search: a GIF', async () => {
    const found = await iponz.soap.ListTrademarks({
      ListTradeMarks: {
        ListTradeMarksBody: {
          ListTradeMarksContentDetails: { TradeMarkSearchCriteria: { Title: 'sandbox*' } },
        },
      },
    });
    const mark = found.ListTradeMarksResponseData?.TradeMark?.find((m) => m.MarkImageName);
    expect(mark).toBeDefined();
    const ids = mark!.Documents?.ObjectIdentifier ?? [];
    const downloads = await Promise.all(
      ids.map((ObjectIdentifier) => iponz.soap.GetObject({ ObjectIdentifier })),
    );
    const image = downloads.find((d) => d.ObjectName === mark!.MarkImageName);
    expect(image?.ObjectFormat).toBe('gif');
    const bytes = Buffer.from(image!.ObjectData!, 'base64');
    expect(bytes.subarray(0, 6).toString('latin1')).toBe('GIF89a');
    expect(bytes.at(-1)).toBe(0x3b);
    expect(image!.ObjectSize).toBe(bytes.length);
  });

  it('throws the office’s App Error for an unknown document, and a fault for a malformed identifier', async () => {
    const unknown = await refusal(iponz.soap.GetObject({ ObjectIdentifier: 'ffffffffffffffff' }));
    expect(unknown.status).toBe(200);
    expect(unknown.details).toMatchObject({ kind: 'transaction-error', transactionErrorCode: 'App Error' });
    const malformed = await refusal(iponz.soap.GetObject({ ObjectIdentifier: 'not-an-id' }));
    expect(malformed.details).toMatchObject({ kind: 'soap-fault', code: 'invalid-request' });
  });
});

describe('updateTask: answering the examination report of a filed trade mark', () => {
  it('lists the task, reads it, answers it with a document (Accepted); a second answer is an App Error', async () => {
    const jobs = await startJobs(t.gateway.runtime, baseUrl);
    try {
      const filed = await iponz.soap.FileTradeMarkApplication(
        tradeMark({ ApplicationReference: 'TM-WALK-1' }),
      );
      const number = String(filed.ApplicationNumber);
      await jobs.settle();
      // The examination report comes on its day, on the sandbox's clock.
      await setClock(
        t.gateway.runtime.gateway.pool,
        'sandbox',
        `${addDays(TODAY, EXAMINATION_REPORT_DAYS.trademark)}T00:00:00Z`,
      );
      await t.gateway.runtime.clocks.reload();
      await jobs.settle();

      const common = { TransactionCode: 'Get Task List', RequestorIdentifier: t.owner.userId } as const;
      const list = await iponz.soap.getTaskList({
        ...common,
        TransactionIdentifier: tx(),
        AssociatedCaseNumber: number,
      });
      const tasks = list.Tasks?.Task ?? [];
      expect(tasks).toHaveLength(1);
      expect(tasks[0]).toMatchObject({
        TaskStatus: 'open',
        AssociatedCaseType: 'Trade Mark',
        AssociatedCaseNumber: filed.ApplicationNumber,
        AssociatedCaseClientReference: 'TM-WALK-1',
      });
      const TaskIdentifier = String(tasks[0]!.TaskIdentifier);
      const content = await iponz.soap.getTaskContent({
        TransactionIdentifier: tx(),
        TransactionCode: 'Get Task Content',
        RequestorIdentifier: t.owner.userId,
        TaskIdentifier,
      });
      expect(content.Task?.TaskStatus).toBe('open');

      const answer: Parameters<IponzClient['soap']['updateTask']>[0] = {
        TransactionIdentifier: tx(),
        TransactionCode: 'Update Task',
        RequestorIdentifier: t.owner.userId,
        TaskIdentifier,
        ResponseText: 'Amended specification of goods attached.',
        ResponseDocument: [
          { ObjectName: 'Response.pdf', ObjectFormat: 'pdf', ObjectData: PDF.toString('base64') },
        ],
      };
      const answered = await iponz.soap.updateTask(answer);
      expect(answered).toMatchObject({
        CaseStatusCode: 'Accepted',
        Task: { TaskStatus: 'completed', ResponseText: 'Amended specification of goods attached.' },
      });
      const response = answered.Task?.Documents.Document?.find((d) => d.ObjectName === 'Response.pdf');
      expect(response).toBeDefined();
      const got = await iponz.soap.GetObject({ ObjectIdentifier: response!.ObjectIdentifier });
      expect(Buffer.from(got.ObjectData!, 'base64').equals(PDF)).toBe(true);
      const read = await iponz.getTradeMark({ path: { trademarkNumber: number } });
      expect(read.TradeMark.MarkCurrentStatusCode).toBe('Accepted');

      // The task is no longer open: the office's App Error, naming the task.
      const again = await refusal(iponz.soap.updateTask({ ...answer, TransactionIdentifier: tx() }));
      expect(again.details).toMatchObject({
        kind: 'transaction-error',
        transactionErrorCode: 'App Error',
        field: 'TaskIdentifier',
      });
    } finally {
      await jobs.stop();
    }
  });
});
