import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as soap from 'soap';
import { startJobs } from '../../../../src/runtime.ts';
import { internationalApplication } from '../../../../src/services/iponz/sandbox/international-applications.ts';
import { WSDL_FOLDER } from '../../../../src/services/iponz/soap/endpoint.ts';
import { BASE, type IponzTest, iponzTest, TODAY } from './api.ts';
import { expectValid } from './xsd.ts';

/**
 * The IP office's gateway listening on a real port (the SOAP client reads the WSDL over HTTP), with SOAP
 * clients made from our WSDLs for a user's token, the jobs (examination simulator, emails), and helpers
 * for the filing and correspondence tests.
 */
export interface SoapTest extends IponzTest {
  base: string;
  client(endpoint: Endpoint | 'download-document', token?: string | null): Promise<soap.Client>;
  jobs: Awaited<ReturnType<typeof startJobs>>;
}

export type Endpoint = 'patent' | 'trademark' | 'taskcorrespondence' | 'discussioncorrespondence';

export const XSD_OF: Record<Endpoint, string> = {
  patent: 'patent-application.xsd',
  trademark: 'trademark-application.xsd',
  taskcorrespondence: 'task-correspondence.xsd',
  discussioncorrespondence: 'discussion-correspondence.xsd',
};

export async function soapTest(): Promise<SoapTest> {
  // The document store's folder is read from the environment (documents/location.ts).
  process.env.RSG_IPONZ_DOCUMENTS_DIR ??= path.join(tmpdir(), `rsg-iponz-documents-${process.pid}`);
  const t = await iponzTest();
  const address = await t.gateway.app.listen({ port: 0, host: '127.0.0.1' });
  const origin = address.replace('localhost', '127.0.0.1');
  const base = `${origin}${BASE}`;
  const jobs = await startJobs(t.gateway.runtime, origin);
  const test: SoapTest = {
    ...t,
    base,
    jobs,
    async client(endpoint, token = t.owner.token) {
      const headers: Record<string, string> = { 'Ocp-Apim-Subscription-Key': t.key };
      if (token) headers.authorization = `Bearer ${token}`;
      const client = await soap.createClientAsync(`${base}/${endpoint}?wsdl`, { wsdl_headers: headers });
      for (const [name, value] of Object.entries(headers)) client.addHttpHeader(name, value);
      return client;
    },
    async close() {
      await jobs.stop();
      await t.close();
    },
  };
  return test;
}

/** The body element of a SOAP envelope (what the XSD describes). */
export function bodyElement(envelope: string): string {
  const match = /<soap:Body>([\s\S]*)<\/soap:Body>/.exec(envelope);
  if (!match) throw new Error(`no soap:Body in ${envelope.slice(0, 200)}`);
  return match[1]!;
}

/** Checks an answer envelope's body against the endpoint's XSD (libxml2). */
export async function expectValidAnswer(endpoint: Endpoint, envelope: string): Promise<void> {
  const xsd = readFileSync(path.join(WSDL_FOLDER, XSD_OF[endpoint]), 'utf8');
  await expectValid(bodyElement(envelope), xsd, `${endpoint} answer`);
}

/** Calls an operation; resolves to the parsed result and the raw answer envelope. */
export async function call(
  client: soap.Client,
  operation: string,
  args: unknown,
): Promise<{ result: Record<string, unknown>; raw: string }> {
  const [result, raw] = await client[`${operation}Async`](args);
  return { result, raw };
}

/** A published international application of the sandbox, by index (0–89 enterable today). */
export const pct = (i: number) => internationalApplication(i, TODAY).internationalApplicationNumber;

/**
 * The request's fields in the XSD's order (the client writes them in key order): `over` replaces or
 * adds fields, an undefined value removes one.
 */
function ordered(order: readonly string[], fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of order) if (fields[name] !== undefined) out[name] = fields[name];
  for (const [name, value] of Object.entries(fields))
    if (!(name in out) && value !== undefined) out[name] = value;
  return out;
}

const TRADE_MARK_ORDER = [
  'TransactionIdentifier',
  'TransactionCode',
  'ApplicationReference',
  'ApplicationContact',
  'RegistrationOfficeCode',
  'IntendedUseCode',
  'MarkTitle',
  'Applicant',
  'AgentClientIdentifier',
  'GoodsAndServices',
  'MarkRepresentation',
];
const PATENT_ORDER = [
  'TransactionIdentifier',
  'TransactionCode',
  'PatentApplicationReference',
  'ApplicationContact',
  'ExaminationRequested',
  'InternationalApplicationNumber',
  'PatentTitle',
  'Applicant',
  'AgentClientIdentifier',
  'AmendedSpecification',
  'Translation',
];

export const tradeMarkArgs = (over: Record<string, unknown> = {}) =>
  ordered(TRADE_MARK_ORDER, {
    TransactionCode: 'Trade Mark E-Filing',
    ApplicationReference: 'TM-REF-1',
    ApplicationContact: 'Applicant',
    RegistrationOfficeCode: 'NZ',
    IntendedUseCode: 'YAPP',
    MarkTitle: 'KAURI CLOUD',
    Applicant: { ClientIdentifier: '100000' },
    GoodsAndServices: {
      ClassDescription: [
        { ClassNumber: '9', Description: 'Computer software' },
        { ClassNumber: '42', Description: 'Software as a service' },
      ],
    },
    ...over,
  });

export const APPLICANT_DETAILS = {
  Name: 'Aroha Innovations Limited',
  ClientType: 'Organisation',
  Address: { AddressLine1: '12 Tory Street', City: 'Wellington', CountryCode: 'NZ' },
};

export const patentArgs = (over: Record<string, unknown> = {}) =>
  ordered(PATENT_ORDER, {
    TransactionCode: 'Patent E-Filing',
    PatentApplicationReference: 'P-REF-1',
    ApplicationContact: 'Applicant',
    ExaminationRequested: true,
    InternationalApplicationNumber: pct(0),
    Applicant: { ApplicantDetails: APPLICANT_DETAILS },
    ...over,
  });
