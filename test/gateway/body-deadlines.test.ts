import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriber, type TestGateway, testGateway } from '../support/runtime.ts';
import { trickle } from '../support/trickle.ts';

/**
 * A request body must arrive within its bound (RSG_BODY_TIMEOUT_MS, here 400 ms): a client that sends a
 * byte now and then is answered 408 in the addressed API's dialect with `Connection: close`, and the
 * connection is closed; one refused before its body was read is closed at the bound too.
 */
const BOUND = 400;
let t: TestGateway;
let port: number;
let nzbnKey: string;
let iponzKey: string;
let operatorKey: string;
const lines: string[] = [];

beforeAll(async () => {
  t = await testGateway({
    env: { RSG_BODY_TIMEOUT_MS: String(BOUND), LOG_LEVEL: 'info' },
    app: { logger: true, logStream: { write: (line: string) => void lines.push(line) } },
  });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address();
  port = typeof address === 'object' && address ? address.port : 0;
  nzbnKey = (await subscriber(t, 'sandbox-nzbn')).primaryKey;
  iponzKey = (await subscriber(t, 'sandbox-iponz')).primaryKey;
  operatorKey = (await subscriber(t, 'sandbox-nzbn', { operator: true })).primaryKey;
}, 60_000);
afterAll(() => t?.close());

const RULE = `did not arrive within ${BOUND} ms`;

describe('a body that does not arrive in time', () => {
  it('the business number register: 408 in its own body, and the connection closed', async () => {
    const answer = await trickle(port, {
      method: 'POST',
      path: '/sandbox/nzbn/v5/watchlists',
      headers: { 'content-type': 'application/json', 'ocp-apim-subscription-key': nzbnKey },
      length: 1000,
    });
    expect(answer.status).toBe(408);
    expect(answer.headers.connection).toBe('close');
    expect(JSON.parse(answer.body)).toEqual({
      status: '408',
      errorCode: 'body-timeout',
      errorDescription: `body: ${RULE}`,
      list: [{ field: 'body', message: RULE }],
    });
  });

  it('the IP office’s SOAP operations: a soap:Client fault, chunked body', async () => {
    const answer = await trickle(port, {
      method: 'POST',
      path: '/sandbox/iponz/v5/trademarksearch',
      headers: { 'content-type': 'text/xml', 'ocp-apim-subscription-key': iponzKey },
    });
    expect(answer.status).toBe(408);
    expect(answer.headers.connection).toBe('close');
    expect(answer.headers['content-type']).toBe('text/xml; charset=utf-8');
    expect(answer.body).toContain('<faultcode>soap:Client</faultcode>');
    expect(answer.body).toContain('<ErrorCode>body-timeout</ErrorCode><HttpStatus>408</HttpStatus>');
  });

  it('the gateway’s own routes (problem+json), the portal’s page and OAuth’s token endpoint', async () => {
    const admin = await trickle(port, {
      method: 'POST',
      path: '/sandbox/admin/clock/advance',
      headers: { 'content-type': 'application/json', 'ocp-apim-subscription-key': operatorKey },
      length: 100,
    });
    expect(admin.status).toBe(408);
    expect(admin.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(JSON.parse(admin.body)).toMatchObject({
      type: 'about:blank#body-timeout',
      status: 408,
      title: 'Request Timeout',
      errors: [{ field: 'body', message: RULE }],
    });
    // Not an operator: refused before the body is read, and closed at the bound all the same.
    const refused = await trickle(port, {
      method: 'POST',
      path: '/sandbox/admin/clock/advance',
      headers: { 'content-type': 'application/json', 'ocp-apim-subscription-key': nzbnKey },
      length: 100,
    });
    expect(refused.status).toBe(403);
    // No route reads the body of an unknown path: the connection is closed at the bound.
    const missing = await trickle(port, {
      method: 'POST',
      path: '/no-such-path',
      headers: { 'content-type': 'application/json' },
      length: 100,
    });
    expect(missing.status).toBe(0);
    expect(missing.sent).toBeLessThan(100);
    const portal = await trickle(port, {
      method: 'POST',
      path: '/portal/signin',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      length: 100,
    });
    expect(portal.status).toBe(408);
    expect(portal.headers['content-type']).toContain('text/html');
    expect(portal.body).toContain(`body: ${RULE}`);
    const token = await trickle(port, {
      method: 'POST',
      path: '/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(token.status).toBe(408);
    expect(token.headers.connection).toBe('close');
    expect(JSON.parse(token.body)).toEqual({ error: 'invalid_request', error_description: `body: ${RULE}` });
  });

  it('a request refused before its body is read (no key) is closed at the bound', async () => {
    const answer = await trickle(port, {
      method: 'POST',
      path: '/sandbox/iponz/v5/trademarksearch',
      headers: { 'content-type': 'text/xml' },
      length: 10_000,
    });
    expect(answer.status).toBe(401);
    expect(answer.sent).toBeLessThan(10_000);
  });
});

describe('what a timed-out body leaves in the log', () => {
  it('no warning or error: the 408 is the answer, and the parser failing after it is no news', async () => {
    const serious = lines
      .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { code?: string } })
      .filter((line) => line.level >= 40);
    expect(serious).toEqual([]);
  });
});
