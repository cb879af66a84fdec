import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import soap from 'soap';
import { expect } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import type { AppOptions } from '../../../../src/app.ts';
import { BASE, type IponzTest, iponzTest } from './api.ts';

/**
 * The IP office's gateway listening on a real socket, for the `soap` package's client (it reads our WSDL
 * and its XSDs over HTTP with the subscription key), documents in a temporary folder; and validation of
 * a SOAP answer's body element against the endpoint's XSDs with libxml2 (xmllint-wasm).
 */
export const SERVICES_NS = 'http://www.iponz.govt.nz/services';

export interface SoapTest {
  t: IponzTest;
  /** http://127.0.0.1:port/sandbox/iponz/v5 */
  base: string;
  documentsDir: string;
  client(endpoint: string, key?: string): Promise<soap.Client>;
  /** POSTs a hand-built body. */
  post(endpoint: string, body: string | Buffer, headers?: Record<string, string>): Promise<Response>;
  xsds(endpoint: string, files: readonly string[]): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export async function soapTest(env: Record<string, string> = {}, app?: AppOptions): Promise<SoapTest> {
  const documentsDir = await mkdtemp(path.join(tmpdir(), 'rsg-iponz-documents-'));
  process.env.RSG_IPONZ_DOCUMENTS_DIR = documentsDir;
  const t = await iponzTest(app ? { env, app } : { env });
  const address = await t.gateway.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `${address}${BASE}`;
  const headers = (key: string) => ({ 'Ocp-Apim-Subscription-Key': key });
  return {
    t,
    base,
    documentsDir,
    async client(endpoint, key = t.key) {
      const client = await soap.createClientAsync(`${base}${endpoint}?wsdl`, { wsdl_headers: headers(key) });
      client.addHttpHeader('Ocp-Apim-Subscription-Key', key);
      return client;
    },
    post: (endpoint, body, extra = {}) =>
      fetch(`${base}${endpoint}`, {
        method: 'POST',
        headers: { ...headers(t.key), 'content-type': 'text/xml; charset=utf-8', ...extra },
        body,
      }),
    async xsds(endpoint, files) {
      const out: Record<string, string> = {};
      for (const file of files) {
        const response = await fetch(`${base}${endpoint}?xsd=${file}`, { headers: headers(t.key) });
        expect(response.status).toBe(200);
        out[file] = await response.text();
      }
      return out;
    },
    async close() {
      await t.close();
      await rm(documentsDir, { recursive: true, force: true });
    },
  };
}

/** The body element of an answer envelope, as a document of its own (it declares its namespaces). */
export function bodyElement(envelope: string): string {
  const start = envelope.indexOf('<soap:Body>');
  const end = envelope.lastIndexOf('</soap:Body>');
  expect(start, envelope.slice(0, 300)).toBeGreaterThan(0);
  return envelope.slice(start + '<soap:Body>'.length, end);
}

/** Validates body elements against `main` of the XSDs (their imports resolved to the other files). */
export async function expectValidAnswer(
  documents: string | readonly string[],
  xsds: Record<string, string>,
  main: string,
): Promise<void> {
  const local = (text: string) => text.replace(/schemaLocation="[^"]*\?xsd=([^"]+)"/g, 'schemaLocation="$1"');
  const list = typeof documents === 'string' ? [documents] : documents;
  const result = await validateXML({
    xml: list.map((contents, i) => ({ fileName: `answer-${i}.xml`, contents })),
    schema: [{ fileName: main, contents: local(xsds[main]!) }],
    preload: Object.entries(xsds)
      .filter(([file]) => file !== main)
      .map(([fileName, contents]) => ({ fileName, contents: local(contents) })),
  });
  expect(result.valid, result.errors.map((e) => `${e.loc?.fileName ?? ''} ${e.message}`).join('; ')).toBe(
    true,
  );
}

/** A SOAP 1.1 envelope around a body. */
export const envelopeOf = (body: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>${body}</soap:Body></soap:Envelope>`;

/** A search request envelope around criteria XML. */
export const searchEnvelope = (criteria: string): string =>
  envelopeOf(
    `<ListTrademarks xmlns="${SERVICES_NS}"><ListTradeMarks><ListTradeMarksBody><ListTradeMarksContentDetails><TradeMarkSearchCriteria>${criteria}</TradeMarkSearchCriteria></ListTradeMarksContentDetails></ListTradeMarksBody></ListTradeMarks></ListTrademarks>`,
  );
