import { Ajv } from 'ajv';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../src/platform/calendar.ts';
import { fixedCases } from '../../../src/services/iponz/sandbox/fixtures.ts';
import { type IponzTest, iponzTest, TODAY } from './support/api.ts';
import { expectValid } from './support/xsd.ts';

/**
 * The bibliographic reads: every fixed case (one per status and kind) as XML valid against its XSD,
 * served by the service itself; the singular paths; JSON on request; ETags; the date-range lists
 * (streamed) valid too; escaping of any text.
 */
let t: IponzTest;
const xsd: Record<string, string> = {};
const PATHS = { patent: '/patents', trademark: '/trademarks', design: '/designs' } as const;
const ROOT = { patent: 'Patent', trademark: 'TradeMark', design: 'Design' } as const;
const parser = new XMLParser({ parseTagValue: false });

beforeAll(async () => {
  t = await iponzTest();
  for (const file of ['patent', 'trademark', 'design']) {
    const response = await t.call('GET', `/schemas/${file}.xsd`);
    expect(response.statusCode).toBe(200);
    xsd[file] = response.body;
  }
}, 120_000);
afterAll(async () => t?.close());

describe('a case by number', () => {
  it('every fixed case answers XML valid against its kind’s XSD, with the published names', async () => {
    const cases = fixedCases(TODAY);
    expect(cases.length).toBeGreaterThan(30);
    const answers: Record<string, string[]> = { patent: [], trademark: [], design: [] };
    for (const c of cases) {
      const response = await t.call('GET', `${PATHS[c.kind]}/${c.caseNumber}`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/xml/);
      answers[c.kind]!.push(response.body);
      const doc = parser.parse(response.body)[ROOT[c.kind]];
      const status = doc.PatentCurrentStatusCode ?? doc.MarkCurrentStatusCode ?? doc.DesignCurrentStatusCode;
      expect(status).toBe(c.status);
    }
    for (const [kind, documents] of Object.entries(answers)) await expectValid(documents, xsd[kind]!, kind);
  }, 60_000);

  it('answers the singular paths the dictionaries print, the same document', async () => {
    for (const [plural, singular, number] of [
      ['/patents', '/patent', 500000],
      ['/designs', '/design', 400000],
    ] as const) {
      const a = await t.call('GET', `${plural}/${number}`);
      const b = await t.call('GET', `${singular}/${number}`);
      expect(b.statusCode).toBe(200);
      expect(b.body).toBe(a.body);
    }
  });

  it('a PCT case carries its international numbers; a trade mark its classes', async () => {
    const patent = parser.parse((await t.call('GET', '/patents/500000')).body).Patent;
    expect(patent.InternationalApplicationNumber).toMatch(/^PCT\/[A-Z]{2}\d{4}\/\d{6}$/);
    expect(patent.InternationalPublicationNumber).toMatch(/^WO\/\d{4}\/\d{6}$/);
    const mark = parser.parse((await t.call('GET', '/trademarks/1000004')).body).TradeMark;
    expect(mark.RegistrationOfficeCode).toBe('NZ');
    expect(mark.RegistrationNumber).toBe(mark.ApplicationNumber);
    expect(mark.GoodsAndServices.ClassDescription).toHaveLength(2);
  });

  it('Accept: application/json answers the same tree as JSON', async () => {
    const xml = parser.parse((await t.call('GET', '/designs/400004')).body).Design;
    const response = await t.call('GET', '/designs/400004', { headers: { accept: 'application/json' } });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const json = response.json().Design;
    expect(json.DesignIdentifier).toBe(xml.DesignIdentifier);
    expect(json.PublicationDefermentIndicator).toBe(false);
    expect(json.DesignCurrentStatusCode).toBe(xml.DesignCurrentStatusCode);
    expect(Array.isArray(json.StatusHistory.Status)).toBe(true);
  });

  it('every fixed case and a list as JSON are valid against the OpenAPI document (checked on each call)', async () => {
    for (const c of fixedCases(TODAY)) {
      const response = await t.call('GET', `${PATHS[c.kind]}/${c.caseNumber}`, {
        headers: { accept: 'application/json' },
      });
      expect(response.statusCode).toBe(200);
    }
    const list = await t.call('GET', `/trademarks?start-date=${addDays(TODAY, -365)}&end-date=${TODAY}`, {
      headers: { accept: 'application/json' },
    });
    expect(list.json().TradeMarkList.TradeMark.length).toBeGreaterThan(0);
  });

  it('ETag: If-None-Match answers 304; a changed case a new ETag', async () => {
    const first = await t.call('GET', '/patents/500001');
    const etag = String(first.headers.etag);
    const again = await t.call('GET', '/patents/500001', { headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    const json = await t.call('GET', '/patents/500001', { headers: { accept: 'application/json' } });
    expect(json.headers.etag).not.toBe(etag);
  });

  it('escapes any text and drops what XML cannot hold', async () => {
    const pool = t.gateway.runtime.environments.sandbox.pool;
    const nasty = `<b>&amp; "quoted" 'single' ]]> \u0001\u0008 𝄞 </Patent>`;
    // A generated case no test has read, so no case cache holds it.
    await pool.query(`UPDATE iponz_cases SET title = $1 WHERE kind = 'patent' AND case_number = 500150`, [
      nasty,
    ]);
    const response = await t.call('GET', '/patents/500150');
    await expectValid(response.body, xsd.patent!, 'nasty title');
    expect(parser.parse(response.body).Patent.PatentTitle).toBe(
      `<b>&amp; "quoted" 'single' ]]>  𝄞 </Patent>`,
    );
  });

  it('refuses a bad number naming the parameter; an unknown one is 404', async () => {
    for (const [path, field] of [
      ['/patents/abc', 'patent-number'],
      ['/trademarks/0', 'trademark-number'],
      ['/designs/1234567890', 'design-number'],
    ]) {
      const response = await t.call('GET', path!);
      expect(response.statusCode).toBe(400);
      expect(response.json().errors[0].field).toBe(field);
    }
    expect((await t.call('GET', '/trademarks/999999999')).statusCode).toBe(404);
  });
});

describe('date-range lists', () => {
  it('lists cases updated in the range, new applications included, valid against the XSD', async () => {
    const start = addDays(TODAY, -365);
    for (const kind of ['patent', 'trademark', 'design'] as const) {
      const response = await t.call('GET', `${PATHS[kind]}?start-date=${start}&end-date=${TODAY}`);
      expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
      await expectValid(response.body, xsd[kind]!, `${kind} list`);
      const list = parser.parse(response.body, true)[`${ROOT[kind]}List`];
      const items = [list[ROOT[kind]]].flat().filter(Boolean);
      expect(items.length).toBeGreaterThan(0);
      for (const item of items) {
        expect(item.TransactionDateTime.slice(0, 10) >= addDays(start, -1)).toBe(true);
      }
    }
  });

  it('designs registered in a range: each registration date in it', async () => {
    const start = addDays(TODAY, -5 * 365);
    const response = await t.call(
      'GET',
      `/designs?registered-start-date=${start}&registered-end-date=${addDays(start, 365)}`,
    );
    await expectValid(response.body, xsd.design!, 'registered list');
    const items = [parser.parse(response.body).DesignList.Design].flat().filter(Boolean);
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) {
      expect(item.RegistrationDate >= start && item.RegistrationDate <= addDays(start, 365)).toBe(true);
    }
  });

  it('an empty range is an empty, valid list; as JSON too', async () => {
    const response = await t.call('GET', '/patents?start-date=1970-01-01&end-date=1970-12-31');
    await expectValid(response.body, xsd.patent!, 'empty list');
    const json = await t.call('GET', '/patents?start-date=1970-01-01&end-date=1970-12-31', {
      headers: { accept: 'application/json' },
    });
    expect(json.json()).toEqual({
      PatentList: {
        DateRange: { DateType: 'Updated', StartDate: '1970-01-01', EndDate: '1970-12-31' },
        Patent: [],
      },
    });
  });

  it.each([
    ['', 'start-date'],
    ['start-date=2026-01-01', 'end-date'],
    ['start-date=2026-02-30&end-date=2026-03-01', 'start-date'],
    ['start-date=2026-03-01&end-date=2026-02-01', 'end-date'],
    ['start-date=2024-01-01&end-date=2025-12-31', 'end-date'],
    ['registered-start-date=2026-01-01&registered-end-date=2026-02-01', 'registered-start-date'],
  ])('refuses %s naming %s', async (query, field) => {
    const response = await t.call('GET', `/patents?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().errors[0].field).toBe(field);
  });
});

describe('the XSDs', () => {
  it('are served under the service and linked from the OpenAPI document', async () => {
    const doc = (await t.call('GET', '/openapi.json')).json();
    const text = JSON.stringify(doc.paths['/patents/{patentNumber}']);
    expect(text).toContain('schemas/patent.xsd');
    expect((await t.call('GET', '/schemas/nothing.xsd')).statusCode).toBe(404);
  });
});

describe('the OpenAPI document', () => {
  it('lists every operation, its path parameters, the error catalogue, and compiles every JSON schema', async () => {
    const doc = (await t.call('GET', '/openapi.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'GET /clients',
        'GET /clients/{clientId}',
        'GET /schemas/{schema}',
        'GET /patents',
        'GET /patents/{patentNumber}',
        'GET /patent/{patentNumber}',
        'GET /patents/{patentNumber}/renewal',
        'POST /patents/{patentNumber}/renew',
        'GET /trademarks',
        'GET /trademarks/{trademarkNumber}',
        'GET /trademarks/{trademarkNumber}/renewal',
        'POST /trademarks/{trademarkNumber}/renew',
        'GET /designs',
        'GET /designs/{designNumber}',
        'GET /design/{designNumber}',
        'GET /designs/{designNumber}/renewal',
        'POST /designs/{designNumber}/renew',
        'GET /trademarksearch',
        'POST /trademarksearch',
        'GET /download-document',
        'POST /download-document',
        'GET /patent',
        'POST /patent',
        'GET /trademark',
        'POST /trademark',
        'GET /taskcorrespondence',
        'POST /taskcorrespondence',
        'GET /discussioncorrespondence',
        'POST /discussioncorrespondence',
      ].sort(),
    );
    type Operation = {
      parameters?: { in: string; name: string }[];
      responses: Record<string, { content?: Record<string, { schema?: object }> }>;
    };
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
      for (const operation of Object.values(methods)) {
        const declared = (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
        expect(declared.sort(), path).toEqual([...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort());
        for (const response of Object.values(operation.responses)) {
          const schema = response.content?.['application/json']?.schema;
          if (schema) expect(() => new Ajv({ strict: false }).compile(schema), path).not.toThrow();
        }
      }
    }
    const codes = doc['x-error-codes'].map((e: { code: string; status: number }) => `${e.status} ${e.code}`);
    expect(codes).toEqual(
      expect.arrayContaining([
        '403 not-registered-user',
        '403 direct-debit-authority-required',
        '403 billing-organisation-required',
        '400 invalid-parameter',
      ]),
    );
    expect(codes).not.toContain('501 not-implemented');
  });
});
