import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WSDL_FOLDER } from '../../../src/services/iponz/soap/endpoint.ts';
import { type FingerprintedTables, fingerprint } from '../../support/fingerprint.ts';
import { type IponzTest, iponzTest } from './support/api.ts';
import { SOAP_OPERATIONS } from './support/soap-operations.ts';

/**
 * The conformance matrix's SOAP half: every operation of every WSDL the register serves (read from the
 * served WSDLs: the endpoints are the OpenAPI document's POSTs that take text/xml), each with an entry in
 * support/soap-operations.ts. Per operation, its sample envelope (wsdl/samples/) sent
 *
 * - with a SOAPAction naming no operation → the `unknown-soap-action` fault, nothing written;
 * - with one of its elements broken against the XSD → the `invalid-request` fault naming the element,
 *   nothing written (the register's tables and the fee records are fingerprinted).
 */
let t: IponzTest;
let documentsDir: string;
let tables: FingerprintedTables;
let served: { endpoint: string; operation: string; soapAction: string }[] = [];

const bindingOperations = (wsdl: string) =>
  [...wsdl.matchAll(/<wsdl:operation name="([A-Za-z]+)">\s*<soap:operation soapAction="([^"]*)"/g)].map(
    (match) => ({ operation: match[1]!, soapAction: match[2]! }),
  );

beforeAll(async () => {
  documentsDir = await mkdtemp(path.join(tmpdir(), 'rsg-iponz-documents-'));
  process.env.RSG_IPONZ_DOCUMENTS_DIR = documentsDir;
  t = await iponzTest();
  tables = {
    pool: t.gateway.runtime.environments.sandbox.pool,
    prefixes: ['iponz_'],
    tables: ['fee_records'],
  };
  const document = (await t.call('GET', '/openapi.json')).json();
  const endpoints = Object.entries(
    document.paths as Record<string, { post?: { requestBody?: { content?: object } } }>,
  )
    .filter(
      ([, methods]) => methods.post?.requestBody?.content && 'text/xml' in methods.post.requestBody.content,
    )
    .map(([endpoint]) => endpoint.slice(1));
  for (const endpoint of endpoints) {
    const wsdl = await t.call('GET', `/${endpoint}?wsdl`);
    expect(wsdl.statusCode, endpoint).toBe(200);
    served = served.concat(bindingOperations(wsdl.body).map((o) => ({ endpoint, ...o })));
  }
}, 300_000);
afterAll(async () => {
  await t?.close();
  if (documentsDir) await rm(documentsDir, { recursive: true, force: true });
});

const sampleOf = (endpoint: string, operation: string, owner: string) =>
  readFileSync(path.join(WSDL_FOLDER, 'samples', `${endpoint}.${operation}.xml`), 'utf8').replaceAll(
    'REQUESTOR-IDENTIFIER',
    owner,
  );

const post = (endpoint: string, envelope: string, soapAction: string) =>
  t.call('POST', `/${endpoint}`, {
    token: t.owner.token,
    headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${soapAction}"` },
    payload: envelope,
  });

const errorCodeOf = (body: string) => /<ErrorCode>([^<]*)<\/ErrorCode>/.exec(body)?.[1];

describe('the list beside the WSDLs', () => {
  it('has an entry for every served SOAP operation, and none for an operation not served', () => {
    const keys = served.map((o) => `${o.endpoint} ${o.operation}`).sort();
    expect(keys.length).toBeGreaterThan(0);
    expect(Object.keys(SOAP_OPERATIONS).sort()).toEqual(keys);
  });
});

describe('every SOAP operation', () => {
  it.each(Object.keys(SOAP_OPERATIONS))('%s: a wrong SOAPAction is a fault, writing nothing', async (key) => {
    const operation = served.find((o) => `${o.endpoint} ${o.operation}` === key);
    expect(operation, `${key} is served`).toBeDefined();
    const { endpoint } = operation!;
    const before = await fingerprint(tables);
    const response = await post(
      endpoint,
      sampleOf(endpoint, operation!.operation, t.owner.userId),
      'NoSuchAction',
    );
    const label = `${key}: ${response.statusCode} ${response.body.slice(0, 400)}`;
    expect(response.statusCode, label).toBe(500);
    expect(response.headers['content-type'], label).toMatch(/^text\/xml/);
    expect(response.body, label).toContain('<faultcode>soap:Client</faultcode>');
    expect(errorCodeOf(response.body), label).toBe('unknown-soap-action');
    expect(await fingerprint(tables), `${label}: nothing written`).toBe(before);
  });

  it.each(Object.keys(SOAP_OPERATIONS))(
    '%s: an envelope the XSD refuses is a fault naming the element, writing nothing',
    async (key) => {
      const operation = served.find((o) => `${o.endpoint} ${o.operation}` === key);
      expect(operation, `${key} is served`).toBeDefined();
      const { endpoint, soapAction } = operation!;
      const { element, value } = SOAP_OPERATIONS[key]!;
      const sample = sampleOf(endpoint, operation!.operation, t.owner.userId);
      const pattern = new RegExp(`<${element}>[^<]*</${element}>`);
      expect(sample, `${key}: the sample holds ${element}`).toMatch(pattern);
      const broken = sample.replace(pattern, `<${element}>${value}</${element}>`);
      const before = await fingerprint(tables);
      const response = await post(endpoint, broken, soapAction);
      const label = `${key}: ${response.statusCode} ${response.body.slice(0, 400)}`;
      expect(response.statusCode, label).toBe(500);
      expect(response.body, label).toContain('<faultcode>soap:Client</faultcode>');
      expect(errorCodeOf(response.body), label).toBe('invalid-request');
      expect(/<faultstring>([^<]*)<\/faultstring>/.exec(response.body)?.[1], label).toContain(element);
      expect(await fingerprint(tables), `${label}: nothing written`).toBe(before);
    },
  );
});
