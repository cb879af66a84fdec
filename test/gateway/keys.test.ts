import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { changeState, regenerateKey } from '../../src/gateway/operations/subscriptions.ts';
import { servicesWithEcho } from '../support/echo-service.ts';
import { subscriber, type TestGateway, testGateway } from '../support/runtime.ts';

const MISSING = {
  statusCode: 401,
  message:
    'Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.',
};
const INVALID = {
  statusCode: 401,
  message:
    'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.',
};

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway({ app: { services: servicesWithEcho() } });
});
afterAll(() => gateway?.close());

const call = (url: string, key?: string, via: 'header' | 'query' = 'header') =>
  gateway.app.inject({
    method: 'GET',
    url: key && via === 'query' ? `${url}?subscription-key=${key}` : url,
    headers: key && via === 'header' ? { 'Ocp-Apim-Subscription-Key': key } : {},
  });

describe('subscription keys', () => {
  it('a key in the header or the query parameter reaches its own product', async () => {
    const { primaryKey, subscriptionId } = await subscriber(gateway, 'sandbox-nzbn');
    const viaHeader = await call('/sandbox/nzbn/v5/echo', primaryKey);
    expect(viaHeader.statusCode).toBe(200);
    expect(viaHeader.json()).toMatchObject({ ok: true, environment: 'sandbox', caller: { subscriptionId } });
    expect((await call('/sandbox/nzbn/v5/echo', primaryKey, 'query')).statusCode).toBe(200);
  });

  it('no key → 401 with API Management body', async () => {
    const response = await call('/sandbox/nzbn/v5/echo');
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual(MISSING);
  });

  it('an unknown key → 401 invalid', async () => {
    const response = await call('/sandbox/nzbn/v5/echo', 'f'.repeat(64));
    expect(response.json()).toEqual(INVALID);
    expect(response.statusCode).toBe(401);
  });

  it('a sandbox key on production, and a production key on the sandbox, are refused', async () => {
    const sandbox = await subscriber(gateway, 'sandbox-nzbn');
    const production = await subscriber(gateway, 'production-nzbn');
    const wrongEnvironment = await call('/gateway/nzbn/v5/echo', sandbox.primaryKey);
    expect(wrongEnvironment.statusCode).toBe(401);
    expect(wrongEnvironment.json()).toEqual(INVALID);
    expect((await call('/sandbox/nzbn/v5/echo', production.primaryKey)).json()).toEqual(INVALID);
    expect((await call('/gateway/nzbn/v5/echo', production.primaryKey)).statusCode).toBe(200);
  });

  it('a key of the other environment: the published body, and the way to the right path in x-rsg-hint', async () => {
    const sandbox = await subscriber(gateway, 'sandbox-nzbn');
    const production = await subscriber(gateway, 'production-nzbn');
    // Twice each: the first lookup reads the database, the second answers from the key cache.
    for (let round = 0; round < 2; round++) {
      const onProduction = await call('/gateway/nzbn/v5/echo', sandbox.primaryKey);
      expect(onProduction.statusCode).toBe(401);
      expect(onProduction.json()).toEqual(INVALID);
      expect(onProduction.headers['x-rsg-hint']).toBe(
        'this key belongs to the sandbox environment; use /sandbox/nzbn/v5/echo',
      );
      // The query (which may carry the key) is not repeated in the hint.
      const onSandbox = await call('/sandbox/nzbn/v5/echo', production.primaryKey, 'query');
      expect(onSandbox.json()).toEqual(INVALID);
      expect(onSandbox.headers['x-rsg-hint']).toBe(
        'this key belongs to the production environment; use /gateway/nzbn/v5/echo',
      );
      const otherApi = await call('/gateway/tenancy-services/market-rent/v2/echo', production.primaryKey);
      expect(otherApi.json()).toEqual(INVALID);
      expect(otherApi.headers['x-rsg-hint']).toBe(
        'this key is a subscription to the production-nzbn product, not to this API',
      );
    }
    // Unknown keys and keys of inactive subscriptions get no hint.
    expect((await call('/gateway/nzbn/v5/echo', 'f'.repeat(64))).headers['x-rsg-hint']).toBeUndefined();
    const requested = await subscriber(gateway, 'sandbox-nzbn', { state: 'requested' });
    expect((await call('/gateway/nzbn/v5/echo', requested.primaryKey)).headers['x-rsg-hint']).toBeUndefined();
  });

  it('a key for another service is refused', async () => {
    const { primaryKey } = await subscriber(gateway, 'sandbox-market-rent');
    expect((await call('/sandbox/tenancy-services/market-rent/v2/echo', primaryKey)).statusCode).toBe(200);
    const response = await call('/sandbox/nzbn/v5/echo', primaryKey);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual(INVALID);
  });

  it('requested, suspended and cancelled subscriptions are refused; approval and resumption open them', async () => {
    const { primaryKey, subscriptionId } = await subscriber(gateway, 'sandbox-nzbn', { state: 'requested' });
    expect((await call('/sandbox/nzbn/v5/echo', primaryKey)).json()).toEqual(INVALID);
    const { changeState } = gateway.runtime.subscriptions;
    await changeState(subscriptionId, 'active');
    expect((await call('/sandbox/nzbn/v5/echo', primaryKey)).statusCode).toBe(200);
    await changeState(subscriptionId, 'suspended');
    expect((await call('/sandbox/nzbn/v5/echo', primaryKey)).json()).toEqual(INVALID);
    await changeState(subscriptionId, 'active');
    expect((await call('/sandbox/nzbn/v5/echo', primaryKey)).statusCode).toBe(200);
    await changeState(subscriptionId, 'cancelled');
    expect((await call('/sandbox/nzbn/v5/echo', primaryKey)).json()).toEqual(INVALID);
    await expect(changeState(subscriptionId, 'active')).rejects.toThrow(
      'a cancelled subscription cannot become active',
    );
  });

  it('key rotation: the old primary is refused at once, the secondary keeps working', async () => {
    const { primaryKey, secondaryKey, subscriptionId } = await subscriber(gateway, 'sandbox-nzbn');
    // Warm the cache, so the test proves invalidation rather than a cold lookup.
    expect((await call('/sandbox/nzbn/v5/echo', primaryKey)).statusCode).toBe(200);
    const fresh = await gateway.runtime.subscriptions.regenerateKey(subscriptionId, 'primary');
    expect(fresh).toMatch(/^[0-9a-f]{64}$/);
    expect(fresh).not.toBe(primaryKey);
    expect((await call('/sandbox/nzbn/v5/echo', primaryKey)).json()).toEqual(INVALID);
    expect((await call('/sandbox/nzbn/v5/echo', secondaryKey)).statusCode).toBe(200);
    expect((await call('/sandbox/nzbn/v5/echo', fresh)).statusCode).toBe(200);
    const freshSecondary = await gateway.runtime.subscriptions.regenerateKey(subscriptionId, 'secondary');
    expect((await call('/sandbox/nzbn/v5/echo', secondaryKey)).json()).toEqual(INVALID);
    expect((await call('/sandbox/nzbn/v5/echo', freshSecondary)).statusCode).toBe(200);
    expect((await call('/sandbox/nzbn/v5/echo', fresh)).statusCode).toBe(200);
  });

  it('a key regenerated by another process (the CLI) is refused as soon as its change notice arrives', async () => {
    const { primaryKey, subscriptionId } = await subscriber(gateway, 'sandbox-nzbn');
    expect((await call('/sandbox/nzbn/v5/echo', primaryKey)).statusCode).toBe(200);
    // The store function alone, as another process would call it: this process hears of it by NOTIFY.
    await regenerateKey(gateway.runtime.gateway.pool, subscriptionId, 'primary');
    await vi.waitFor(
      async () => expect((await call('/sandbox/nzbn/v5/echo', primaryKey)).statusCode).toBe(401),
      {
        timeout: 5000,
        interval: 20,
      },
    );
    // And the same for a state change.
    const other = await subscriber(gateway, 'sandbox-nzbn');
    expect((await call('/sandbox/nzbn/v5/echo', other.primaryKey)).statusCode).toBe(200);
    await changeState(gateway.runtime.gateway.pool, other.subscriptionId, 'suspended');
    await vi.waitFor(
      async () => expect((await call('/sandbox/nzbn/v5/echo', other.primaryKey)).statusCode).toBe(401),
      {
        timeout: 5000,
        interval: 20,
      },
    );
  });

  it('keys are stored only as hashes', async () => {
    const { primaryKey } = await subscriber(gateway, 'sandbox-nzbn');
    const dump = await gateway.runtime.gateway.pool.query(
      "SELECT string_agg(encode(hash, 'hex') || hint, ',') AS text FROM subscription_keys",
    );
    expect(dump.rows[0].text).not.toContain(primaryKey);
  });

  it('an unknown operation answers 404 in the gateway dialect, and an unexpected failure a plain 500', async () => {
    const { primaryKey } = await subscriber(gateway, 'sandbox-nzbn');
    const missing = await call('/sandbox/nzbn/v5/nothing-here', primaryKey);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ statusCode: 404, message: 'Resource not found' });
    const boom = await call('/sandbox/nzbn/v5/boom', primaryKey);
    expect(boom.statusCode).toBe(500);
    expect(boom.body).not.toContain('secret stack');
    expect(boom.json()).toMatchObject({ status: '500', errorCode: 'internal-error' });
  });
});

describe('request ids, health and metrics', () => {
  it('echoes a client request id and generates one when absent', async () => {
    const supplied = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const echoed = await gateway.app.inject({
      method: 'GET',
      url: '/sandbox/nzbn/v5/echo',
      headers: { 'api-business-govt-nz-Request-Id': supplied },
    });
    expect(echoed.headers['api-business-govt-nz-request-id']).toBe(supplied);
    const generated = await gateway.app.inject({ method: 'GET', url: '/healthz' });
    expect(generated.headers['api-business-govt-nz-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const unsafe = await gateway.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'api-business-govt-nz-Request-Id': 'evil\tvalue<script>' },
    });
    expect(unsafe.headers['api-business-govt-nz-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('names the request on refusals, unknown paths and the hijacked OAuth answers too', async () => {
    const supplied = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
    const headers = { 'api-business-govt-nz-Request-Id': supplied };
    // Refused by the guard (no key), an unknown operation, a 404 outside any API, and an answer the
    // OAuth provider writes itself (a hijacked reply, which skips Fastify's onSend hooks).
    for (const url of [
      '/sandbox/nzbn/v5/echo',
      '/sandbox/nzbn/v5/no-such-operation',
      '/no-such-path',
      '/oauth2/.well-known/openid-configuration',
    ]) {
      const answer = await gateway.app.inject({ method: 'GET', url, headers });
      expect(answer.statusCode, url).not.toBe(500);
      expect(answer.headers['api-business-govt-nz-request-id'], url).toBe(supplied);
    }
  });

  it('names every answer of a guarded route, which marks it before the guard (no onSend hook)', async () => {
    const supplied = '16fd2706-8baf-433b-82eb-8c7fada847da';
    const { primaryKey } = await subscriber(gateway, 'sandbox-nzbn');
    const headers = { 'api-business-govt-nz-Request-Id': supplied, 'Ocp-Apim-Subscription-Key': primaryKey };
    const answers = {
      ok: await gateway.app.inject({ url: '/sandbox/nzbn/v5/echo', headers }),
      refused: await gateway.app.inject({ url: '/sandbox/nzbn/v5/me', headers }),
      failed: await gateway.app.inject({ url: '/sandbox/nzbn/v5/boom', headers }),
      malformed: await gateway.app.inject({
        method: 'POST',
        url: '/sandbox/nzbn/v5/write',
        headers: { ...headers, 'content-type': 'application/json' },
        payload: '{"not json',
      }),
      tooLarge: await gateway.app.inject({
        method: 'POST',
        url: '/sandbox/nzbn/v5/write',
        headers: { ...headers, 'content-type': 'application/json' },
        payload: JSON.stringify({ big: 'x'.repeat(1024 * 1024 + 1) }),
      }),
      document: await gateway.app.inject({ url: '/sandbox/nzbn/v5/openapi.json', headers }),
      portal: await gateway.app.inject({ url: '/portal', headers }),
    };
    expect(Object.fromEntries(Object.entries(answers).map(([name, a]) => [name, a.statusCode]))).toEqual({
      ok: 200,
      refused: 401,
      failed: 500,
      malformed: 400,
      tooLarge: 413,
      document: 200,
      portal: 200,
    });
    for (const [name, answer] of Object.entries(answers)) {
      expect(answer.headers['api-business-govt-nz-request-id'], name).toBe(supplied);
      // Not shutting down: no answer asks the client to close its connection but the one whose body
      // Fastify could not read (a 413 reads the rest of its body away and keeps it: body-limit.ts).
      if (name !== 'malformed') expect(answer.headers.connection ?? 'keep-alive', name).not.toBe('close');
    }
  });

  it('health, readiness and Prometheus metrics', async () => {
    expect((await gateway.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await gateway.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({
      status: 'ready',
      databases: { gateway: 'ok', sandbox: 'ok', production: 'ok' },
    });
  });

  it("/metrics on the main port: only with an operator's key, else API Management's 401", async () => {
    const anonymous = await gateway.app.inject({ url: '/metrics' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual(MISSING);
    expect(anonymous.body).not.toContain('rsg_http');
    const customer = await subscriber(gateway, 'sandbox-nzbn');
    await call('/sandbox/nzbn/v5/echo', customer.primaryKey);
    const refused = await call('/metrics', customer.primaryKey);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual(INVALID);
    expect((await call('/metrics', 'f'.repeat(64))).statusCode).toBe(401);
    // An operator's key of any product, in either environment, as a header or a query parameter.
    const operator = await subscriber(gateway, 'production-nzbn', { operator: true });
    for (const via of ['header', 'query'] as const) {
      const metrics = await call('/metrics', operator.primaryKey, via);
      expect(metrics.statusCode).toBe(200);
      expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
      expect(metrics.body).toMatch(
        /rsg_http_requests_total\{environment="sandbox",service="nzbn",status="2xx"\} \d+/,
      );
    }
    await gateway.runtime.subscriptions.changeState(operator.subscriptionId, 'suspended');
    expect((await call('/metrics', operator.primaryKey)).statusCode).toBe(401);
  });

  it('each service publishes its OpenAPI document without a key', async () => {
    const response = await gateway.app.inject({
      url: '/gateway/tenancy-services/market-rent/v2/openapi.json',
    });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: '/gateway/tenancy-services/market-rent/v2' }]);
    expect(Object.keys(document.paths)).toContain('/echo');
  });
});

describe('usage', () => {
  it('counts calls, 4xx, 5xx and 429 per subscription per minute', async () => {
    const { primaryKey, subscriptionId } = await subscriber(gateway, 'sandbox-nzbn');
    await call('/sandbox/nzbn/v5/echo', primaryKey);
    await call('/sandbox/nzbn/v5/echo', primaryKey);
    await call('/sandbox/nzbn/v5/bad', primaryKey);
    await call('/sandbox/nzbn/v5/boom', primaryKey);
    await gateway.runtime.usage.flush();
    const rows = await gateway.runtime.gateway.pool.query(
      'SELECT sum(calls) AS calls, sum(client_errors) AS c, sum(server_errors) AS s FROM usage_minutes WHERE subscription_id = $1',
      [subscriptionId],
    );
    expect(rows.rows[0]).toEqual({ calls: 4, c: 1, s: 1 });
  });
});
