import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateProduct } from '../../../src/gateway/store/products.ts';
import { addDays } from '../../../src/platform/calendar.ts';
import { setClock } from '../../../src/platform/environment-clocks.ts';
import { documentStoreFor } from '../../../src/services/iponz/documents/location.ts';
import { fingerprint } from '../../support/fingerprint.ts';
import { clientCredentialsToken } from '../../support/oauth.ts';
import { subscriber } from '../../support/runtime.ts';
import { BASE, TODAY } from './support/api.ts';
import { pct, type SoapTest, soapTest } from './support/soap-filing.ts';

/**
 * The security matrix and a no-500s fuzzer over the SOAP bodies of the applications and correspondence
 * (the shared harnesses write JSON bodies; these operations take envelopes only), and the attachment
 * memory bound: every operation refuses each wrong credential, writing nothing; answers the owner; and
 * under mutated envelopes never fails on our side (no soap:Server fault, no stack trace, a catalogued
 * code). An attachment reaches the document store in bounded pieces whatever its size.
 */
let t: SoapTest;
let taskId: string;
let discussionId: string;
let productionKey: string;
let otherServiceKey: string;
let clientToken: string;

const NS = 'http://www.iponz.govt.nz/services';
const envelope = (element: string, inner: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><${element} xmlns="${NS}">${inner}</${element}></soap:Body></soap:Envelope>`;
const pdf = Buffer.from('%PDF-1.4 a response\n').toString('base64');

interface Operation {
  path: string;
  action: string;
  body: () => string;
}

const tradeMarkInner = (reference: string) =>
  `<TransactionCode>Trade Mark E-Filing</TransactionCode><ApplicationReference>${reference}</ApplicationReference><ApplicationContact>Applicant</ApplicationContact><RegistrationOfficeCode>NZ</RegistrationOfficeCode><IntendedUseCode>YAPP</IntendedUseCode><MarkTitle>SECURE MARK</MarkTitle><Applicant><ClientIdentifier>100000</ClientIdentifier></Applicant><GoodsAndServices><ClassDescription><ClassNumber>9</ClassNumber><Description>Software</Description></ClassDescription></GoodsAndServices>`;

const OPERATIONS: Record<string, Operation> = {
  FilePatentApplication: {
    path: '/patent',
    action: 'FilePatentApplication',
    body: () =>
      envelope(
        'FilePatentApplication',
        `<TransactionCode>Patent E-Filing</TransactionCode><PatentApplicationReference>SEC-P</PatentApplicationReference><ApplicationContact>Applicant</ApplicationContact><ExaminationRequested>true</ExaminationRequested><InternationalApplicationNumber>${pct(40)}</InternationalApplicationNumber><Applicant><ClientIdentifier>100000</ClientIdentifier></Applicant><AmendedSpecification><ObjectName>Spec.pdf</ObjectName><ObjectFormat>pdf</ObjectFormat><ObjectData>${pdf}</ObjectData></AmendedSpecification>`,
      ),
  },
  FileTradeMarkApplication: {
    path: '/trademark',
    action: 'FileTradeMarkApplication',
    body: () => envelope('FileTradeMarkApplication', tradeMarkInner('SEC-T')),
  },
  getTaskList: {
    path: '/taskcorrespondence',
    action: 'getTaskList',
    body: () =>
      envelope(
        'GetTaskList',
        `<TransactionIdentifier>S1</TransactionIdentifier><TransactionCode>Get Task List</TransactionCode><RequestorIdentifier>${t.owner.userId}</RequestorIdentifier><TaskDueDateFrom>${TODAY}</TaskDueDateFrom>`,
      ),
  },
  getTaskContent: {
    path: '/taskcorrespondence',
    action: 'getTaskContent',
    body: () =>
      envelope(
        'GetTaskContent',
        `<TransactionIdentifier>S2</TransactionIdentifier><TransactionCode>Get Task Content</TransactionCode><RequestorIdentifier>${t.owner.userId}</RequestorIdentifier><TaskIdentifier>${taskId}</TaskIdentifier>`,
      ),
  },
  updateTask: {
    path: '/taskcorrespondence',
    action: 'updateTask',
    body: () =>
      envelope(
        'UpdateTask',
        `<TransactionIdentifier>S3</TransactionIdentifier><TransactionCode>Update Task</TransactionCode><RequestorIdentifier>${t.owner.userId}</RequestorIdentifier><TaskIdentifier>${taskId}</TaskIdentifier><ResponseText>ok</ResponseText><ResponseDocument><ObjectName>R.pdf</ObjectName><ObjectFormat>pdf</ObjectFormat><ObjectData>${pdf}</ObjectData></ResponseDocument>`,
      ),
  },
  getDiscussionList: {
    path: '/discussioncorrespondence',
    action: 'getDiscussionList',
    body: () =>
      envelope(
        'GetDiscussionList',
        '<TransactionIdentifier>S4</TransactionIdentifier><TransactionCode>Get Discussion List</TransactionCode><Status>open</Status>',
      ),
  },
  getDiscussionContent: {
    path: '/discussioncorrespondence',
    action: 'getDiscussionContent',
    body: () =>
      envelope(
        'GetDiscussionContent',
        `<TransactionIdentifier>S5</TransactionIdentifier><TransactionCode>Get Discussion Content</TransactionCode><DiscussionIdentifier>${discussionId}</DiscussionIdentifier>`,
      ),
  },
};

beforeAll(async () => {
  t = await soapTest();
  // The fuzzer's calls must reach the operations, not the product's rate limit.
  await updateProduct(t.gateway.runtime.gateway.pool, 'sandbox-iponz', { rateLimitPerMinute: 1_000_000 });
  productionKey = (await subscriber(t.gateway, 'production-iponz')).primaryKey;
  otherServiceKey = (await subscriber(t.gateway, 'sandbox-market-rent')).primaryKey;
  clientToken = await clientCredentialsToken(t.gateway, t.stranger.userId);
  // A filed trade mark with its examination report: a task and a discussion to read and answer.
  const filed = await send(OPERATIONS.FileTradeMarkApplication!, {});
  expect(filed.statusCode, filed.body).toBe(200);
  await setClock(t.gateway.runtime.gateway.pool, 'sandbox', `${addDays(TODAY, 15)}T00:00:00Z`);
  await t.gateway.runtime.clocks.reload();
  await t.jobs.settle();
  const tasks = await t.gateway.runtime.environments.sandbox.pool.query(
    'SELECT task_id::text AS id FROM iponz_tasks ORDER BY task_id LIMIT 1',
  );
  taskId = tasks.rows[0].id;
  const discussions = await t.gateway.runtime.environments.sandbox.pool.query(
    'SELECT discussion_id::text AS id FROM iponz_discussions WHERE task_id IS NOT NULL LIMIT 1',
  );
  discussionId = discussions.rows[0].id;
}, 300_000);
afterAll(async () => t?.close());

function send(
  operation: Operation,
  options: { key?: string | null; token?: string | null; base?: string; body?: string; action?: string },
): Promise<LightMyRequestResponse> {
  const key = options.key === undefined ? t.key : options.key;
  const token = options.token === undefined ? t.owner.token : options.token;
  return t.gateway.app.inject({
    method: 'POST',
    url: `${options.base ?? BASE}${operation.path}`,
    headers: {
      'content-type': 'text/xml; charset=utf-8',
      soapaction: `"${options.action ?? operation.action}"`,
      ...(key ? { 'Ocp-Apim-Subscription-Key': key } : {}),
      ...(token
        ? {
            authorization:
              token.startsWith('Bearer') || token.startsWith('Basic') ? token : `Bearer ${token}`,
          }
        : {}),
    },
    payload: options.body ?? operation.body(),
  });
}

const tables = () => [
  { pool: t.gateway.runtime.environments.sandbox.pool, prefixes: ['iponz_'], tables: ['fee_records'] },
];
const faultCode = (response: LightMyRequestResponse) =>
  /<ErrorCode>([^<]+)<\/ErrorCode>/.exec(response.body)?.[1];

describe('security matrix', () => {
  it.each(Object.keys(OPERATIONS))('%s: every wrong credential refused, nothing written', async (name) => {
    const operation = OPERATIONS[name]!;
    const before = await fingerprint(...tables());
    const refusals: [string, Promise<LightMyRequestResponse>, number, string | RegExp][] = [
      ['no key', send(operation, { key: null }), 401, /subscription key/i],
      ['malformed key', send(operation, { key: 'not-a-key' }), 401, /invalid subscription key|key/i],
      ["production's key", send(operation, { key: productionKey }), 401, /key/i],
      [
        "production's key on production, a sandbox token",
        send(operation, { key: productionKey, base: BASE.replace('/sandbox', '/gateway') }),
        401,
        /JWT|token/i,
      ],
      ["another service's key", send(operation, { key: otherServiceKey }), 401, /key/i],
      ['no user token', send(operation, { token: null }), 401, 'three-legged-token-required'],
      [
        'client-credentials token',
        send(operation, { token: clientToken }),
        401,
        'three-legged-token-required',
      ],
      ['malformed token', send(operation, { token: 'Bearer a.b.c.d' }), 401, /JWT/],
      [
        'not registered with the office',
        send(operation, { token: t.stranger.token }),
        403,
        'not-registered-user',
      ],
    ];
    for (const [label, pending, status, expected] of refusals) {
      const response = await pending;
      expect(response.statusCode, `${name} ${label}: ${response.body.slice(0, 300)}`).toBe(status);
      if (typeof expected === 'string') expect(faultCode(response), `${name} ${label}`).toBe(expected);
      else expect(response.body, `${name} ${label}`).toMatch(expected);
    }
    expect(await fingerprint(...tables()), `${name}: a refused call wrote nothing`).toBe(before);
  });

  it.each(Object.keys(OPERATIONS))('%s: the owner is answered, without an error', async (name) => {
    const response = await send(OPERATIONS[name]!, {});
    expect(response.statusCode, response.body.slice(0, 500)).toBe(200);
    expect(response.body).not.toContain('<TransactionErrorCode>');
  });
});

/** Mutations of a valid envelope: the fuzzer's requests. */
const ODD_TEXT = [
  '',
  ' ',
  'x'.repeat(70_000),
  '0',
  '-1',
  '99999999999999999999',
  '2026-02-30',
  '<',
  '&amp;',
  '\u0000',
  '𝔘',
  'true',
];
function mutate(xml: string, choice: number, text: string): string {
  const elements = [...xml.matchAll(/<([A-Za-z]+)>([^<]*)<\/\1>/g)];
  const target = elements.length ? elements[choice % elements.length]! : undefined;
  switch (choice % 9) {
    case 0: // an element's text replaced
      return target
        ? xml.replace(target[0], `<${target[1]}>${text.replaceAll('<', '&lt;')}</${target[1]}>`)
        : xml;
    case 1: // an element dropped
      return target ? xml.replace(target[0], '') : xml;
    case 2: // an element repeated
      return target ? xml.replace(target[0], target[0] + target[0]) : xml;
    case 3: // cut short
      return xml.slice(0, Math.max(1, (choice * 37) % xml.length));
    case 4: // another namespace
      return xml.replace(NS, 'urn:other');
    case 5: // raw text, unescaped
      return target ? xml.replace(target[0], `<${target[1]}>${text}</${target[1]}>`) : xml;
    case 6: // broken base64 or an unknown element
      return xml.includes('<ObjectData>')
        ? xml.replace(/<ObjectData>[^<]*/, '<ObjectData>!!notbase64==')
        : xml.replace('</soap:Body>', '<Extra/></soap:Body>');
    case 7: // not XML at all
      return text || '{}';
    default: // a DOCTYPE (entities are refused)
      return `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "${text}">]>${xml.replace(/^<\?xml[^>]*\?>/, '')}`;
  }
}

describe('no-500s fuzzer over SOAP bodies', () => {
  it.each(Object.keys(OPERATIONS))(
    '%s: never our failure, never a stack trace, codes catalogued',
    async (name) => {
      const operation = OPERATIONS[name]!;
      const catalogued = new Set(
        (await t.call('GET', '/openapi.json')).json()['x-error-codes'].map((e: { code: string }) => e.code),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.nat({ max: 10_000 }),
          fc.oneof(fc.constantFrom(...ODD_TEXT), fc.string({ maxLength: 40 })),
          fc.constantFrom(operation.action, 'getTaskList', 'nothing', ''),
          async (choice, text, action) => {
            const response = await send(operation, { body: mutate(operation.body(), choice, text), action });
            const where = `${name} → ${response.statusCode} ${response.body.slice(0, 300)}`;
            expect(response.statusCode, where).not.toBe(429);
            expect(response.body, where).not.toMatch(/\n\s+at [^\n]+:\d+:\d+/);
            expect(response.body, where).not.toContain('soap:Server');
            expect(response.body, where).not.toContain('Fault Error');
            if (response.statusCode >= 500) {
              expect(response.body, where).toContain('<faultcode>soap:Client</faultcode>');
            }
            const code = faultCode(response);
            if (code) expect(catalogued.has(code), `${where}: ${code} catalogued`).toBe(true);
          },
        ),
        { seed: 0x736f_6170, numRuns: Number(process.env.FUZZ_RUNS ?? 40) },
      );
    },
    120_000,
  );
});

describe('attachment memory bound (structural)', () => {
  it('an attachment reaches the document store in pieces of bounded size, whatever its size', async () => {
    const store = documentStoreFor(t.gateway.runtime.environments.sandbox);
    const original = store.put.bind(store);
    const pieces: number[] = [];
    store.put = async (id, bytes) => {
      async function* watched() {
        for await (const chunk of bytes as AsyncIterable<Uint8Array>) {
          pieces.push(chunk.length);
          yield chunk;
        }
      }
      return original(id, watched());
    };
    try {
      const size = 6 * 1024 * 1024;
      const data = Buffer.alloc(size, 0x25).toString('base64');
      const body = OPERATIONS.FilePatentApplication!.body()
        .replace(pct(40), pct(41))
        .replace(/<ObjectData>[^<]*<\/ObjectData>/, `<ObjectData>${data}</ObjectData>`);
      // Over a real socket (the in-process inject does not stream a large body in pieces).
      const response = await fetch(`${t.base}/patent`, {
        method: 'POST',
        headers: {
          'content-type': 'text/xml; charset=utf-8',
          soapaction: 'FilePatentApplication',
          'Ocp-Apim-Subscription-Key': t.key,
          authorization: `Bearer ${t.owner.token}`,
        },
        body,
      }).then(async (r) => ({ statusCode: r.status, body: await r.text() }));
      expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
      expect(response.body).toContain('<PatentNumber>');
      // Staged as it streamed, then copied to its identifier: twice the size, in many bounded pieces.
      const total = pieces.reduce((a, b) => a + b, 0);
      expect(total).toBe(2 * size);
      expect(Math.max(...pieces)).toBeLessThanOrEqual(1024 * 1024);
      expect(pieces.length).toBeGreaterThan(12);
    } finally {
      store.put = original;
    }
  }, 300_000);
});
