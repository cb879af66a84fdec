import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { expectValid } from './support/xsd.ts';

/**
 * Overseas applicants from outside: a trade mark filed through the `soap` client for an applicant in
 * Sydney (country and postcode in the request), read back as REST XML (valid against the served XSD,
 * the owner's country on its party) and JSON, and the new client's record with its country and postcode;
 * the PCT national phase request alone still needs a New Zealand applicant; a broken postcode is an App
 * Error naming the field; each refusal writes nothing.
 */
let t: SoapTest;
beforeAll(async () => {
  t = await soapTest();
}, 300_000);
afterAll(async () => t?.close());

const SYDNEY = {
  Name: 'Wattle Robotics Pty Ltd',
  ClientType: 'Organisation',
  Address: { AddressLine1: '1 George Street', City: 'Sydney', Postcode: '2000', CountryCode: 'AU' },
};
const sandbox = () => t.gateway.runtime.environments.sandbox.pool;
const footprint = async () =>
  (
    await sandbox().query(
      `SELECT (SELECT count(*) FROM iponz_cases) AS cases, (SELECT count(*) FROM iponz_clients) AS clients,
         (SELECT count(*) FROM fee_records WHERE service = 'iponz') AS fees`,
    )
  ).rows[0];

describe('an overseas applicant', () => {
  let applicantId: number;

  it("files a trade mark; the case and the new client carry the applicant's country and postcode", async () => {
    const client = await t.client('trademark');
    const { result, raw } = await call(
      client,
      'FileTradeMarkApplication',
      tradeMarkArgs({ Applicant: { ApplicantDetails: SYDNEY }, MarkTitle: 'WATTLE BOTS' }),
    );
    await expectValidAnswer('trademark', raw);
    expect(result.TransactionErrorCode, String(result.TransactionErrorMessage)).toBeUndefined();
    const owner = result.Owner as { ClientIdentifier: number; ClientName: string };
    expect(owner.ClientName).toBe('Wattle Robotics Pty Ltd');
    applicantId = Number(owner.ClientIdentifier);
    const number = Number(result.ApplicationNumber);

    const xsd = (await t.call('GET', '/schemas/trademark.xsd')).body;
    const xml = await t.call('GET', `/trademarks/${number}`);
    expect(xml.statusCode).toBe(200);
    await expectValid(xml.body, xsd, 'overseas owner');
    expect(xml.body).toMatch(
      new RegExp(
        `<PartyRole>Owner</PartyRole><ClientIdentifier>${applicantId}</ClientIdentifier><ClientName>Wattle Robotics Pty Ltd</ClientName><CountryCode>AU</CountryCode>`,
      ),
    );
    const json = await t.call('GET', `/trademarks/${number}`, { headers: { accept: 'application/json' } });
    expect(json.json().TradeMark.Parties.Party).toEqual([
      {
        PartyRole: 'Owner',
        ClientIdentifier: String(applicantId),
        ClientName: 'Wattle Robotics Pty Ltd',
        CountryCode: 'AU',
      },
    ]);

    const record = await t.call('GET', `/clients/${applicantId}`);
    expect(record.statusCode).toBe(200);
    expect(record.json().addresses).toEqual([
      expect.objectContaining({
        addressType: 'physical',
        city: 'Sydney',
        postcode: '2000',
        countryCode: 'AU',
      }),
      expect.objectContaining({
        addressType: 'service',
        city: 'Sydney',
        postcode: '2000',
        countryCode: 'AU',
      }),
    ]);
    const found = await t.call('GET', '/clients?name=wattle%25pty&address=George%25Sydney');
    expect(found.json().clients).toEqual([expect.objectContaining({ clientId: String(applicantId) })]);
  });

  it('a New Zealand client of the register answers its country (NZ) and its postcode (none)', async () => {
    const record = await t.call('GET', '/clients/100000');
    for (const address of record.json().addresses)
      expect(address).toMatchObject({ countryCode: 'NZ', postcode: null });
  });

  it('the PCT national phase still needs a New Zealand applicant: App Error naming the field, nothing written', async () => {
    const client = await t.client('patent');
    const before = await footprint();
    const details = await call(
      client,
      'FilePatentApplication',
      patentArgs({ InternationalApplicationNumber: pct(20), Applicant: { ApplicantDetails: SYDNEY } }),
    );
    await expectValidAnswer('patent', details.raw);
    expect(details.result).toMatchObject({
      TransactionErrorCode: 'App Error',
      TransactionErrorField: 'Applicant.Address.CountryCode',
    });
    const byId = await call(
      client,
      'FilePatentApplication',
      patentArgs({
        InternationalApplicationNumber: pct(20),
        Applicant: { ClientIdentifier: String(applicantId) },
      }),
    );
    expect(byId.result).toMatchObject({
      TransactionErrorCode: 'App Error',
      TransactionErrorField: 'Applicant.ClientIdentifier',
    });
    expect(await footprint()).toEqual(before);
  });

  it("a postcode that breaks its country's rule: App Error naming it, nothing written", async () => {
    const client = await t.client('trademark');
    const before = await footprint();
    // A New Zealand postcode is four digits (the elements in the XSD's order).
    const { CountryCode, ...lines } = APPLICANT_DETAILS.Address;
    const nz = { ...APPLICANT_DETAILS, Address: { ...lines, Postcode: '60', CountryCode } };
    const { result, raw } = await call(
      client,
      'FileTradeMarkApplication',
      tradeMarkArgs({ Applicant: { ApplicantDetails: nz } }),
    );
    await expectValidAnswer('trademark', raw);
    expect(result).toMatchObject({
      TransactionErrorCode: 'App Error',
      TransactionErrorField: 'Applicant.Address.Postcode',
    });
    expect(await footprint()).toEqual(before);
  });
});
