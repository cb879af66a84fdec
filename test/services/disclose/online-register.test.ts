import Fastify, { type RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../../src/gateway/service-context.ts';
import { discloseService as disclose } from '../../../src/services/disclose/index.ts';
import { BASE, type DiscloseGateway, discloseGateway } from './support/api.ts';

let d: DiscloseGateway;
beforeAll(async () => {
  d = await discloseGateway();
}, 120_000);
afterAll(() => d?.close());

const PAGES = `${BASE}/online-register`;

/** A page of the online register, as a browser asks for it: no key. */
const page = (path: string, headers: Record<string, string> = {}) =>
  d.gateway.app.inject({ method: 'GET', url: `${PAGES}${path}`, headers });

/** The page answered: HTML with its status and heading, never the API's JSON error. */
async function expectPage(path: string, status: number, heading?: string) {
  const response = await page(path);
  expect(response.statusCode, path).toBe(status);
  expect(response.headers['content-type'], path).toBe('text/html; charset=utf-8');
  if (heading) expect(response.body, path).toContain(`<h1>${heading}</h1>`);
  return response;
}

const LONG_NUMBER = `OFR${'1'.repeat(40)}`;

describe('the online register’s pages: what they take', () => {
  it('answers an offer, a scheme and a fund, current and at a version', async () => {
    const offer = (await d.get('/offer/OFR10001')).json();
    expect((await expectPage('/offer/OFR10001', 200, offer.name)).body).toContain('OFR10001');
    const old = await expectPage('/offer/OFR10001?version=OFR10001-v1', 200, offer.name);
    expect(old.body).toContain('a historic version');
    const scheme = (await d.get('/scheme/SCH10000')).json();
    await expectPage('/scheme/SCH10000', 200, scheme.name);
    const fund = (await d.get('/fund/FND10001')).json();
    await expectPage('/fund/FND10001', 200, fund.name);
    expect((await expectPage('/fund/FND10001?version=OFR10001-v1', 200)).body).toContain('FND10001-v1');
  });

  it('ignores a query parameter it does not take, as the register’s reads do', async () => {
    await expectPage('/offer/OFR10001?utm_source=mail', 200);
    expect((await expectPage('/offer/OFR10001?version=OFR10001-v1&ref=x', 200)).body).toContain(
      'a historic version',
    );
    await expectPage('/fund/FND10001?fbclid=abc', 200);
    // Every offer: 6 of schemes, 4 outside them, and SCH10000's 2 further offers.
    await expectPage('/offers?page=2', 200, 'Offers (12)');
    await expectPage('/schemes?colour=red', 200);
  });

  it('a number that cannot be one of the page’s kind is the page’s 404, whatever its length', async () => {
    for (const [path, message] of [
      ['/offer/OFR1', 'OFR1 is not a offer number.'],
      ['/offer/SCH10000', 'SCH10000 is not a offer number.'],
      // Longer than any number: refused by the page's schema, answered by the page as the same 404.
      [`/offer/${LONG_NUMBER}`, `${LONG_NUMBER.slice(0, 40)} is not a offer number.`],
      [`/scheme/${'S'.repeat(300)}`, `${'S'.repeat(40)} is not a scheme number.`],
      ['/fund/FND1', 'FND1 is not on the register.'],
      [`/fund/FND${'9'.repeat(50)}`, `FND${'9'.repeat(37)} is not on the register.`],
    ] as const) {
      const response = await expectPage(path, 404, 'Not on the register');
      expect(response.body, path).toContain(message);
    }
    await expectPage('/offer/OFR99999', 404, 'Not on the register');
  });

  it('a version it cannot read is the page’s 400 naming version; a version not there its 404', async () => {
    for (const query of [
      'version=latest',
      'version=OFR10002-v1',
      // Given twice, or longer than any version identifier: refused by the page's schema, as a page.
      'version=OFR10001-v1&version=OFR10001-v2',
      `version=OFR10001-v${'1'.repeat(30)}`,
    ]) {
      for (const path of [`/offer/OFR10001?${query}`, `/fund/FND10001?${query}`]) {
        const response = await expectPage(path, 400, 'Not a valid address');
        expect(response.body, path).toContain('version');
      }
    }
    await expectPage('/scheme/SCH10000?version=SCH10000-v1&version=SCH10000-v1', 400, 'Not a valid address');
    await expectPage('/offer/OFR10001?version=OFR10001-v99', 404, 'Not on the register');
  });

  it('answers HTML whatever the Accept, as it always has', async () => {
    for (const path of ['/offer/OFR10001', '/offer/OFR1', '/offer/OFR10001?version=latest']) {
      const response = await page(path, { accept: 'application/json' });
      expect(response.headers['content-type'], path).toBe('text/html; charset=utf-8');
    }
    const funds = await page('/funds', { accept: 'application/json' });
    expect(funds.statusCode).toBe(302);
    expect(funds.headers.location).toBe(`${PAGES}/offers`);
  });
});

/**
 * The public routes are hidden from the OpenAPI document, so the conformance matrix never sees them:
 * their declarations are checked here, as the routes are added.
 */
describe('the public routes declare their input through the kit', () => {
  it('every path parameter and every query parameter read, typed by a schema, validation on', async () => {
    const app = Fastify();
    const routes: RouteOptions[] = [];
    app.addHook('onRoute', (route) => {
      routes.push(route);
    });
    const context = {
      environment: 'sandbox',
      service: disclose,
      keyedUniform: () => 0.5,
      database: {},
      absoluteUrl: (path: string) => path,
    } as unknown as ServiceContext;
    await app.register(disclose.publicRoutes!, context);
    await app.ready();
    const declared = Object.fromEntries(
      routes.map((route) => {
        const schema = (route.schema ?? {}) as {
          hide?: boolean;
          params?: { properties: object };
          querystring?: { properties: object };
        };
        const pathNames = [...route.url.matchAll(/:(\w+)/g)].map((m) => m[1]);
        expect(Object.keys(schema.params?.properties ?? {}), route.url).toEqual(pathNames);
        expect(schema.hide, route.url).toBe(true);
        expect(route.validatorCompiler, route.url).toBeUndefined();
        // The kit's hook: the declared operation's context for its request (operation.ts).
        expect([route.onRequest].flat().filter(Boolean).length, route.url).toBeGreaterThan(0);
        return [route.url, Object.keys(schema.querystring?.properties ?? {})];
      }),
    );
    expect(declared).toEqual({
      '/files/:documentRecId': ['expires', 'caller', 'signature'],
      '/online-register/offer/:number': ['version'],
      '/online-register/scheme/:number': ['version'],
      '/online-register/fund/:number': ['version'],
      '/online-register/offers': [],
      '/online-register/schemes': [],
      '/online-register/funds': [],
    });
    await app.close();
  });
});
