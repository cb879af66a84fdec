import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAMED_BODY } from '../../../src/gateway/domain/inspector.ts';
import { titleWords } from '../../../src/services/iponz/domain/title-query.ts';
import { SEARCH_CAP } from '../../../src/services/iponz/domain/trademark-search.ts';
import {
  bodyElement,
  envelopeOf,
  expectValidAnswer,
  SERVICES_NS,
  type SoapTest,
  searchEnvelope,
  soapTest,
} from './support/soap-client.ts';

/**
 * The trade mark search (POST /trademarksearch) through the `soap` package's client reading our WSDL,
 * every answer valid against the XSDs; filters; the 2,000 cap; application errors (HTTP 200, the
 * published flags) against faults (HTTP 500); the same search as REST JSON; one state with REST (a
 * renewal paid by REST shows in the search).
 */
let s: SoapTest;
let xsds: Record<string, string>;
const parser = new XMLParser({
  parseTagValue: false,
  removeNSPrefix: true,
  htmlEntities: true,
  isArray: (name) => name === 'TradeMark',
});
const answers: string[] = [];

const criteria = (inner: Record<string, unknown>) => ({
  ListTradeMarks: {
    ListTradeMarksBody: { ListTradeMarksContentDetails: { TradeMarkSearchCriteria: inner } },
  },
});

async function search(inner: Record<string, unknown>) {
  const client = await s.client('/trademarksearch');
  const [, raw] = await client.ListTrademarksAsync(criteria(inner));
  const body = bodyElement(raw as string);
  answers.push(body);
  return parser.parse(body).ListTrademarksResponse;
}

beforeAll(async () => {
  s = await soapTest();
  xsds = await s.xsds('/trademarksearch', ['trademark-search.xsd', 'trademark-list-v1.xsd']);
}, 120_000);
afterAll(async () => {
  if (answers.length) await expectValidAnswer(answers, xsds, 'trademark-search.xsd');
  await s?.close();
});

describe('the WSDL', () => {
  it('is served with its address and schema imports at the caller’s base URL', async () => {
    const response = await fetch(`${s.base}/trademarksearch?wsdl`, {
      headers: { 'Ocp-Apim-Subscription-Key': s.t.key },
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain(`<soap:address location="${s.base}/trademarksearch"/>`);
    expect(text).toContain(`schemaLocation="${s.base}/trademarksearch?xsd=trademark-search.xsd"`);
    expect(xsds['trademark-search.xsd']).toContain('targetNamespace="http://www.iponz.govt.nz/services"');
    expect(xsds['trademark-list-v1.xsd']).toContain(
      'targetNamespace="http://www.iponz.govt.nz/XMLSchema/trademarks/listv1"',
    );
  });

  it('without a key it is the gateway’s refusal (API Management’s body)', async () => {
    const response = await fetch(`${s.base}/trademarksearch?wsdl`);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { statusCode: number }).statusCode).toBe(401);
  });

  it('the OpenAPI document lists the SOAP operations, linking the WSDL', async () => {
    const doc = (await s.t.call('GET', '/openapi.json')).json();
    const post = doc.paths['/trademarksearch'].post;
    expect(post.externalDocs.url).toBe('trademarksearch?wsdl');
    expect(post.description).toMatch(/see the WSDL/);
    expect(doc.paths['/download-document'].post.externalDocs.url).toBe('download-document?wsdl');
  });
});

describe('through the SOAP client', () => {
  it('a one-word title with a wildcard: matching marks, ClientRef echoed, by number', async () => {
    const answer = await search({ ClientRef: 'my ref & co', Title: 'kiw*' });
    expect(answer.ClientRef).toBe('my ref & co');
    expect(answer.appErrorEncountered).toBe('false');
    expect(answer.faultErrorEncountered).toBe('false');
    const marks = answer.ListTradeMarksResponseData.TradeMark;
    expect(marks.length).toBeGreaterThan(0);
    expect(Number(answer.ResultCount)).toBe(marks.length);
    for (const mark of marks) expect(mark.MarkTitle).toMatch(/(^|[^A-Za-z0-9])kiw[A-Za-z0-9]*/i);
    const numbers = marks.map((m: { ApplicationNumber: string }) => Number(m.ApplicationNumber));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    const direct = await s.t.gateway.runtime.environments.sandbox.pool.query(
      `SELECT count(*)::int AS n FROM iponz_cases WHERE kind = 'trademark' AND title ~* '(^|[^[:alnum:]])kiw[[:alnum:]]*'`,
    );
    expect(marks.length).toBe(direct.rows[0].n);
  });

  it('no match: an empty ListTradeMarksResponseData', async () => {
    const client = await s.client('/trademarksearch');
    const [, raw] = await client.ListTrademarksAsync(criteria({ Title: 'zzyzx*' }));
    expect(raw).toMatch(/<ListTradeMarksResponseData xmlns="[^"]+"(\/>|><\/ListTradeMarksResponseData>)/);
    const answer = parser.parse(bodyElement(raw)).ListTrademarksResponse;
    expect(answer.ResultCount).toBe('0');
    expect(answer.MoreResultsAvailable).toBe('false');
    answers.push(bodyElement(raw));
  });

  it('filters: statuses, filing dates, nature and type, owner', async () => {
    const pool = s.t.gateway.runtime.environments.sandbox.pool;
    const answer = await search({
      StatusList: { StatusID: ['Registered', 'Accepted'] },
      FilingDateRange: { FromDate: '2010-01-01', ToDate: '2026-06-15' },
    });
    const marks = answer.ListTradeMarksResponseData.TradeMark;
    const expected = await pool.query(
      `SELECT case_number FROM iponz_cases WHERE kind = 'trademark' AND status IN ('Registered', 'Accepted')
       AND application_date BETWEEN '2010-01-01' AND '2026-06-15' ORDER BY case_number`,
    );
    expect(marks.map((m: { ApplicationNumber: string }) => Number(m.ApplicationNumber))).toEqual(
      expected.rows.map((r) => r.case_number),
    );
    const mix = await pool.query(
      `SELECT mark_nature, mark_type, count(*)::int AS n FROM iponz_cases WHERE kind = 'trademark'
       GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    const natures = new Set(mix.rows.map((r) => r.mark_nature));
    expect(natures, JSON.stringify(mix.rows)).toEqual(
      new Set(['Trade Mark', 'Collective Mark', 'Certification Mark']),
    );
    for (const row of mix.rows) {
      const answer = await search({ MarkNature: row.mark_nature, MarkType: row.mark_type });
      expect(Number(answer.ResultCount), `${row.mark_nature} ${row.mark_type}`).toBe(row.n);
      for (const mark of answer.ListTradeMarksResponseData.TradeMark) {
        expect(mark.MarkNature).toBe(row.mark_nature);
        expect(mark.MarkType).toBe(row.mark_type);
      }
    }
    const owner = await pool.query(
      `SELECT client_id, count(*)::int AS n FROM iponz_case_parties WHERE kind = 'trademark' AND role = 'Owner'
       GROUP BY client_id ORDER BY n DESC, client_id LIMIT 1`,
    );
    const owned = await search({ OwnerClientID: String(owner.rows[0].client_id) });
    expect(Number(owned.ResultCount)).toBe(owner.rows[0].n);
    const registered = await search({ RegisterDateRange: { FromDate: '2020-01-01', ToDate: '2020-12-31' } });
    for (const mark of registered.ListTradeMarksResponseData.TradeMark ?? [])
      expect(mark.RegistrationDate.startsWith('2020-')).toBe(true);
  });

  it('a query that breaks a rule: HTTP 200 with appErrorEncountered and the message', async () => {
    for (const [title, message] of [
      ['(kiwi', /not closed/],
      ['kiwi AND', /expects a word/],
      ['"', /quote/],
    ] as const) {
      const answer = await search({ ClientRef: 'r1', Title: title });
      expect(answer.appErrorEncountered).toBe('true');
      expect(answer.faultErrorEncountered).toBe('false');
      expect(answer.ErrorMessage).toMatch(message);
      expect(answer.ClientRef).toBe('r1');
      expect(answer.ListTradeMarksResponseData).toBeUndefined();
    }
    const none = await search({ ClientRef: 'only a ref' });
    expect(none.appErrorEncountered).toBe('true');
    expect(none.ErrorMessage).toMatch(/at least one criterion/);
    const backwards = await search({ FilingDateRange: { FromDate: '2026-01-02', ToDate: '2026-01-01' } });
    expect(backwards.ErrorMessage).toMatch(/FilingDateRange.FromDate: must not be after ToDate/);
  });
});

describe('faults (HTTP 500, soap:Client) for requests the endpoint cannot read', () => {
  const faultOf = async (response: Response) => {
    const text = await response.text();
    const fault = parser.parse(text).Envelope.Body.Fault;
    return { status: response.status, code: fault.faultcode, message: fault.faultstring, text };
  };

  it.each([
    [
      'a Title over 255 characters',
      `<Title>${'k'.repeat(256)}</Title>`,
      /Title: is 256 characters long, more than maxLength 255/,
    ],
    [
      'a date that is no date',
      '<FilingDateRange><FromDate>2026-02-30</FromDate></FilingDateRange>',
      /FromDate: "2026-02-30" is not a date/,
    ],
    [
      'a status not in the list',
      '<StatusList><StatusID>Pending</StatusID></StatusList>',
      /StatusID: "Pending" is not one of/,
    ],
    [
      'elements out of order',
      '<Title>kiwi</Title><ClientRef>x</ClientRef>',
      /ClientRef: is not expected here/,
    ],
    ['an unknown element', '<Colour>red</Colour>', /Colour: is not expected here/],
    [
      'a client id of letters',
      '<OwnerClientID>abc</OwnerClientID>',
      /OwnerClientID: "abc" does not match the pattern/,
    ],
  ])('%s: invalid-request naming the element and the rule', async (_label, inner, message) => {
    const fault = await faultOf(await s.post('/trademarksearch', searchEnvelope(inner)));
    expect(fault.status).toBe(500);
    expect(fault.code).toBe('soap:Client');
    expect(fault.message).toMatch(message);
    expect(fault.text).toContain('<ErrorCode>invalid-request</ErrorCode>');
  });

  it.each([
    ['not XML', 'kiwi', /not well-formed|Body/],
    ['not an envelope', `<ListTrademarks xmlns="${SERVICES_NS}"/>`, /not a SOAP 1.1 Envelope/],
    [
      'a SOAP 1.2 envelope',
      '<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body/></e:Envelope>',
      /SOAP 1.2/,
    ],
    ['an empty Body', envelopeOf(''), /Body is empty/],
    [
      'two request elements',
      envelopeOf(`<ListTrademarks xmlns="${SERVICES_NS}"/><ListTrademarks xmlns="${SERVICES_NS}"/>`),
      /more than one element|ListTradeMarks/,
    ],
    [
      'another endpoint’s request',
      envelopeOf(
        `<GetObject xmlns="${SERVICES_NS}"><ObjectIdentifier>0900000000000001</ObjectIdentifier></GetObject>`,
      ),
      /not a request of \/trademarksearch/,
    ],
    ['a DOCTYPE', `<!DOCTYPE x [<!ENTITY e "x">]>${envelopeOf('')}`, /DOCTYPE/],
    ['cut short', searchEnvelope('<Title>kiwi</Title>').slice(0, -30), /not well-formed|Body/],
  ])('%s: malformed-envelope', async (_label, body, message) => {
    const fault = await faultOf(await s.post('/trademarksearch', body));
    expect(fault.status).toBe(500);
    expect(fault.code).toBe('soap:Client');
    expect(fault.message).toMatch(message);
  });

  it('an unknown SOAPAction: unknown-soap-action', async () => {
    const fault = await faultOf(
      await s.post('/trademarksearch', searchEnvelope('<Title>kiwi</Title>'), {
        SOAPAction: '"getTaskList"',
      }),
    );
    expect(fault.status).toBe(500);
    expect(fault.text).toContain('<ErrorCode>unknown-soap-action</ErrorCode>');
    const right = await s.post('/trademarksearch', searchEnvelope('<Title>kiwi</Title>'), {
      SOAPAction: '"ListTrademarks"',
    });
    expect(right.status).toBe(200);
  });

  it('Content-Type: SOAP 1.2’s is a fault (415); another is problem+json 415', async () => {
    const soap12 = await s.post('/trademarksearch', searchEnvelope('<Title>kiwi</Title>'), {
      'content-type': 'application/soap+xml',
    });
    expect(soap12.status).toBe(415);
    expect(await soap12.text()).toContain('<faultcode>soap:Client</faultcode>');
    const plain = await s.post('/trademarksearch', 'kiwi', { 'content-type': 'text/plain' });
    expect(plain.status).toBe(415);
    expect(plain.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});

describe('the same search as REST JSON', () => {
  it('answers the same marks as SOAP', async () => {
    const soapAnswer = await search({ Title: '"kiwi foods" OR (fern AND NOT wines)' });
    const response = await s.t.call('POST', '/trademarksearch', {
      headers: { 'content-type': 'application/json' },
      payload: { Title: '"kiwi foods" OR (fern AND NOT wines)' },
    });
    expect(response.statusCode).toBe(200);
    const json = response.json();
    expect(json.TradeMarks.map((m: { ApplicationNumber: string }) => m.ApplicationNumber)).toEqual(
      soapAnswer.ListTradeMarksResponseData.TradeMark.map(
        (m: { ApplicationNumber: string }) => m.ApplicationNumber,
      ),
    );
    expect(json.MoreResultsAvailable).toBe(false);
  });

  it('a broken rule is 400 naming the field', async () => {
    const response = await s.t.call('POST', '/trademarksearch', {
      headers: { 'content-type': 'application/json' },
      payload: { Title: 'kiwi OR' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors[0].field).toBe('Title');
  });
});

describe('at most 2,000 marks', () => {
  it('says when more matched, and not when exactly 2,000 did', async () => {
    const pool = s.t.gateway.runtime.environments.sandbox.pool;
    await pool.query(
      `INSERT INTO iponz_cases (kind, case_number, title, status, status_date, application_date, term_date,
         updated_at, updated_on)
       SELECT 'trademark', 5000000 + i, 'CAPTEST ' || CASE WHEN i <= 2000 THEN 'EXACT' ELSE 'OVER' END,
         'Under Examination', '2026-01-01', '2026-01-01', '2026-01-01', now(), '2026-01-01'
       FROM generate_series(1, 2001) AS i`,
    );
    const exact = await search({ Title: 'captest exact' });
    expect(exact.ListTradeMarksResponseData.TradeMark).toHaveLength(SEARCH_CAP);
    expect(exact.MoreResultsAvailable).toBe('false');
    const over = await search({ Title: 'captest' });
    expect(over.ListTradeMarksResponseData.TradeMark).toHaveLength(SEARCH_CAP);
    expect(over.ResultCount).toBe(String(SEARCH_CAP));
    expect(over.MoreResultsAvailable).toBe('true');
    expect(over.ListTradeMarksResponseData.TradeMark.at(-1).ApplicationNumber).toBe('5002000');
    await pool.query(`DELETE FROM iponz_cases WHERE kind = 'trademark' AND case_number > 5000000`);
  }, 60_000);
});

describe('the request inspector', () => {
  it('keeps a SOAP call: its envelope, the status and its answer', async () => {
    await search({ Title: 'kiw*' });
    const runtime = s.t.gateway.runtime;
    await runtime.inspector.flush();
    const { rows } = await runtime.gateway.pool.query<{
      method: string;
      status: number;
      request_body: string | null;
      response_body: string | null;
    }>(
      `SELECT method, status, request_body, response_body FROM inspector_calls
        WHERE url LIKE '/sandbox/iponz/v5/trademarksearch%' AND method = 'POST' ORDER BY id DESC LIMIT 1`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ method: 'POST', status: 200 });
    expect(rows[0]!.request_body).toContain('TradeMarkSearchCriteria');
    expect(rows[0]!.response_body).toContain('<ListTrademarksResponse');
    expect(rows[0]!.response_body).not.toBe(STREAMED_BODY);
  });
});

describe('one state with REST', () => {
  it('a renewal paid by REST shows in the SOAP search: expiry moved, status Registered again', async () => {
    const find = async (number: string) => {
      const title = (
        await s.t.gateway.runtime.environments.sandbox.pool.query(
          `SELECT title FROM iponz_cases WHERE kind = 'trademark' AND case_number = $1`,
          [number],
        )
      ).rows[0].title as string;
      const answer = await search({ Title: `"${title}"` });
      return answer.ListTradeMarksResponseData.TradeMark.find(
        (m: { ApplicationNumber: string }) => m.ApplicationNumber === number,
      );
    };
    const before = await find('1000051');
    expect(before.MarkCurrentStatusCode).toBe('Registered - past expiry date');
    const paid = await s.t.call('POST', '/trademarks/1000051/renew', { token: s.t.owner.token });
    expect(paid.statusCode, paid.body).toBe(200);
    const after = await find('1000051');
    expect(after.MarkCurrentStatusCode).toBe('Registered');
    expect(after.ExpiryDate > before.ExpiryDate).toBe(true);
    expect(Number(after.ExpiryDate.slice(0, 4)) - Number(before.ExpiryDate.slice(0, 4))).toBe(10);
  });
});

describe('the words table (migration 004) in step with the titles', () => {
  /** Every trade mark's words as the reference matcher splits its title, against the table's rows. */
  async function expectInStep() {
    const pool = s.t.gateway.runtime.environments.sandbox.pool;
    const cases = await pool.query<{ case_number: number; title: string }>(
      `SELECT case_number, title FROM iponz_cases WHERE kind = 'trademark'`,
    );
    const expected = cases.rows
      .flatMap((c) => [...new Set(titleWords(c.title))].map((word) => `${word} ${c.case_number}`))
      .sort();
    const words = await pool.query<{ row: string }>(
      `SELECT word || ' ' || case_number AS row FROM iponz_title_words`,
    );
    expect(words.rows.map((r) => r.row).sort()).toEqual(expected);
    return cases.rows.length;
  }

  it('after the seed’s COPY, and through INSERT, a title’s UPDATE, another UPDATE and DELETE', async () => {
    const pool = s.t.gateway.runtime.environments.sandbox.pool;
    expect(await expectInStep()).toBeGreaterThan(0);
    await pool.query(
      `INSERT INTO iponz_cases (kind, case_number, title, status, status_date, application_date, term_date,
         updated_at, updated_on)
       VALUES ('trademark', 6000001, 'Wordtest Kiwi-KIWI ōra 42', 'Under Examination', '2026-01-01',
                 '2026-01-01', '2026-01-01', now(), '2026-01-01'),
              ('trademark', 6000002, '!!', 'Under Examination', '2026-01-01',
                 '2026-01-01', '2026-01-01', now(), '2026-01-01'),
              ('patent', 6000003, 'Wordtest patent', 'Under Examination', '2026-01-01',
                 '2026-01-01', '2026-01-01', now(), '2026-01-01')`,
    );
    await expectInStep();
    const found = await search({ Title: 'wordtest ?ra' });
    expect(
      found.ListTradeMarksResponseData.TradeMark.map(
        (m: { ApplicationNumber: string }) => m.ApplicationNumber,
      ),
    ).toEqual(['6000001']);
    await pool.query(
      `UPDATE iponz_cases SET title = CASE case_number WHEN 6000001 THEN 'Wordtest Renamed' ELSE 'Now Words' END
       WHERE kind = 'trademark' AND case_number IN (6000001, 6000002)`,
    );
    await pool.query(
      `UPDATE iponz_cases SET status = 'Registered' WHERE kind = 'trademark' AND case_number = 6000001`,
    );
    await expectInStep();
    expect((await search({ Title: 'wordtest ?ra' })).ResultCount).toBe('0');
    expect((await search({ Title: 'renamed' })).ResultCount).toBe('1');
    await pool.query(`DELETE FROM iponz_cases WHERE case_number IN (6000001, 6000002, 6000003)`);
    await expectInStep();
  }, 60_000);
});
