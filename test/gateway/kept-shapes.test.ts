import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_ID_HEADER } from '../../src/app.ts';
import { keptRequest, keptTick } from '../../src/platform/http/kept-shapes.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway();
});
afterAll(() => gateway?.close());

describe('the app keeps the shapes of its per-request objects alive', () => {
  it('keeps a tick object and the latest request and reply it answered', async () => {
    for (const url of ['/healthz', '/no-such-path']) {
      const response = await gateway.app.inject({ url });
      const { request, reply } = keptRequest() as {
        request?: { id: string; url: string; raw: object };
        reply?: { request: unknown; raw: object };
      };
      expect(request?.url).toBe(url);
      expect(request?.id).toBe(response.headers[REQUEST_ID_HEADER]);
      expect(reply?.request).toBe(request);
      expect(request?.raw).toBeDefined();
      expect(reply?.raw).toBeDefined();
    }
    expect(keptTick()).toBeDefined();
  });
});
