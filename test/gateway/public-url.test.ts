import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { listenUrl, PublicUrl } from '../../src/platform/http/public-url.ts';
import { PROJECT_ROOT } from '../../src/platform/paths.ts';
import { type DiscloseGateway, discloseGateway } from '../services/disclose/support/api.ts';
import { seedBusinessNumbers } from '../support/business-numbers.ts';
import { subscriber } from '../support/runtime.ts';

/**
 * Every absolute URL the gateway makes starts with its public base URL (RSG_PUBLIC_URL), whatever Host,
 * X-Forwarded-Host or X-Forwarded-Proto a client sends: the offers register's signed download redirects
 * and registerUrl, the business number register's links and Location, the IP office's WSDL addresses,
 * the portal's quick start. X-Forwarded-For is believed only from RSG_TRUSTED_PROXIES.
 */
const PUBLIC = 'https://registers.example/rsg';
const FORGED = {
  host: 'evil.example:666',
  'x-forwarded-host': 'evil.example:666',
  'x-forwarded-proto': 'gopher',
};
const lines: string[] = [];
let d: DiscloseGateway;
let nzbnKey: string;
let iponzKey: string;

beforeAll(async () => {
  d = await discloseGateway({
    env: { RSG_PUBLIC_URL: PUBLIC, RSG_TRUSTED_PROXIES: '10.0.0.0/8, ::1', LOG_LEVEL: 'debug' },
    app: { logger: true, logStream: { write: (line: string) => void lines.push(line) } },
  });
  await seedBusinessNumbers(d.gateway, 10);
  nzbnKey = (await subscriber(d.gateway, 'sandbox-nzbn')).primaryKey;
  iponzKey = (await subscriber(d.gateway, 'sandbox-iponz')).primaryKey;
}, 120_000);
afterAll(() => d?.close());

/** Every http(s) URL in a text. */
const urlsIn = (text: string) => text.match(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi) ?? [];

function expectOnlyPublic(text: string, atLeast = 1) {
  expect(text).not.toContain('evil.example');
  expect(text).not.toContain('gopher');
  const ours = urlsIn(text).filter((url) => url.startsWith(PUBLIC));
  expect(ours.length).toBeGreaterThanOrEqual(atLeast);
}

describe('a forged Host header changes no URL', () => {
  it('the offers register: registerUrl and the signed document redirect', async () => {
    const offer = await d.get('/offer/OFR10001', FORGED);
    expect(offer.statusCode).toBe(200);
    expect(offer.json().registerUrl).toBe(
      `${PUBLIC}/sandbox/companies-office/disclose-register/v1/online-register/offer/OFR10001`,
    );
    expectOnlyPublic(offer.body);
    const list = await d.get('/scheme/SCH10000/governing-documents', FORGED);
    const document = list.json().items[0] as { href: string };
    const redirect = await d.get(
      document.href.replace(/^.*\/companies-office\/disclose-register\/v1/, ''),
      FORGED,
    );
    expect(redirect.statusCode).toBe(302);
    const location = String(redirect.headers.location);
    expect(location.startsWith(`${PUBLIC}/sandbox/companies-office/disclose-register/v1/files/`)).toBe(true);
    expect(location).toContain('signature=');
    expectOnlyPublic(location);
  });

  it('the business number register: links and Location', async () => {
    const headers = { ...FORGED, 'Ocp-Apim-Subscription-Key': nzbnKey };
    const entity = await d.gateway.app.inject({
      url: '/sandbox/nzbn/v5/entities/9429000001007/discoverable',
      headers,
    });
    expect(entity.statusCode, entity.body).toBe(200);
    expectOnlyPublic(entity.body);
    const created = await d.gateway.app.inject({
      method: 'POST',
      url: '/sandbox/nzbn/v5/watchlists',
      headers,
      payload: {
        name: 'Suppliers',
        channel: 'EMAIL',
        watchlistEmailAddresses: ['team@example.com'],
        wildcard: 'ALL',
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    expectOnlyPublic(String(created.headers.location));
    expectOnlyPublic(created.body);
  });

  it('the IP office: the WSDL’s addresses and its XSD imports', async () => {
    const wsdl = await d.gateway.app.inject({
      url: '/sandbox/iponz/v5/trademarksearch?wsdl',
      headers: { ...FORGED, 'Ocp-Apim-Subscription-Key': iponzKey },
    });
    expect(wsdl.statusCode, wsdl.body).toBe(200);
    expect(wsdl.body).toContain(`location="${PUBLIC}/sandbox/iponz/v5/trademarksearch"`);
    expectOnlyPublic(wsdl.body);
  });

  it('the portal’s quick start', async () => {
    const page = await d.gateway.app.inject({ url: '/portal/', headers: FORGED });
    expect(page.statusCode).toBe(200);
    expectOnlyPublic(page.body);
  });
});

describe('X-Forwarded-For', () => {
  const remoteOf = async (remoteAddress: string) => {
    lines.length = 0;
    await d.gateway.app.inject({
      url: '/healthz',
      remoteAddress,
      headers: { 'x-forwarded-for': '203.0.113.9' },
    });
    const incoming = lines.map((line) => JSON.parse(line)).find((line) => line.msg === 'incoming request');
    return incoming?.req?.remoteAddress;
  };

  it('is believed from a configured proxy only', async () => {
    expect(await remoteOf('10.1.2.3')).toBe('203.0.113.9');
    expect(await remoteOf('192.0.2.7')).toBe('192.0.2.7');
  });
});

describe('the public base URL', () => {
  it('without RSG_PUBLIC_URL: the listen address, settled once the server listens', () => {
    expect(listenUrl('127.0.0.1', 8080)).toBe('http://127.0.0.1:8080');
    expect(listenUrl('0.0.0.0', 8080)).toBe('http://localhost:8080');
    expect(listenUrl('::', 8080)).toBe('http://localhost:8080');
    expect(listenUrl('::1', 8080)).toBe('http://[::1]:8080');
    // The configured host, as the banner prints it, with the port bound (PORT=0 picks it at listen).
    const derived = new PublicUrl(undefined, 'localhost', 0);
    expect(derived.base).toBe('http://localhost:0');
    derived.listening({ address: '127.0.0.1', family: 'IPv4', port: 41234 });
    expect(derived.absolute('/oauth2')).toBe('http://localhost:41234/oauth2');
    const configured = new PublicUrl(PUBLIC, '127.0.0.1', 0);
    configured.listening({ address: '127.0.0.1', family: 'IPv4', port: 41234 });
    expect(configured.base).toBe(PUBLIC);
  });

  it('RSG_TRUSTED_PROXIES: addresses and CIDR ranges, none by default', () => {
    expect(loadConfig({}).trustedProxies).toEqual([]);
    expect(loadConfig({ RSG_TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.1,::1,fd00::/8' }).trustedProxies).toEqual([
      '10.0.0.0/8',
      '192.0.2.1',
      '::1',
      'fd00::/8',
    ]);
    for (const wrong of ['proxy.internal', '10.0.0.0/33', '10.0.0.1/8/2', '::1/129'])
      expect(() => loadConfig({ RSG_TRUSTED_PROXIES: wrong })).toThrow(ConfigError);
    expect(() => loadConfig({ RSG_TRUSTED_PROXIES: '10.0.0.1, nginx' })).toThrow(
      'RSG_TRUSTED_PROXIES: must be IP addresses or CIDR ranges separated by commas, got "nginx"',
    );
  });
});

describe('the request’s host in the code', () => {
  /** Every .ts file under src/. */
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? sources(full) : entry.name.endsWith('.ts') ? [full] : [];
    });

  it('is read in one place only: the log line’s serializer (a host in a log is no link)', () => {
    const users = sources(path.join(PROJECT_ROOT, 'src'))
      .filter((file) =>
        /\b(request|req)\.(host|hostname|protocol)\b|headers\.host\b|headers\[['"](host|x-forwarded-host)['"]\]/i.test(
          readFileSync(file, 'utf8'),
        ),
      )
      .map((file) => path.relative(PROJECT_ROOT, file));
    expect(users).toEqual(['src/platform/http/log-redaction.ts']);
  });
});
