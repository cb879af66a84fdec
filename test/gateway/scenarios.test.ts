import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatScenario, parseScenario, scenarioMeaning } from '../../src/gateway/domain/scenarios.ts';
import { changeState } from '../../src/gateway/operations/subscriptions.ts';
import { RuleError } from '../../src/platform/errors.ts';
import { seedBusinessNumbers } from '../support/business-numbers.ts';
import { subscriber, type TestGateway, testGateway } from '../support/runtime.ts';

/**
 * The sandbox's fault scenarios (`Sandbox-Scenario`, gateway/domain/scenarios.ts, http/scenarios.ts):
 * each answers as the real failure does, in the dialect of the register addressed (the business number
 * register's own, problem+json for rental statistics, a SOAP fault for the IP office's SOAP endpoint,
 * API Management's body for the rate limit); the key is checked first; production refuses the header.
 * The secured interests register's `timeout` is tested with its transactions (ppsr/transactions.test.ts).
 */

describe('parseScenario', () => {
  it.each([
    ['throttled', { kind: 'throttled', retryAfterSeconds: 30 }],
    ['Throttled=5', { kind: 'throttled', retryAfterSeconds: 5 }],
    ['maintenance', { kind: 'maintenance', retryAfterSeconds: 120 }],
    ['slow=250', { kind: 'slow', delayMs: 250 }],
    ['flaky=100', { kind: 'flaky', percent: 100 }],
    [' drop ', { kind: 'drop' }],
    ['timeout', { kind: 'timeout' }],
  ])('%s', (text, expected) => {
    expect(parseScenario(text)).toEqual(expected);
  });

  it('says what a scenario does with its own values in place', () => {
    expect(scenarioMeaning(parseScenario('maintenance=45'))).toMatch(/window ending in 45 seconds$/);
    expect(scenarioMeaning(parseScenario('throttled'))).toMatch(/`Retry-After` 30 seconds$/);
    expect(scenarioMeaning(parseScenario('slow=250'))).toBe('the usual answer, 250 milliseconds later');
    expect(scenarioMeaning(parseScenario('flaky=20'))).toMatch(/for 20% of calls/);
    expect(scenarioMeaning(parseScenario('drop'))).toBe('the connection closed without an answer');
  });

  it('formats every scenario in one canonical form that parses back to it', () => {
    for (const text of ['throttled', 'maintenance=9', 'slow=250', 'flaky=3', 'drop', 'timeout']) {
      const scenario = parseScenario(text);
      expect(parseScenario(formatScenario(scenario))).toEqual(scenario);
    }
    expect(formatScenario(parseScenario(' THROTTLED '))).toBe('throttled=30');
  });

  it.each([
    'slow',
    'slow=0',
    'slow=120001',
    'flaky=101',
    'flaky=-1',
    'throttled=1.5',
    'drop=1',
    'meltdown',
    '',
    'slow=1=2',
  ])('refuses %j, naming the header', (text) => {
    expect(() => parseScenario(text)).toThrow(RuleError);
    try {
      parseScenario(text);
    } catch (error) {
      expect((error as RuleError).field).toBe('Sandbox-Scenario');
    }
  });
});

const NZBN = '/sandbox/nzbn/v5/entities/9429000001007';
const MARKET_RENT = '/sandbox/tenancy-services/market-rent/v2/area-definitions';

describe.skipIf(process.env.RSG_TEST_UNIT === '1')('Sandbox-Scenario over HTTP', () => {
  let gateway: TestGateway;
  let nzbnKey: string;
  let marketRentKey: string;
  let iponzKey: string;
  let productionKey: string;
  let base: string;
  beforeAll(async () => {
    gateway = await testGateway();
    await seedBusinessNumbers(gateway, 0);
    nzbnKey = (await subscriber(gateway, 'sandbox-nzbn')).primaryKey;
    marketRentKey = (await subscriber(gateway, 'sandbox-market-rent')).primaryKey;
    iponzKey = (await subscriber(gateway, 'sandbox-iponz')).primaryKey;
    productionKey = (await subscriber(gateway, 'production-nzbn')).primaryKey;
    base = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => gateway?.close());

  const get = (url: string, key: string | undefined, scenario?: string) =>
    gateway.app.inject({
      method: 'GET',
      url,
      headers: {
        ...(key ? { 'Ocp-Apim-Subscription-Key': key } : {}),
        ...(scenario ? { 'Sandbox-Scenario': scenario } : {}),
      },
    });

  it('throttled: the rate limit’s 429 in API Management’s body, with Retry-After', async () => {
    const answer = await get(NZBN, nzbnKey, 'throttled=7');
    expect(answer.statusCode).toBe(429);
    expect(answer.headers['retry-after']).toBe('7');
    expect(answer.json()).toEqual({
      statusCode: 429,
      message: 'Rate limit is exceeded. Try again in 7 seconds.',
    });
  });

  it('maintenance: the scheduled maintenance 503 in each register’s dialect', async () => {
    const nzbn = await get(NZBN, nzbnKey, 'maintenance=60');
    expect(nzbn.statusCode).toBe(503);
    expect(nzbn.headers['retry-after']).toBe('60');
    expect(nzbn.json()).toMatchObject({ status: '503', errorCode: 'scheduled-maintenance', list: [] });
    const rent = await get(MARKET_RENT, marketRentKey, 'maintenance');
    expect(rent.statusCode).toBe(503);
    expect(rent.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(rent.headers['retry-after']).toBe('120');
    expect(rent.json()).toMatchObject({ type: 'about:blank#scheduled-maintenance', status: 503 });
  });

  it('the IP office’s SOAP endpoint answers a SOAP fault, its REST form problem+json', async () => {
    const soap = await gateway.app.inject({
      method: 'POST',
      url: '/sandbox/iponz/v5/trademarksearch',
      headers: {
        'Ocp-Apim-Subscription-Key': iponzKey,
        'Content-Type': 'text/xml; charset=utf-8',
        SOAPAction: 'TradeMarkSearch',
        'Sandbox-Scenario': 'maintenance',
      },
      payload:
        '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body/></soapenv:Envelope>',
    });
    expect(soap.statusCode).toBe(503);
    expect(soap.headers['content-type']).toMatch(/^text\/xml/);
    expect(soap.body).toContain('Fault');
    expect(soap.body).toContain('maintenance');
    const rest = await get('/sandbox/iponz/v5/clients?name=Kiwi', iponzKey, 'maintenance');
    expect(rest.statusCode).toBe(503);
    expect(rest.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('flaky=100 always fails as a database outage does; without the header the call answers', async () => {
    const failed = await get(NZBN, nzbnKey, 'flaky=100');
    expect(failed.statusCode).toBe(503);
    expect(Number(failed.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(failed.json()).toMatchObject({ status: '503', errorCode: 'service-unavailable' });
    expect((await get(NZBN, nzbnKey)).statusCode).toBe(200);
  });

  it('flaky=50 lets some calls through and fails others', async () => {
    const statuses = new Set<number>();
    for (let call = 0; call < 60 && statuses.size < 2; call++) {
      statuses.add((await get(NZBN, nzbnKey, 'flaky=50')).statusCode);
    }
    expect([...statuses].sort()).toEqual([200, 503]);
  });

  it('slow answers as usual, later', async () => {
    const started = performance.now();
    const answer = await get(NZBN, nzbnKey, 'slow=300');
    expect(answer.statusCode).toBe(200);
    expect(answer.json().nzbn).toBe('9429000001007');
    // A floor, not a timing goal: the answer cannot come before the delay asked for.
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('drop closes the connection without an answer: a real client reports an error', async () => {
    const dropped = fetch(`${base}${NZBN}`, {
      headers: { 'Ocp-Apim-Subscription-Key': nzbnKey, 'Sandbox-Scenario': 'drop' },
    });
    await expect(dropped).rejects.toThrow();
    const after = await fetch(`${base}${NZBN}`, { headers: { 'Ocp-Apim-Subscription-Key': nzbnKey } });
    expect(after.status).toBe(200);
  });

  it('the key is checked first; timeout belongs to the secured interests register; bad values are 400', async () => {
    expect((await get(NZBN, undefined, 'throttled')).statusCode).toBe(401);
    expect((await get(NZBN, 'not-a-key', 'drop')).statusCode).toBe(401);
    const timeout = await get(NZBN, nzbnKey, 'timeout');
    expect(timeout.statusCode).toBe(400);
    expect(timeout.json().list[0]).toMatchObject({ field: 'Sandbox-Scenario' });
    const unknown = await get(MARKET_RENT, marketRentKey, 'meltdown');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().detail ?? JSON.stringify(unknown.json())).toContain('Sandbox-Scenario');
  });

  it('production refuses the header, naming it, and answers nothing else', async () => {
    const refused = await get('/gateway/nzbn/v5/entities?search-term=x', productionKey, 'throttled');
    expect(refused.statusCode).toBe(400);
    expect(refused.json().list[0]).toMatchObject({
      field: 'Sandbox-Scenario',
      message: expect.stringContaining('only honoured in the sandbox'),
    });
  });

  it('the sandbox OpenAPI documents enumerate each register’s scenarios; production’s do not', async () => {
    const sandbox = (await get('/sandbox/nzbn/v5/openapi.json', undefined)).json();
    const parameter = sandbox.components.parameters.SandboxScenario;
    expect(parameter).toMatchObject({ in: 'header', name: 'Sandbox-Scenario', required: false });
    expect(parameter.schema.anyOf[0]).toEqual({ type: 'string', enum: ['drop'] });
    expect(parameter.schema.anyOf.slice(1).map((form: { pattern: string }) => form.pattern)).toEqual([
      '^throttled=[0-9]{1,6}$',
      '^maintenance=[0-9]{1,6}$',
      '^slow=[0-9]{1,6}$',
      '^flaky=[0-9]{1,6}$',
    ]);
    expect(parameter.schema.examples).toEqual([
      'throttled',
      'maintenance=5',
      'slow=2000',
      'drop',
      'flaky=50',
    ]);
    expect(Object.keys(parameter['x-scenarios'])).not.toContain('timeout');
    // The secured interests register's has its timeout too.
    const ppsr = (await get('/sandbox/ppsr/v2/openapi.json', undefined)).json();
    expect(ppsr.components.parameters.SandboxScenario.schema.anyOf[0].enum).toEqual(['drop', 'timeout']);
    const production = (await get('/gateway/nzbn/v5/openapi.json', undefined)).json();
    expect(production.components.parameters?.SandboxScenario).toBeUndefined();
  });

  it('the portal’s reference lists the register’s scenarios at the top', async () => {
    const prepared = (await get('/portal/products/sandbox-ppsr/openapi.json', undefined)).json();
    expect(prepared.info.description).toContain('### Fault scenarios (sandbox)');
    expect(prepared.info.description).toContain('| `timeout` |');
    const market = (await get('/portal/products/sandbox-market-rent/openapi.json', undefined)).json();
    expect(market.info.description).toContain('| `flaky=PERCENT` |');
    expect(market.info.description).not.toContain('| `timeout` |');
    const production = (await get('/portal/products/production-nzbn/openapi.json', undefined)).json();
    expect(production.info.description).not.toContain('Fault scenarios');
  });
});

describe.skipIf(process.env.RSG_TEST_UNIT === '1')('a scenario set on a subscription', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await testGateway();
    await seedBusinessNumbers(gateway, 0);
  });
  afterAll(() => gateway?.close());

  const get = (url: string, key: string, scenario?: string) =>
    gateway.app.inject({
      method: 'GET',
      url,
      headers: { 'Ocp-Apim-Subscription-Key': key, ...(scenario ? { 'Sandbox-Scenario': scenario } : {}) },
    });
  // As the portal sets it: this process's key cache forgets the subscription at once.
  const set = (id: string, text: string | null) => gateway.runtime.subscriptions.setScenario(id, text);

  it('plays on every call without the header, in the register’s dialect; the header comes first', async () => {
    const nzbn = await subscriber(gateway, 'sandbox-nzbn');
    // Cached first, so the change must reach the key cache.
    expect((await get(NZBN, nzbn.primaryKey)).statusCode).toBe(200);
    expect(await set(nzbn.subscriptionId, ' Maintenance=45 ')).toBe('maintenance=45');
    for (const key of [nzbn.primaryKey, nzbn.secondaryKey]) {
      const answer = await get(NZBN, key);
      expect(answer.statusCode).toBe(503);
      expect(answer.headers['retry-after']).toBe('45');
      expect(answer.json()).toMatchObject({ errorCode: 'scheduled-maintenance' });
    }
    const header = await get(NZBN, nzbn.primaryKey, 'throttled=3');
    expect(header.statusCode).toBe(429);
    expect(header.headers['retry-after']).toBe('3');
    expect(await set(nzbn.subscriptionId, '')).toBeNull();
    expect((await get(NZBN, nzbn.primaryKey)).statusCode).toBe(200);

    const rent = await subscriber(gateway, 'sandbox-market-rent');
    await set(rent.subscriptionId, 'flaky=100');
    const failed = await get(MARKET_RENT, rent.primaryKey);
    expect(failed.statusCode).toBe(503);
    expect(failed.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('is refused in production, for a cancelled subscription, and when the register cannot play it', async () => {
    const production = await subscriber(gateway, 'production-nzbn');
    await expect(set(production.subscriptionId, 'drop')).rejects.toMatchObject({
      field: 'scenario',
      rule: 'is only for sandbox subscriptions',
    });
    const nzbn = await subscriber(gateway, 'sandbox-nzbn');
    await expect(set(nzbn.subscriptionId, 'timeout')).rejects.toMatchObject({ field: 'scenario' });
    await expect(set(nzbn.subscriptionId, 'slow=0')).rejects.toMatchObject({
      field: 'scenario',
      rule: 'slow=0: the value must be a whole number from 1 to 120000',
    });
    await expect(set('6f1c1d38-6a1f-4a43-9f55-1c2b1e0c9a11', 'drop')).rejects.toMatchObject({
      field: 'subscription',
    });
    await changeState(gateway.runtime.gateway.pool, nzbn.subscriptionId, 'cancelled');
    await expect(set(nzbn.subscriptionId, 'drop')).rejects.toMatchObject({ rule: 'is cancelled' });
    // A production subscription's calls never meet one, whatever its row says.
    expect((await get('/gateway/nzbn/v5/entities/9429000001007', production.primaryKey)).statusCode).not.toBe(
      503,
    );
  });
});
