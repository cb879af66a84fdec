import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriber } from '../../support/runtime.ts';
import { BASE, type DiscloseGateway, discloseGateway } from './support/api.ts';

// The register is at the published address behind both environment prefixes; the old one is gone.
let d: DiscloseGateway;
let productionKey: string;
beforeAll(async () => {
  d = await discloseGateway({ schemes: 3, standaloneOffers: 1 });
  productionKey = (await subscriber(d.gateway, 'production-disclose')).primaryKey;
}, 120_000);
afterAll(() => d?.close());

const inject = (url: string, key: string, organisation?: string) =>
  d.gateway.app.inject({
    method: 'GET',
    url,
    headers: {
      'Ocp-Apim-Subscription-Key': key,
      ...(organisation ? { 'x-organisation': organisation } : {}),
    },
  });

describe('the published address', () => {
  it('serves the sandbox at /sandbox/companies-office/disclose-register/v1', async () => {
    expect(BASE).toBe('/sandbox/companies-office/disclose-register/v1');
    const offer = await inject(`${BASE}/offer/OFR10001`, d.key, d.organisation);
    expect(offer.statusCode, offer.body).toBe(200);
    expect(offer.json().links.find((l: { rel: string }) => l.rel === 'funds').href).toBe(
      `${BASE}/offer/OFR10001/funds`,
    );
    expect(offer.json().registerUrl).toMatch(
      /\/sandbox\/companies-office\/disclose-register\/v1\/online-register\/offer\/OFR10001$/,
    );
  });

  it('serves production at /gateway/companies-office/disclose-register/v1', async () => {
    // Reached: the register itself asks for x-organisation (its own 400), not the gateway's 404.
    const reached = await inject('/gateway/companies-office/disclose-register/v1/offers', productionKey);
    expect(reached.statusCode, reached.body).toBe(400);
    expect(reached.json().type).toMatch(/organisation-required$/);
  });

  it('names the new address as the server of both OpenAPI documents', async () => {
    for (const prefix of ['/sandbox', '/gateway']) {
      const base = `${prefix}/companies-office/disclose-register/v1`;
      const document = await d.gateway.app.inject({ url: `${base}/openapi.json` });
      expect(document.statusCode).toBe(200);
      expect(document.json().servers).toEqual([{ url: base }]);
    }
  });

  it('answers 404 at the old address in both environments', async () => {
    for (const [url, key] of [
      ['/sandbox/disclose-register/v1/offer/OFR10001', d.key],
      ['/sandbox/disclose-register/v1/openapi.json', d.key],
      ['/gateway/disclose-register/v1/offers', productionKey],
    ] as const) {
      const old = await inject(url, key, d.organisation);
      expect(old.statusCode, url).toBe(404);
    }
  });
});
