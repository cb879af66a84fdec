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

describe('the public client’s search names', () => {
  const search = async (query: string) => {
    const response = await inject(`${BASE}/offers?${query}`, d.key, d.organisation);
    return response;
  };
  const numbers = async (query: string) => {
    const response = await search(`${query}&page-size=100`);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json().items as { number: string }[]).map((i) => i.number);
  };

  it('offer-or-issuer-name-or-number matches the number, the name or the offeror’s name', async () => {
    expect(await numbers('offer-or-issuer-name-or-number=ofr10002')).toEqual(['OFR10002']);
    const offer = (await inject(`${BASE}/offer/OFR10001`, d.key, d.organisation)).json();
    const byName = await numbers(`offer-or-issuer-name-or-number=${encodeURIComponent(offer.name)}`);
    expect(byName).toContain('OFR10001');
    const issuer = offer.issuer.name as string;
    const byIssuer = await numbers(`offer-or-issuer-name-or-number=${encodeURIComponent(issuer)}`);
    expect(byIssuer).toContain('OFR10001');
    expect(byIssuer).toEqual(await numbers(`issuer=${encodeURIComponent(issuer)}`));
    const answer = (await search('offer-or-issuer-name-or-number=OFR1&page-size=2')).json();
    expect(answer.links[0].href).toContain('offer-or-issuer-name-or-number=OFR1');
    expect((await numbers('offer-or-issuer-name-or-number=no%20such%20offer%20anywhere')).length).toBe(0);
  });

  it('type is product-type by the public client’s name; both differing is a 400 naming type', async () => {
    const offer = (await inject(`${BASE}/offer/OFR10001`, d.key, d.organisation)).json();
    const type = encodeURIComponent(offer.productType);
    const byType = await numbers(`type=${type}`);
    expect(byType).toContain('OFR10001');
    expect(byType).toEqual(await numbers(`product-type=${type}`));
    expect(await numbers(`type=${type}&product-type=${type}`)).toEqual(byType);
    const both = await search(`type=${type}&product-type=Other`);
    expect(both.statusCode).toBe(400);
    expect(both.json().errors[0].field).toBe('type');
    const empty = await search('offer-or-issuer-name-or-number=%20');
    expect(empty.statusCode).toBe(400);
    expect(empty.json().errors[0].field).toBe('offer-or-issuer-name-or-number');
    // Schemes take neither.
    const schemes = await inject(`${BASE}/schemes?type=x`, d.key, d.organisation);
    expect(schemes.statusCode).toBe(400);
    expect(schemes.json().errors[0].field).toBe('type');
  });
});
