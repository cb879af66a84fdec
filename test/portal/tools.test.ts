import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extraHeaders, tryUrl } from '../../src/portal/domain/try-it.ts';
import { SERVICES } from '../../src/services/registry.ts';
import { servicesWithEcho } from '../support/echo-service.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { signedInUser } from './support/api.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await testGateway({ app: { services: servicesWithEcho(['nzbn']) } });
});
afterAll(() => gateway?.close());

const keyOn = (body: string) => /id="key-primary"[^>]*>([^<]+)</.exec(body)?.[1];

describe('OAuth clients', () => {
  it('registers a confidential client, shows its secret once, and regenerates it', async () => {
    const { client } = await signedInUser(gateway);
    const created = await client.submit('/portal/clients', '/portal/clients', {
      name: 'Batch job',
      environment: 'sandbox',
      grants: ['client_credentials'],
      type: 'confidential',
      redirectUris: '',
    });
    expect(created.statusCode).toBe(201);
    const clientId = /id="client-id">([^<]+)</.exec(created.body)![1]!;
    const secret = /id="client-secret">([^<]+)</.exec(created.body)![1]!;
    const token = (id: string, s: string) =>
      gateway.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${id}:${s}`).toString('base64')}`,
        },
        payload:
          'grant_type=client_credentials&scope=https%3A%2F%2Fapi.business.govt.nz%2Fsandbox%2F.default',
      });
    expect((await token(clientId, secret)).statusCode).toBe(200);
    const list = await client.get('/portal/clients');
    expect(list.body).toContain(clientId);
    expect(list.body).not.toContain(secret);
    const again = await client.submit('/portal/clients', `/portal/clients/${clientId}/secret`, {});
    const fresh = /id="client-secret">([^<]+)</.exec(again.body)![1]!;
    expect(fresh).not.toBe(secret);
    expect((await token(clientId, secret)).statusCode).toBe(401);
    expect((await token(clientId, fresh)).statusCode).toBe(200);
    const other = await signedInUser(gateway);
    const stolen = await other.client.submit('/portal/clients', `/portal/clients/${clientId}/secret`, {});
    expect(stolen.statusCode).toBe(404);
  });

  it('registers a public client with redirect URIs, and names the field of a mistake', async () => {
    const { client } = await signedInUser(gateway);
    const created = await client.submit('/portal/clients', '/portal/clients', {
      name: 'Mobile app',
      environment: 'sandbox',
      grants: ['authorization_code', 'refresh_token'],
      type: 'public',
      redirectUris: 'http://127.0.0.1:7777/cb\r\nhttps://app.example/cb\n',
    });
    expect(created.statusCode).toBe(201);
    expect(created.body).not.toContain('id="client-secret"');
    expect(created.body).toContain('https://app.example/cb');
    const mistakes = [
      { grants: ['client_credentials'], type: 'public', redirectUris: '' },
      { grants: ['authorization_code'], type: 'public', redirectUris: 'http://evil.example/cb' },
      { grants: ['authorization_code'], type: 'confidential', redirectUris: '' },
      { grants: [], type: 'confidential', redirectUris: '' },
      { grants: ['password'], type: 'confidential', redirectUris: '' },
    ];
    for (const mistake of mistakes) {
      const response = await client.submit('/portal/clients', '/portal/clients', {
        name: 'X',
        environment: 'sandbox',
        ...mistake,
      });
      expect(response.statusCode).toBe(400);
      expect(response.body).toMatch(/class="error" id="(grantTypes|redirectUris)-error"/);
    }
    const badEnvironment = await client.submit('/portal/clients', '/portal/clients', {
      name: 'X',
      environment: 'staging',
      grants: ['client_credentials'],
    });
    expect(badEnvironment.statusCode).toBe(400);
  });
});

describe('usage', () => {
  it('draws calls per day with 4xx and 429s, with a table of the same numbers', async () => {
    const { client } = await signedInUser(gateway);
    const created = await client.submit('/portal/products', '/portal/subscriptions', {
      productId: 'sandbox-nzbn',
    });
    const key = keyOn(created.body)!;
    const call = (path: string) =>
      gateway.app.inject({ url: `/sandbox/nzbn/v5/${path}`, headers: { 'Ocp-Apim-Subscription-Key': key } });
    for (const path of ['echo', 'echo', 'echo', 'bad', 'bad']) await call(path);
    const id = /id="subscription-([0-9a-f-]{36})"/.exec(
      (await client.get('/portal/subscriptions')).body,
    )![1]!;
    const page = await client.get(`/portal/subscriptions/${id}/usage?days=7`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<svg class="chart"');
    expect(page.body).toContain('role="img"');
    expect(page.body).toContain('5 calls, 2 client errors (4xx), 0 throttled (429)');
    const today = new Date().toISOString().slice(0, 10);
    expect(page.body).toContain(
      `<tr><th scope="row">${today}</th><td class="num">5</td><td class="num">2</td><td class="num">0</td>`,
    );
    expect(page.body.match(/<tr><th scope="row">\d{4}-\d{2}-\d{2}<\/th>/g)).toHaveLength(7);
    for (const days of ['abc', '-1', '100000']) {
      expect((await client.get(`/portal/subscriptions/${id}/usage?days=${days}`)).statusCode).toBe(200);
    }
  });
});

describe('try it', () => {
  it('calls the sandbox in-process with a pasted key and shows status, headers and body', async () => {
    const { client } = await signedInUser(gateway);
    const created = await client.submit('/portal/products', '/portal/subscriptions', {
      productId: 'sandbox-nzbn',
    });
    const key = keyOn(created.body)!;
    const ok = await client.submit('/portal/try', '/portal/try', {
      service: 'nzbn',
      method: 'GET',
      path: '/echo?x=1',
      key,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('<strong id="try-status">200</strong>');
    expect(ok.body).toContain('api-business-govt-nz-request-id');
    expect(ok.body).toContain('&#34;environment&#34;: &#34;sandbox&#34;');
    const refused = await client.submit('/portal/try', '/portal/try', {
      service: 'nzbn',
      path: '/echo',
      key: 'nope',
      method: 'GET',
    });
    expect(refused.body).toContain('<strong id="try-status">401</strong>');
  });

  it('keeps the call inside the chosen sandbox API', async () => {
    const { client } = await signedInUser(gateway);
    for (const path of [
      '/../../../portal/account',
      '/%2e%2e/%2e%2e/%2e%2e/gateway/nzbn/v5/echo',
      '//evil.example/',
      'echo',
    ]) {
      const response = await client.submit('/portal/try', '/portal/try', {
        service: 'nzbn',
        method: 'GET',
        path,
        key: 'k',
      });
      expect(response.statusCode).toBe(400);
    }
    expect(tryUrl(SERVICES, 'nzbn', '/../x')).toEqual({ error: 'Path: must stay within the API.' });
    expect(tryUrl(SERVICES, 'nzbn', '/entities?q=a/../b')).toEqual({
      url: '/sandbox/nzbn/v5/entities?q=a/../b',
    });
    expect(tryUrl(SERVICES, 'admin', '/clock')).toEqual({ error: 'Choose one of the listed APIs.' });
    const badMethod = await client.submit('/portal/try', '/portal/try', {
      service: 'nzbn',
      method: 'TRACE',
      path: '/echo',
      key: 'k',
    });
    expect(badMethod.statusCode).toBe(400);
    const badKey = await client.submit('/portal/try', '/portal/try', {
      service: 'nzbn',
      method: 'GET',
      path: '/echo',
      key: 'a b',
    });
    expect(badKey.statusCode).toBe(400);
  });

  it('sends extra request headers with the call: x-organisation reaches the guard', async () => {
    const { client } = await signedInUser(gateway);
    const identifier = `try-${Math.random().toString(36).slice(2, 10)}`;
    expect(
      (await client.submit('/portal/sandbox', '/portal/sandbox/organisations', { identifier, name: 'Try' }))
        .statusCode,
    ).toBe(201);
    const key = keyOn(
      (await client.submit('/portal/products', '/portal/subscriptions', { productId: 'sandbox-nzbn' })).body,
    )!;
    const form = await client.get('/portal/try');
    expect(form.body).toContain('id="header-name-1"');
    expect(form.body).toContain('<label for="header-value-3">Header 3 value</label>');
    const call = (headerName: string[], headerValue: string[]) =>
      client.submit('/portal/try', '/portal/try', {
        service: 'nzbn',
        method: 'GET',
        path: '/echo',
        key,
        headerName,
        headerValue,
      });
    const mine = await call(['', 'x-organisation', ''], ['', identifier, '']);
    expect(mine.statusCode).toBe(200);
    expect(mine.body).toContain('<strong id="try-status">200</strong>');
    expect(mine.body).toContain('&#34;organisationId&#34;');
    expect(mine.body).toContain(`<code>x-organisation: ${identifier}</code>`);
    // The sent row stays filled in the form below the answer.
    expect(mine.body).toContain(`value="${identifier}"`);
    const foreign = await call(['x-organisation'], ['sandbox-operators']);
    expect(foreign.body).toContain('<strong id="try-status">403</strong>');
  });

  it('refuses extra headers that are not tokens, hop-by-hop, set by the call, or more than one line', async () => {
    const { client } = await signedInUser(gateway);
    const cases: [string, string, RegExp][] = [
      ['x organisation', 'a', /Header 1 name: must be a token/],
      ['x-org:', 'a', /Header 1 name: must be a token/],
      ['Connection', 'close', /Header 1 name: Connection is a hop-by-hop header/],
      ['transfer-encoding', 'chunked', /hop-by-hop/],
      ['Host', 'evil.example', /Host is set by the call itself/],
      ['content-length', '5', /set by the call itself/],
      ['X-Forwarded-For', '10.0.0.1', /set by the call itself/],
      ['Ocp-Apim-Subscription-Key', 'k', /is the key field above/],
      ['authorization', 'Bearer x', /bearer token field/],
      ['x-a', 'one\r\nx-b: two', /Header 1 value: must be one line/],
      ['x-a', 'caf\u00e9', /Header 1 value: visible ASCII/],
      ['', 'orphan', /Header 1 name: required when a value is given/],
    ];
    for (const [name, value, message] of cases) {
      const response = await client.submit('/portal/try', '/portal/try', {
        service: 'nzbn',
        method: 'GET',
        path: '/echo',
        key: 'k',
        headerName: [name],
        headerValue: [value],
      });
      expect(response.statusCode, name).toBe(400);
      const alert = /<p class="error" role="alert">([^<]*)<\/p>/.exec(response.body)?.[1] ?? '';
      expect(alert.replaceAll('&#39;', "'"), name).toMatch(message);
    }
    expect(extraHeaders(['x-a', 'X-A'], ['1', '2'])).toEqual({ error: 'Header 2 name: X-A is given twice.' });
    expect(extraHeaders(['x-a', '', 'x-b'], ['1', '', ' two '])).toEqual({
      headers: [
        { name: 'x-a', value: '1' },
        { name: 'x-b', value: 'two' },
      ],
    });
    expect(
      'error' in
        extraHeaders(
          Array.from({ length: 11 }, (_, i) => `x-${i}`),
          Array(11).fill('v'),
        ),
    ).toBe(true);
  });
});
