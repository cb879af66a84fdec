import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setClock } from '../../src/platform/clock-store.ts';
import { grantExampleEntity, recorderAccess, recorderUser } from '../../src/portal/examples/access.ts';
import {
  exampleCall,
  RECORDED_AT,
  type RecordedExamples,
  recordExamples,
} from '../../src/portal/examples/record.ts';
import { sandboxAnswers } from '../../src/portal/reference.ts';
import { referenceDocument } from '../../src/portal/reference-document.ts';
import { seedSandbox } from '../../src/runtime.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { checkSchema } from './json-schema-check.ts';

type Json = Record<string, unknown>;

let t: TestGateway;
let documents: Map<string, Json>;
let live: RecordedExamples;
const committed = sandboxAnswers();

beforeAll(async () => {
  t = await testGateway({ clockMode: 'virtual' });
  await setClock(t.runtime.gateway.pool, 'sandbox', RECORDED_AT);
  await t.runtime.clocks.reload();
  const user = await recorderUser(t.runtime.gateway.pool);
  await seedSandbox(t.urls, 'small');
  documents = new Map();
  for (const service of t.runtime.services.filter((s) => s.routes)) {
    const answer = await t.app.inject({ url: `/sandbox${service.path}/openapi.json` });
    documents.set(service.id, answer.json());
  }
  await grantExampleEntity(t.app, t.runtime.gateway.pool, user, t.runtime.services);
  live = await recordExamples(t.app, t.runtime.services, recorderAccess(t.app, t.runtime.gateway.pool, user));
}, 300_000);

afterAll(async () => {
  await t?.close();
});

const operationsOf = (document: Json): string[] =>
  Object.entries(document.paths as Json).flatMap(([path, item]) =>
    Object.keys(item as Json)
      .filter((method) => ['get', 'put', 'post', 'delete', 'patch'].includes(method))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );

function responseSchema(document: Json, name: string, status: number, contentType: string): unknown {
  const [method, ...rest] = name.split(' ');
  const operation = ((document.paths as Json)[rest.join(' ')] as Json)[method!.toLowerCase()] as Json;
  const response = (operation.responses as Json)[String(status)] as Json | undefined;
  return ((response?.content as Json | undefined)?.[contentType] as Json | undefined)?.schema;
}

describe('response examples from real sandbox answers', () => {
  it('accounts for every operation of every built service: an answer, or why there is none', () => {
    expect(Object.keys(committed).sort()).toEqual([...documents.keys()].sort());
    for (const [service, document] of documents) {
      const { answers, missing } = committed[service]!;
      const accounted = [...Object.keys(answers), ...Object.keys(missing)].sort();
      expect(accounted, service).toEqual(operationsOf(document).sort());
      for (const reason of Object.values(missing)) expect(reason.length).toBeGreaterThan(10);
    }
  });

  it('the committed file is current: recording again answers the same operations', () => {
    for (const service of documents.keys()) {
      expect(Object.keys(live[service]!.answers).sort(), service).toEqual(
        Object.keys(committed[service]!.answers).sort(),
      );
      expect(live[service]!.missing, service).toEqual(committed[service]!.missing);
    }
  });

  it('every recorded answer (committed and live) fits its operation’s response schema', () => {
    let checked = 0;
    for (const recorded of [committed, live]) {
      for (const [service, document] of documents) {
        for (const [name, answer] of Object.entries(recorded[service]!.answers)) {
          const schema = responseSchema(document, name, answer.status, answer.contentType);
          expect(
            schema,
            `${service} ${name}: no schema for ${answer.status} ${answer.contentType}`,
          ).toBeDefined();
          expect(checkSchema(schema, answer.body, document), `${service} ${name}`).toEqual([]);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('sends what an operation needs: x-organisation, a user’s token, a SOAP sample with its SOAPAction', () => {
    // The offers register refuses a call without x-organisation; these answered with it.
    expect(live.disclose!.answers['GET /offers']?.status).toBe(200);
    // Three-legged: the gateway refused the key alone, the recorder's user's token was accepted.
    expect(live.nzbn!.answers['GET /entities/{nzbn}/authorities']?.status).toBe(200);
    // A SOAP write from the document's sample envelope, answered as XML and kept as it is.
    const filed = live.iponz!.answers['POST /patent']!;
    expect(filed.contentType).toBe('text/xml');
    expect(filed.body).toMatch(/<FilePatentApplicationResponse[\s\S]*<PatentNumber>\d+<\/PatentNumber>/);
    // A JSON write with its schema's example body (the fixture vehicle), in the throwaway sandbox.
    expect(live.ppsr!.answers['POST /financing-statements']?.status).toBe(201);
    // A write without an example body is not called.
    expect(live.ppsr!.missing['PUT /financing-statements/{registrationNumber}/renew']).toMatch(
      /^not called: the document gives no example body/,
    );
  });

  it('takes the SOAPAction from the example’s name and every query example, required or not', () => {
    const operation = {
      parameters: [
        { in: 'header', name: 'SOAPAction', required: true, schema: { type: 'string', enum: ['A', 'B'] } },
        { in: 'query', name: 'from', schema: { type: 'string', examples: ['2026-06-01'] } },
        { in: 'query', name: 'page', schema: { type: 'string' } },
        { in: 'path', name: 'n', schema: { type: 'string', examples: ['5'] } },
      ],
    };
    expect(exampleCall('/x/{n}', operation)).toEqual({
      missing: 'the document gives no example for the required header parameter SOAPAction',
    });
    expect(exampleCall('/x/{n}', operation, { SOAPAction: 'B' })).toEqual({
      url: '/x/5?from=2026-06-01',
      headers: {},
    });
  });

  it('the schema check refuses what does not fit', () => {
    const document = {
      components: {
        schemas: {
          N: {
            type: 'object',
            required: ['n'],
            properties: { n: { type: 'integer' } },
            additionalProperties: false,
          },
        },
      },
    };
    const schema = { $ref: '#/components/schemas/N' };
    expect(checkSchema(schema, { n: 1 }, document)).toEqual([]);
    expect(checkSchema(schema, { n: 1.5 }, document)).toEqual(['$.n: is number, not integer']);
    expect(checkSchema(schema, {}, document)).toEqual(['$.n: is required']);
    expect(checkSchema(schema, { n: 1, m: 2 }, document)).toEqual(['$.m: is not allowed']);
    expect(checkSchema({ unknownKeyword: 1 }, 1, document)).toEqual([
      '$: the checker does not know the keyword unknownKeyword',
    ]);
  });

  it('the reference shows each answer as its response’s example', async () => {
    for (const [service, document] of documents) {
      const prepared = referenceDocument(document, committed[service]!.answers)!;
      for (const [name, answer] of Object.entries(committed[service]!.answers)) {
        const [method, ...rest] = name.split(' ');
        const operation = ((prepared.paths as Json)[rest.join(' ')] as Json)[method!.toLowerCase()] as Json;
        const media = (((operation.responses as Json)[String(answer.status)] as Json).content as Json)[
          answer.contentType
        ] as Json;
        expect((media.examples as Json).sandbox).toMatchObject({
          summary: 'A real sandbox answer',
          value: answer.body,
        });
        expect(media.example).toBeUndefined();
      }
    }
    // And the portal serves it so.
    const served = await t.app.inject({ url: '/portal/products/sandbox-nzbn/openapi.json' });
    const entity = served.json().paths['/entities/{nzbn}'].get.responses['200'].content['application/json']
      .examples.sandbox as Json;
    expect(entity.value).toEqual(committed.nzbn!.answers['GET /entities/{nzbn}']!.body);
  });
});
