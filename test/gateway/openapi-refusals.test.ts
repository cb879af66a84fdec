import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentGatewayRefusals } from '../../src/gateway/http/openapi-refusals.ts';
import { updateProduct } from '../../src/gateway/store/products.ts';
import { ENVIRONMENTS } from '../../src/services/contract.ts';
import { OpenApi, serviceBase } from '../support/openapi.ts';
import { subscriber, type TestGateway, testGateway } from '../support/runtime.ts';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway();
});
afterAll(() => gateway?.close());

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

describe("the gateway's 401 and 429 in every register's document", () => {
  it('every operation of every register, in both environments, documents 401 and 429', async () => {
    for (const environment of ENVIRONMENTS) {
      for (const service of gateway.runtime.services) {
        const document = (await OpenApi.fetch(gateway.app, serviceBase(service.id, environment))).document;
        let operations = 0;
        for (const [path, item] of Object.entries(document.paths)) {
          for (const [method, operation] of Object.entries(item)) {
            if (!METHODS.includes(method)) continue;
            operations++;
            const responses = (operation as { responses: Record<string, Record<string, unknown>> }).responses;
            const where = `${environment} ${service.id} ${method} ${path}`;
            expect(responses['401'], where).toBeDefined();
            expect(responses['429'], where).toBeDefined();
            expect(Object.keys(responses['401']!.content as object), where).toContain('application/json');
            expect(responses['429']!.headers, where).toHaveProperty('Retry-After');
          }
        }
        if (service.routes) expect(operations, `${service.id} has operations`).toBeGreaterThan(0);
      }
    }
  });

  it("a register's own 401 stays, with the gateway's body beside it", () => {
    const own = { type: 'object', required: ['errorCode'], properties: { errorCode: { type: 'string' } } };
    const document = documentGatewayRefusals({
      paths: {
        '/a': {
          get: {
            responses: {
              '401': { description: 'Needs a token', content: { 'application/json': { schema: own } } },
            },
          },
          post: {
            responses: { '401': { description: 'A SOAP Fault', content: { 'text/xml': { schema: {} } } } },
          },
          put: { security: [], responses: {} },
        },
      },
    });
    const get = document.paths['/a'].get.responses as Record<
      string,
      { description: string; content: Record<string, { schema: { anyOf?: unknown[] } }> }
    >;
    expect(get['401']!.description).toMatch(/^Needs a token\. Or: Unauthorized/);
    expect(get['401']!.content['application/json']!.schema.anyOf).toHaveLength(2);
    expect(get['401']!.content['application/json']!.schema.anyOf![0]).toEqual(own);
    const post = document.paths['/a'].post.responses as Record<string, { content: Record<string, unknown> }>;
    expect(Object.keys(post['401']!.content)).toEqual(['text/xml', 'application/json']);
    // No key taken: the guard never answers it.
    expect(document.paths['/a'].put.responses).toEqual({});
  });

  it('the refusals the guard sends conform to the documents', async () => {
    const pool = gateway.runtime.gateway.pool;
    await updateProduct(pool, 'sandbox-disclose', { rateLimitPerMinute: 1, quota: null });
    const base = serviceBase('disclose');
    const api = await OpenApi.fetch(gateway.app, base);
    const url = `${base}/offers`;
    const missing = await gateway.app.inject({ method: 'GET', url });
    expect(missing.statusCode).toBe(401);
    const wrong = await gateway.app.inject({
      method: 'GET',
      url,
      headers: { 'ocp-apim-subscription-key': 'f'.repeat(64) },
    });
    expect(wrong.statusCode).toBe(401);
    const { primaryKey } = await subscriber(gateway, 'sandbox-disclose');
    await gateway.app.inject({ method: 'GET', url, headers: { 'ocp-apim-subscription-key': primaryKey } });
    const limited = await gateway.app.inject({
      method: 'GET',
      url,
      headers: { 'ocp-apim-subscription-key': primaryKey },
    });
    expect(limited.statusCode).toBe(429);
    for (const response of [missing, wrong, limited]) api.conforms('GET', '/offers', response);
  });
});
