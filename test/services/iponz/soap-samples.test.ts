import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WSDL_FOLDER } from '../../../src/services/iponz/soap/endpoint.ts';
import { type SoapTest, soapTest } from './support/soap-filing.ts';

/**
 * The sample envelope of every SOAP operation (`wsdl/samples/<endpoint>.<operation>.xml`, shown with a
 * try-it in the portal's reference): one per operation of every WSDL, each in the OpenAPI document as an
 * example of its endpoint, and each answered by the sandbox (HTTP 200, no Fault) when posted as it is,
 * with the caller's own requestor identifier put in.
 */
const SAMPLES = path.join(WSDL_FOLDER, 'samples');
const samples = readdirSync(SAMPLES)
  .filter((name) => name.endsWith('.xml'))
  .map((name) => {
    const [endpoint, operation] = name.replace(/\.xml$/, '').split('.') as [string, string];
    return { name, endpoint, operation, xml: readFileSync(path.join(SAMPLES, name), 'utf8') };
  });

const operationsOf = (wsdl: string) => [
  ...new Set([...wsdl.matchAll(/<wsdl:operation name="([A-Za-z]+)"/g)].map((m) => m[1]!)),
];

let t: SoapTest;
beforeAll(async () => {
  t = await soapTest();
}, 300_000);
afterAll(async () => t?.close());

describe('sample envelopes', () => {
  it('exist for every operation of every WSDL, and for nothing else', () => {
    const expected = readdirSync(WSDL_FOLDER)
      .filter((name) => name.endsWith('.wsdl'))
      .flatMap((name) =>
        operationsOf(readFileSync(path.join(WSDL_FOLDER, name), 'utf8')).map(
          (operation) => `${name.replace(/\.wsdl$/, '')}.${operation}.xml`,
        ),
      )
      .sort();
    expect(samples.map((s) => s.name).sort()).toEqual(expected);
  });

  it('are the examples of their endpoints in the OpenAPI document, with the SOAPAction to send', async () => {
    const document = (await t.call('GET', '/openapi.json')).json();
    for (const sample of samples) {
      const post = document.paths[`/${sample.endpoint}`]?.post;
      expect(post, sample.endpoint).toBeDefined();
      const example = post.requestBody.content['text/xml'].examples[sample.operation];
      expect(example?.value, sample.name).toBe(sample.xml);
      const action = post.parameters.find(
        (p: { name: string; in: string }) => p.in === 'header' && p.name === 'SOAPAction',
      );
      expect(action.schema.enum, sample.endpoint).toContain(sample.operation);
    }
  });

  it.each(samples.map((s) => [s.name, s] as const))(
    '%s is answered by the sandbox without a Fault',
    async (_, sample) => {
      const response = await fetch(`${t.base}/${sample.endpoint}`, {
        method: 'POST',
        headers: {
          'Ocp-Apim-Subscription-Key': t.key,
          authorization: `Bearer ${t.owner.token}`,
          'content-type': 'text/xml; charset=utf-8',
          SOAPAction: sample.operation,
        },
        body: sample.xml.replaceAll('REQUESTOR-IDENTIFIER', t.owner.userId),
      });
      const text = await response.text();
      expect(response.status, text.slice(0, 500)).toBe(200);
      expect(text).not.toContain('Fault>');
    },
  );
});
