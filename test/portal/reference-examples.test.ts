import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freezeClock } from '../../src/platform/environment-clocks.ts';
import { referenceDocument } from '../../src/portal/domain/reference-document.ts';
import {
  grantExampleEntity,
  RECORDING_SECRET,
  recorderAccess,
  recorderUser,
} from '../../src/portal/examples/access.ts';
import { etagFor, takesIfMatch } from '../../src/portal/examples/calls.ts';
import {
  exampleCall,
  RECORDED_AT,
  type RecordedExamples,
  recordExamples,
} from '../../src/portal/examples/record.ts';
import { stableAnswers } from '../../src/portal/examples/stable.ts';
import { sandboxAnswers } from '../../src/portal/operations/reference.ts';
import { presetServerSecret, seedSandbox } from '../../src/runtime.ts';
import { freshDatabases, type TestGateway, testGateway } from '../support/runtime.ts';
import { checkSchema } from './support/json-schema-check.ts';

type Json = Record<string, unknown>;

let t: TestGateway;
let databases: Awaited<ReturnType<typeof freshDatabases>>;
let documents: Map<string, Json>;
let live: RecordedExamples;
const committed = sandboxAnswers();

beforeAll(async () => {
  // The recorder's databases: a known server secret, so keyed random rounding repeats (record-cli.ts).
  databases = await freshDatabases();
  await presetServerSecret(databases, RECORDING_SECRET);
  t = await testGateway({ clockMode: 'virtual', urls: databases });
  await freezeClock(t.runtime.gateway.pool, 'sandbox', RECORDED_AT);
  await t.runtime.clocks.reload();
  const user = await recorderUser(t.runtime.gateway.pool);
  await seedSandbox(t.urls, 'small');
  documents = new Map();
  for (const service of t.runtime.services.filter((s) => s.routes)) {
    const answer = await t.app.inject({ url: `/sandbox${service.path}/openapi.json` });
    documents.set(service.id, answer.json());
  }
  await grantExampleEntity(
    t.app,
    t.runtime.gateway.pool,
    user,
    t.runtime.services,
    t.runtime.clocks.for('sandbox'),
  );
  live = await recordExamples(t.app, t.runtime.services, recorderAccess(t.app, t.runtime.gateway.pool, user));
}, 300_000);

afterAll(async () => {
  await t?.close();
  await databases?.drop();
});

const operationsOf = (document: Json): string[] =>
  Object.entries(document.paths as Json).flatMap(([path, item]) =>
    Object.keys(item as Json)
      .filter((method) => ['get', 'put', 'post', 'delete', 'patch'].includes(method))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );

function responseOf(document: Json, name: string, status: number): Json | undefined {
  const [method, ...rest] = name.split(' ');
  const operation = ((document.paths as Json)[rest.join(' ')] as Json)[method!.toLowerCase()] as Json;
  return (operation.responses as Json)[String(status)] as Json | undefined;
}

function responseSchema(document: Json, name: string, status: number, contentType: string): unknown {
  const response = responseOf(document, name, status);
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
          if (answer.contentType === '') {
            // No body: the document describes the status (and a redirect's Location was kept).
            expect(responseOf(document, name, answer.status), `${service} ${name}`).toBeDefined();
            expect(answer.body).toBe('');
            if (answer.status === 302) expect(answer.headers?.location).toMatch(/^http/);
            checked++;
            continue;
          }
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
    expect(live.nzbn!.answers['GET /authorities']?.status).toBe(200);
    // A SOAP write from the document's sample envelope, answered as XML and kept as it is.
    const filed = live.iponz!.answers['POST /patent']!;
    expect(filed.contentType).toBe('text/xml');
    expect(filed.body).toMatch(/<FilePatentApplicationResponse[\s\S]*<PatentNumber>\d+<\/PatentNumber>/);
    // A JSON write with its schema's example body (the fixture vehicle), in the throwaway sandbox.
    expect(live.ppsr!.answers['POST /financing-statements']?.status).toBe(201);
    // Conditional writes send If-Match with the ETag of what they change as last read or written: the
    // fund update with the fund's as read, the holdings with the one the update answered.
    const update =
      live.disclose!.answers['PUT /offer/{offerNumber}/fund/{fundNumber}/submit-fund-compliance'];
    const holdings =
      live.disclose!.answers['PUT /offer/{offerNumber}/fund/{fundNumber}/submit-fph-compliance'];
    expect(update?.status).toBe(200);
    expect(holdings?.status).toBe(200);
    const version = (answer: typeof update) =>
      Number(/-v(\d+)$/.exec((answer!.body as { versionId: string }).versionId)?.[1]);
    expect(version(holdings)).toBe(version(update) + 1);
  });

  it('finds the ETag a conditional write names: the longest path read that is the write’s or its parent', () => {
    const etags = new Map([
      ['/offer/OFR10001', '"offer"'],
      ['/offer/OFR10001/fund/FND10001', '"fund"'],
      ['/offer/OFR10001/fund/FND100010', '"other fund"'],
    ]);
    expect(etagFor(etags, '/offer/OFR10001/fund/FND10001/submit-fund-compliance')).toEqual([
      '/offer/OFR10001/fund/FND10001',
      '"fund"',
    ]);
    expect(etagFor(etags, '/offer/OFR10001/fund/FND10001?version=2')?.[1]).toBe('"fund"');
    expect(etagFor(etags, '/offer/OFR10002/fund/FND10001/submit-fund-compliance')).toBeUndefined();
    // An operation's x-etag-of names the resource whose ETag its If-Match holds against.
    const entity = new Map([
      ['/entities/9429000001007', '"entity"'],
      ['/entities/9429000001007/roles', '"roles list"'],
    ]);
    expect(etagFor(entity, '/entities/9429000001007/roles/7', '/entities/{nzbn}')).toEqual([
      '/entities/9429000001007',
      '"entity"',
    ]);
    expect(etagFor(entity, '/entities/9429000001007/roles/7')?.[1]).toBe('"roles list"');
    expect(takesIfMatch({ parameters: [{ in: 'header', name: 'if-match' }] })).toBe(true);
    expect(takesIfMatch({ parameters: [{ in: 'header', name: 'if-none-match' }] })).toBe(false);
  });

  it('chains what a write made into later calls, and removes only what it made', () => {
    const made = live.nzbn!.answers['POST /watchlists']!.body as { watchlistId: string };
    // A read that needs a watchlist id is made after the write, with the id its answer gave.
    expect(live.nzbn!.answers['GET /watchlists/{watchlistId}']?.request).toBe(
      `/watchlists/${made.watchlistId}`,
    );
    expect(live.nzbn!.answers['DELETE /watchlists/{watchlistId}']).toMatchObject({
      status: 204,
      request: `/watchlists/${made.watchlistId}`,
    });
    // The discharge acts on the statement the recorder registered, not on the shared fixture.
    const registered = live.ppsr!.answers['POST /financing-statements']!.body as {
      registrationNumber: string;
    };
    expect(live.ppsr!.answers['PUT /financing-statements/{registrationNumber}/discharge']?.request).toBe(
      `/financing-statements/${registered.registrationNumber}/discharge`,
    );
    // A search id chains into the list of its results.
    const searched = live.ppsr!.answers['POST /financing-statements-search']!.body as { searchId: string };
    expect(live.ppsr!.answers['GET /financing-statements']?.request).toContain(
      `search-id=${searched.searchId}`,
    );
    // A redirect is kept as its Location; a WSDL as the XML it is.
    expect(live.disclose!.answers['GET /fund/{fundNumber}/fund-update-document']).toMatchObject({
      status: 302,
      contentType: '',
      headers: { location: expect.stringMatching(/\/files\/DOC\w+\?expires=/) },
    });
    expect(live.iponz!.answers['GET /patent']?.body).toMatch(/<wsdl:definitions|<definitions/);
  });

  it('records the same bytes twice: random identifiers are renumbered in order of appearance', () => {
    const once = stableAnswers({ a: { id: 'b4f7c0de-1111-4222-8333-444455556666', secret: 'whsec_ab+c/1' } });
    expect(once).toEqual({
      a: { id: '00000000-0000-4000-8000-000000000001', secret: expect.stringMatching(/^whsec_.{6}$/) },
    });
    expect(stableAnswers({ n: 'AB12', in: '/x/AB12' }, ['AB12'])).toEqual({
      n: expect.stringMatching(/^[A-Z0-9]{4}$/),
      in: `/x/${stableAnswers({ n: 'AB12' }, ['AB12']).n}`,
    });
    // The whole recording repeats, the business authorities' start dates included (a grant is dated by
    // the sandbox's frozen clock).
    const now = JSON.stringify(live);
    const before = JSON.stringify(committed);
    // RSG_EXAMPLES_DIFF=<file> keeps the live recording to compare (a diff of 400 kB is unreadable here).
    const keep = process.env.RSG_EXAMPLES_DIFF;
    if (now !== before && keep) writeFileSync(keep, now);
    expect(now === before, 'the recording differs from the committed file').toBe(true);
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
        if (answer.contentType === '') {
          const response = (operation.responses as Json)[String(answer.status)] as Json;
          expect(response.description).toContain(`the sandbox answered \`${method} ${answer.request}\``);
          if (answer.headers?.location) {
            expect(((response.headers as Json).Location as Json).example).toBe(answer.headers.location);
          }
          continue;
        }
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
