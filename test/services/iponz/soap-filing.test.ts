import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentStoreFor } from '../../../src/services/iponz/documents/location.ts';
import {
  internationalApplication,
  PAST_DEADLINE_SERIAL,
} from '../../../src/services/iponz/sandbox/international-applications.ts';
import { fingerprint, organisationOf } from '../../billing/support/api.ts';
import { signedInUser } from '../../support/oauth.ts';
import { TODAY } from './support/api.ts';
import {
  APPLICANT_DETAILS,
  call,
  expectValidAnswer,
  patentArgs,
  pct,
  type SoapTest,
  soapTest,
  tradeMarkArgs,
} from './support/soap-filing.ts';

/**
 * Applications through a real SOAP client reading our WSDLs: a trade mark and a PCT national phase
 * filed, each answer valid against its XSD, the new case read back at once through REST XML and JSON,
 * the fee charged, attachments stored; App Errors that write nothing; the kept answer of a repeated
 * TransactionIdentifier; refusals of unregistered callers; 100 concurrent filings, 100 distinct numbers.
 */
let t: SoapTest;
beforeAll(async () => {
  t = await soapTest();
}, 300_000);
afterAll(async () => t?.close());

const sandbox = () => t.gateway.runtime.environments.sandbox.pool;
const count = async (sql: string, params: unknown[] = []) =>
  Number((await sandbox().query(sql, params)).rows[0].count);
/** What a failed filing must leave as it was. */
const footprint = async () => ({
  cases: await count('SELECT count(*) FROM iponz_cases'),
  clients: await count('SELECT count(*) FROM iponz_clients'),
  fees: await count(`SELECT count(*) FROM fee_records WHERE service = 'iponz'`),
  discussions: await count('SELECT count(*) FROM iponz_discussions'),
  documents: await count('SELECT count(*) FROM iponz_case_documents'),
  numbers: (await sandbox().query('SELECT kind, next_number FROM iponz_case_numbers ORDER BY kind')).rows,
});

describe('POST /trademark', () => {
  it('files a trade mark: number, details, fee per class, valid answer; REST sees it at once', async () => {
    const client = await t.client('trademark');
    const { result, raw } = await call(client, 'FileTradeMarkApplication', tradeMarkArgs());
    await expectValidAnswer('trademark', raw);
    expect(result.TransactionErrorCode).toBeUndefined();
    expect(result).toMatchObject({
      ApplicationReference: 'TM-REF-1',
      MarkCurrentStatusCode: 'Under Examination',
      Owner: { ClientIdentifier: 100000, ClientName: 'Kiwi Widgets Limited' },
      Fees: {
        Fee: [{ FeeCode: 'IPONZ_TRADE_MARK_APPLICATION', Quantity: 2, AmountCents: 20_000, GstCents: 3_000 }],
      },
    });
    expect(raw).toContain(`<ApplicationDate>${TODAY}</ApplicationDate>`);
    const number = Number(result.ApplicationNumber);
    expect(number).toBeGreaterThanOrEqual(1_900_000);
    const xml = await t.call('GET', `/trademarks/${number}`);
    expect(xml.statusCode, xml.body).toBe(200);
    expect(xml.body).toContain('<MarkCurrentStatusCode>Under Examination</MarkCurrentStatusCode>');
    expect(xml.body).toContain('<MarkTitle>KAURI CLOUD</MarkTitle>');
    const json = await t.call('GET', `/trademarks/${number}`, { headers: { accept: 'application/json' } });
    expect(json.json().TradeMark).toMatchObject({
      ApplicationNumber: String(number),
      GoodsAndServices: { ClassDescription: [{ ClassNumber: '9' }, { ClassNumber: '42' }] },
      Parties: { Party: [{ PartyRole: 'Owner', ClientIdentifier: '100000' }] },
    });
    // One fee record of two classes (NZ$100 each).
    expect(
      await count(
        `SELECT count(*) FROM fee_records WHERE object_id = $1 AND fee_code = 'IPONZ_TRADE_MARK_APPLICATION' AND amount_cents = 20000`,
        [String(number)],
      ),
    ).toBe(1);
  });

  it('a client id that is no client, a class twice: App Error naming the field, nothing written', async () => {
    const client = await t.client('trademark');
    const before = await footprint();
    const unknown = await call(
      client,
      'FileTradeMarkApplication',
      tradeMarkArgs({ Applicant: { ClientIdentifier: '99999999' } }),
    );
    await expectValidAnswer('trademark', unknown.raw);
    expect(unknown.result).toMatchObject({
      ApplicationReference: 'TM-REF-1',
      TransactionErrorCode: 'App Error',
      TransactionErrorField: 'Applicant.ClientIdentifier',
    });
    const twice = await call(
      client,
      'FileTradeMarkApplication',
      tradeMarkArgs({
        GoodsAndServices: {
          ClassDescription: [
            { ClassNumber: '9', Description: 'a' },
            { ClassNumber: '9', Description: 'b' },
          ],
        },
      }),
    );
    expect(twice.result.TransactionErrorField).toBe('GoodsAndServices.ClassDescription.1.ClassNumber');
    expect(await footprint()).toEqual(before);
  });

  it('a repeated TransactionIdentifier answers the first answer again and charges once', async () => {
    const client = await t.client('trademark');
    const args = tradeMarkArgs({ TransactionIdentifier: 'TX-REPEAT-1' });
    const first = await call(client, 'FileTradeMarkApplication', args);
    const fees = await count(`SELECT count(*) FROM fee_records WHERE service = 'iponz'`);
    const again = await call(client, 'FileTradeMarkApplication', args);
    expect(again.raw).toBe(first.raw);
    expect(await count(`SELECT count(*) FROM fee_records WHERE service = 'iponz'`)).toBe(fees);
    const other = await call(client, 'FileTradeMarkApplication', { ...args, MarkTitle: 'ANOTHER' });
    expect(other.result.ApplicationNumber).toBe(first.result.ApplicationNumber);
  });

  it('refuses a user not registered with the office, and a call without a user: Faults, nothing written', async () => {
    const before = await footprint();
    const stranger = await t.client('trademark', t.stranger.token);
    await expect(call(stranger, 'FileTradeMarkApplication', tradeMarkArgs())).rejects.toMatchObject({
      response: { status: 403 },
    });
    const keyOnly = await t.client('trademark', null);
    await expect(call(keyOnly, 'FileTradeMarkApplication', tradeMarkArgs())).rejects.toMatchObject({
      response: { status: 401 },
    });
    expect(await footprint()).toEqual(before);
  });

  it('a request the XSD refuses is a soap:Client Fault', async () => {
    const client = await t.client('trademark');
    const error = await call(
      client,
      'FileTradeMarkApplication',
      tradeMarkArgs({ IntendedUseCode: 'SOMEDAY' }),
    ).catch((e) => e);
    expect(error.response.status).toBe(500);
    expect(String(error.body)).toContain('soap:Client');
  });
});

describe('POST /patent', () => {
  it('files a PCT national phase with applicant details and two attachments', async () => {
    const client = await t.client('patent');
    const specification = Buffer.from('%PDF-1.4 amended specification\n'.repeat(1000));
    const translation = Buffer.from('%PDF-1.4 translation\n');
    const { result, raw } = await call(
      client,
      'FilePatentApplication',
      patentArgs({
        InternationalApplicationNumber: pct(1),
        AmendedSpecification: {
          ObjectName: 'Amended specification.pdf',
          ObjectFormat: 'pdf',
          ObjectData: specification.toString('base64'),
        },
        Translation: {
          ObjectName: 'Translation.pdf',
          ObjectFormat: 'pdf',
          ObjectData: translation.toString('base64'),
        },
      }),
    );
    await expectValidAnswer('patent', raw);
    expect(result.TransactionErrorCode, JSON.stringify(result)).toBeUndefined();
    const published = internationalApplication(1, TODAY);
    expect(result).toMatchObject({
      PatentCurrentStatusCode: 'Under Examination',
      InternationalApplicationNumber: published.internationalApplicationNumber,
      InternationalPublicationNumber: published.internationalPublicationNumber,
      PatentTitle: published.title,
      Applicant: { ClientName: 'Aroha Innovations Limited' },
    });
    expect(raw).toContain(`<CompleteFiledDate>${published.internationalFilingDate}</CompleteFiledDate>`);
    const fees = (result.Fees as { Fee: { FeeCode: string }[] }).Fee.map((f) => f.FeeCode);
    expect(fees).toEqual(['IPONZ_PATENT_APPLICATION', 'IPONZ_PATENT_EXAMINATION']);
    const number = Number(result.PatentNumber);
    expect(number).toBeGreaterThanOrEqual(900_000);
    // The new applicant is a client of the register; the case and its documents read by REST.
    const clientId = (result.Applicant as { ClientIdentifier: string }).ClientIdentifier;
    expect((await t.call('GET', `/clients/${clientId}`)).statusCode).toBe(200);
    const json = (
      await t.call('GET', `/patents/${number}`, { headers: { accept: 'application/json' } })
    ).json();
    expect(json.Patent.InternationalApplicationNumber).toBe(published.internationalApplicationNumber);
    const documents = json.Patent.Documents.Document as { ObjectIdentifier: string; ObjectName: string }[];
    expect(documents.map((d) => d.ObjectName).sort()).toEqual([
      'Amended specification.pdf',
      'Translation.pdf',
    ]);
    // The bytes are in the document store under the document identifier.
    const store = documentStoreFor(t.gateway.runtime.environments.sandbox);
    const read = async (id: string) => {
      const found = await store.get(id);
      if (!found) return undefined;
      const chunks: Buffer[] = [];
      for await (const chunk of found.stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    };
    const byName = (name: string) => documents.find((d) => d.ObjectName === name)!.ObjectIdentifier;
    expect((await read(byName('Translation.pdf')))?.equals(translation)).toBe(true);
    expect((await read(byName('Amended specification.pdf')))?.equals(specification)).toBe(true);
    // And the document download answers them by their identifiers.
    const download = await t.client('download-document');
    const [got] = await download.GetObjectAsync({ ObjectIdentifier: byName('Amended specification.pdf') });
    expect(got.ObjectName).toBe('Amended specification.pdf');
    expect(Buffer.from(got.ObjectData, 'base64').equals(specification)).toBe(true);
  });

  it('without examination: Filed, the application fee only', async () => {
    const client = await t.client('patent');
    const { result } = await call(
      client,
      'FilePatentApplication',
      patentArgs({
        InternationalApplicationNumber: pct(2),
        ExaminationRequested: false,
        Applicant: { ClientIdentifier: '100001' },
      }),
    );
    expect(result.PatentCurrentStatusCode).toBe('Filed');
    expect((result.Fees as { Fee: { FeeCode: string }[] }).Fee.map((f) => f.FeeCode)).toEqual([
      'IPONZ_PATENT_APPLICATION',
    ]);
  });

  it('App Errors write nothing: unknown, already entered, past the deadline, both applicant forms', async () => {
    const client = await t.client('patent');
    const before = await footprint();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ InternationalApplicationNumber: 'PCT/NZ2020/123456' }, /published international application/],
      [{ InternationalApplicationNumber: pct(1) }, /already entered/],
      [{ InternationalApplicationNumber: pct(PAST_DEADLINE_SERIAL - 900_000) }, /deadline/],
      [
        {
          Applicant: {
            ClientIdentifier: '100000',
            ApplicantDetails: APPLICANT_DETAILS,
          },
        },
        /either/,
      ],
    ];
    const store = documentStoreFor(t.gateway.runtime.environments.sandbox);
    const files = async () => {
      const ids: string[] = [];
      for await (const entry of store.list()) ids.push(entry.id);
      return ids.filter((id) => !id.startsWith('staged-')).sort();
    };
    const filesBefore = await files();
    const attachment = {
      AmendedSpecification: {
        ObjectName: 'A.pdf',
        ObjectFormat: 'pdf',
        ObjectData: Buffer.from('%PDF').toString('base64'),
      },
    };
    for (const [over, message] of cases) {
      const { result, raw } = await call(
        client,
        'FilePatentApplication',
        patentArgs({ ...over, ...attachment }),
      );
      await expectValidAnswer('patent', raw);
      expect(result.TransactionErrorCode).toBe('App Error');
      expect(String(result.TransactionErrorMessage)).toMatch(message);
    }
    expect(await footprint()).toEqual(before);
    // The attachments' copies are gone too (the staged bytes are the framework's to delete).
    expect(await files()).toEqual(filesBefore);
  });
});

describe('concurrency', () => {
  it('100 filings at once get 100 distinct numbers, above every generated case', async () => {
    const client = await t.client('trademark');
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        call(client, 'FileTradeMarkApplication', tradeMarkArgs({ ApplicationReference: `BULK-${i}` })),
      ),
    );
    const numbers = answers.map((a) => Number(a.result.ApplicationNumber));
    expect(numbers.every((n) => Number.isInteger(n) && n >= 1_900_000)).toBe(true);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(
      await count(
        `SELECT count(*) FROM iponz_applications WHERE client_reference LIKE 'BULK-%' AND kind = 'trademark'`,
      ),
    ).toBe(numbers.length);
  }, 120_000);
});

describe('production', () => {
  it('refuses without an organisation, then without a direct debit authority: Faults, nothing written', async () => {
    const production = t.gateway.runtime.environments.production.pool;
    const user = await signedInUser(t.gateway, 'production');
    await t.register(user.userId, 'production');
    const envelope =
      '<?xml version="1.0"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
      '<FileTradeMarkApplication xmlns="http://www.iponz.govt.nz/services"><TransactionCode>Trade Mark E-Filing</TransactionCode>' +
      '<ApplicationReference>PROD-1</ApplicationReference><ApplicationContact>Applicant</ApplicationContact>' +
      '<RegistrationOfficeCode>NZ</RegistrationOfficeCode><IntendedUseCode>YAPP</IntendedUseCode><MarkTitle>PROD</MarkTitle>' +
      '<Applicant><ClientIdentifier>100000</ClientIdentifier></Applicant><GoodsAndServices><ClassDescription>' +
      '<ClassNumber>9</ClassNumber><Description>Software</Description></ClassDescription></GoodsAndServices>' +
      '</FileTradeMarkApplication></soap:Body></soap:Envelope>';
    const file = () =>
      t.call('POST', '/gateway/iponz/v5/trademark', {
        key: t.productionKey,
        token: user.token,
        headers: { 'content-type': 'text/xml', soapaction: 'FileTradeMarkApplication' },
        payload: envelope,
      });
    const before = await fingerprint(production);
    const noOrganisation = await file();
    expect(noOrganisation.statusCode, noOrganisation.body).toBe(403);
    expect(noOrganisation.body).toContain('<ErrorCode>billing-organisation-required</ErrorCode>');
    await organisationOf(t.gateway, 'production', user.userId, 'member');
    const noAuthority = await file();
    expect(noAuthority.statusCode).toBe(403);
    expect(noAuthority.body).toContain('<ErrorCode>direct-debit-authority-required</ErrorCode>');
    expect(await fingerprint(production)).toBe(before);
  });
});
