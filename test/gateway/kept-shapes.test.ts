import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_ID_HEADER } from '../../src/app.ts';
import { keptRequest, keptTick } from '../../src/platform/http/kept-shapes.ts';
import { servicesWithEcho } from '../support/echo-service.ts';
import { subscriber, type TestGateway, testGateway } from '../support/runtime.ts';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway({ app: { services: servicesWithEcho(['nzbn']) } });
});
afterAll(() => gateway?.close());

type Kept = { request?: { id: string; url: string; raw: object }; reply?: { request: unknown; raw: object } };

describe('the app keeps the shapes of its per-request objects alive', () => {
  it('keeps a tick object and the latest request and reply it answered without a body', async () => {
    for (const url of ['/healthz', '/no-such-path']) {
      const response = await gateway.app.inject({ url });
      const { request, reply } = keptRequest() as Kept;
      expect(request?.url).toBe(url);
      expect(request?.id).toBe(response.headers[REQUEST_ID_HEADER]);
      expect(reply?.request).toBe(request);
      expect(request?.raw).toBeDefined();
      expect(reply?.raw).toBeDefined();
    }
    expect(keptTick()).toBeDefined();
  });

  it('does not keep a request that carried a body (nor the body with it)', async () => {
    const { primaryKey } = await subscriber(gateway, 'sandbox-nzbn');
    await gateway.app.inject({ url: '/healthz' });
    const before = (keptRequest() as Kept).request;
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/sandbox/nzbn/v5/write',
      headers: { 'ocp-apim-subscription-key': primaryKey, 'content-type': 'application/json' },
      payload: { big: 'x'.repeat(10_000) },
    });
    expect(response.statusCode).toBe(200);
    expect((keptRequest() as Kept).request).toBe(before);
  });
});
