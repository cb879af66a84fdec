import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listProducts } from '../../src/gateway/store/products.ts';
import type { ServiceDefinition } from '../../src/services/contract.ts';
import { SERVICES } from '../../src/services/registry.ts';
import { PortalClient } from '../portal/support/api.ts';
import { subscriber, type TestGateway, testGateway } from '../support/runtime.ts';

/**
 * A register that is not built yet (no routes): its products exist and its keys work, but every call
 * answers 501 in its dialect, after the key check; the portal and the CLI say so. The gateway here serves
 * the registers with the IP office's and the offers register's routes taken away (whether or not they are
 * built by now), as a register is before its routes land.
 */
const UNBUILT = new Set(['iponz', 'disclose']);
const services: ServiceDefinition[] = SERVICES.map((service) =>
  UNBUILT.has(service.id)
    ? {
        id: service.id,
        title: service.title,
        path: service.path,
        version: service.version,
        dialect: service.dialect,
      }
    : service,
);
const unbuilt = services.filter((service) => !service.routes);

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway({ app: { services } });
  // The portal reads the list from the runtime: it gets the same list, so it marks the same registers.
  Object.assign(gateway.runtime, { services });
});
afterAll(() => gateway?.close());

describe('registers not built yet', () => {
  it('are the ones without routes', () => {
    expect(unbuilt.map((s) => s.id).sort()).toEqual(['disclose', 'iponz']);
  });

  it.each(unbuilt.map((s) => [s.id, s] as const))(
    '%s: 501 in its dialect with a valid key, 401 without; openapi.json still served',
    async (_id, service) => {
      const { primaryKey } = await subscriber(gateway, `sandbox-${service.id}`);
      for (const [method, url] of [
        ['GET', `/sandbox${service.path}/anything`],
        ['POST', `/sandbox${service.path}/some/deeper/path`],
        ['GET', `/sandbox${service.path}`],
      ] as const) {
        const answer = await gateway.app.inject({
          method,
          url,
          headers: { 'Ocp-Apim-Subscription-Key': primaryKey, 'content-type': 'application/json' },
          ...(method === 'POST' ? { payload: '{}' } : {}),
        });
        expect(answer.statusCode, `${method} ${url}: ${answer.body}`).toBe(501);
        expect(answer.headers['content-type']).toMatch(/application\/problem\+json/);
        expect(answer.json()).toMatchObject({
          type: 'about:blank#not-implemented',
          title: 'Not Implemented',
          status: 501,
          detail: expect.stringContaining('not built yet'),
        });
      }
      const anonymous = await gateway.app.inject({ method: 'GET', url: `/sandbox${service.path}/anything` });
      expect(anonymous.statusCode).toBe(401);
      const document = await gateway.app.inject({
        method: 'GET',
        url: `/sandbox${service.path}/openapi.json`,
      });
      expect(document.statusCode).toBe(200);
      expect(document.json()['x-error-codes']).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ code: 'not-implemented', status: 501, dialect: 'problem' }),
        ]),
      );
    },
  );

  it('the portal marks the products of registers this gateway has not built', async () => {
    // The portal reads the running gateway's own list of services.
    const notBuilt = new Set<string>(gateway.runtime.services.filter((s) => !s.routes).map((s) => s.id));
    const client = new PortalClient(gateway.app);
    const list = await client.get('/portal/products');
    const products = await listProducts(gateway.runtime.gateway.pool);
    for (const product of products) {
      const row = list.body.split('<tr>').find((r) => r.includes(`/portal/products/${product.id}"`)) ?? '';
      expect(row.includes('not built yet'), product.id).toBe(notBuilt.has(product.service));
    }
    for (const id of notBuilt) {
      expect((await client.get(`/portal/products/sandbox-${id}`)).body).toContain('Not built yet.');
    }
    expect((await client.get('/portal/products/sandbox-nzbn')).body).not.toContain('Not built yet.');
  });
});
