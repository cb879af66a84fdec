import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfOf, PortalClient } from '../portal/support/api.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from '../services/nzbn/support/api.ts';
import { subscriber } from '../support/runtime.ts';

/**
 * Text that is not Unicode — bytes that are not UTF-8 in a JSON or form body, %-encoded ones in a query
 * string or a path, lone surrogates written as JSON escapes — is a 400 naming the field in the addressed
 * API's dialect, and nothing is stored: the business number register's body, problem+json (the admin
 * clock route, rental statistics), the OAuth token endpoint's RFC 6749 body, the portal's error page.
 */
let t: NzbnTest;
let operatorKey: string;
let rentKey: string;
beforeAll(async () => {
  t = await nzbnTest({ entities: 200, clockMode: 'virtual' });
  operatorKey = (await subscriber(t.gateway, 'sandbox-nzbn', { operator: true })).primaryKey;
  rentKey = (await subscriber(t.gateway, 'sandbox-market-rent')).primaryKey;
});
afterAll(() => t?.close());

/** Bytes that no UTF-8 decoder accepts, each placed inside a string value. */
const BAD_BYTES: [string, number[]][] = [
  ['C3 28 (a missing continuation byte)', [0xc3, 0x28]],
  ['FF', [0xff]],
  ['C0 AF (an overlong "/")', [0xc0, 0xaf]],
  ['E2 82 (a truncated sequence)', [0xe2, 0x82]],
  ['ED A0 80 (an encoded surrogate)', [0xed, 0xa0, 0x80]],
];
/** Lone surrogates as JSON escapes. */
const BAD_ESCAPES: [string, string][] = [
  ['a high half alone', '\\ud800'],
  ['a low half alone', '\\udfff'],
  ['a high half followed by a letter', '\\ud83dA'],
  ['a pair written backwards', '\\ude00\\ud83d'],
];
/** The same, %-encoded in a query string or a form. */
const BAD_ESCAPED_BYTES = ['%C3%28', '%FF', '%C0%AF', '%E2%82', '%ED%A0%80'];

/** A JSON body with `bytes` spliced into the string at `"@@"`. */
const spliced = (value: unknown, bytes: Buffer | string): Buffer => {
  const [before, after] = JSON.stringify(value).split('@@') as [string, string];
  return Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]);
};
const JSON_TYPE = { 'content-type': 'application/json' };
const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' };

function expectNzbnRefusal(response: LightMyRequestResponse, field: string, rule: string) {
  expect(response.statusCode, response.body).toBe(400);
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  const body = response.json();
  expect(body).toMatchObject({ status: '400', errorCode: 'invalid-parameter' });
  expect(body.list).toEqual([{ field, message: expect.stringContaining(rule) }]);
  expect(body.errorDescription).toContain(field);
}

function expectProblemRefusal(response: LightMyRequestResponse, field: string, rule: string) {
  expect(response.statusCode, response.body).toBe(400);
  expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  const body = response.json();
  expect(body).toMatchObject({ status: 400, title: 'Bad Request' });
  expect(body.errors).toEqual([{ field, message: expect.stringContaining(rule) }]);
}

const count = async (pool: 'gateway' | 'sandbox', table: string) => {
  const db = pool === 'gateway' ? t.gateway.runtime.gateway : t.gateway.runtime.environments.sandbox;
  return (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;
};

describe('the business number register (its own error body)', () => {
  const watchlist = {
    name: 'Suppliers @@',
    channel: 'EMAIL',
    changeEventTypes: ['ALL'],
    watchlistEmailAddresses: ['buyer@example.com'],
    nzbns: [FIXTURE.company],
  };

  it('a watchlist whose name holds bad bytes or a lone surrogate: 400 naming `name`, none stored', async () => {
    const before = await count('sandbox', 'nzbn_watchlists');
    for (const [what, bytes] of BAD_BYTES) {
      const response = await t.call('POST', '/watchlists', {
        token: t.owner.token,
        headers: JSON_TYPE,
        payload: spliced(watchlist, Buffer.from(bytes)),
      });
      expectNzbnRefusal(response, 'name', 'is not valid UTF-8');
      expect(response.json().list[0].message, what).toMatch(/byte \d+ of the body/);
    }
    for (const [what, written] of BAD_ESCAPES) {
      const response = await t.call('POST', '/watchlists', {
        token: t.owner.token,
        headers: JSON_TYPE,
        payload: spliced(watchlist, written),
      });
      expectNzbnRefusal(response, 'name', 'lone surrogate');
      expect(response.statusCode, what).toBe(400);
    }
    expect(await count('sandbox', 'nzbn_watchlists')).toBe(before);
    // The same body with a real character is stored: the refusals were about the text alone.
    const fine = await t.call('POST', '/watchlists', {
      token: t.owner.token,
      headers: JSON_TYPE,
      payload: spliced(watchlist, 'é 😀'),
    });
    expect(fine.statusCode, fine.body).toBe(201);
    expect(fine.json().name).toBe('Suppliers é 😀');
    expect(await count('sandbox', 'nzbn_watchlists')).toBe(before + 1);
  });

  it('nested fields are named by their path; bytes outside any string name `body`', async () => {
    const listBefore = await count('sandbox', 'nzbn_watchlists');
    const nested = await t.call('POST', '/watchlists', {
      token: t.owner.token,
      headers: JSON_TYPE,
      payload: spliced(
        { ...watchlist, name: 'x', watchlistEmailAddresses: ['a@b.nz', 'c@@d.nz'] },
        '\\udfff',
      ),
    });
    expectNzbnRefusal(nested, 'watchlistEmailAddresses.1', 'lone surrogate');
    const bytes = await t.call('POST', '/watchlists', {
      token: t.owner.token,
      headers: JSON_TYPE,
      payload: spliced({ ...watchlist, name: 'x', nzbns: ['@@'] }, Buffer.from([0xed, 0xa0, 0x80])),
    });
    expectNzbnRefusal(bytes, 'nzbns.0', 'is not valid UTF-8');
    const between = await t.call('POST', '/watchlists', {
      token: t.owner.token,
      headers: JSON_TYPE,
      payload: Buffer.concat([Buffer.from('{"name":"x",'), Buffer.from([0xff]), Buffer.from('}')]),
    });
    expectNzbnRefusal(between, 'body', 'is not valid UTF-8 (the bad bytes start at byte 12');
    // A body cut off in the middle of a character.
    const truncated = await t.call('POST', '/watchlists', {
      token: t.owner.token,
      headers: JSON_TYPE,
      payload: Buffer.concat([Buffer.from('{"name":"x'), Buffer.from([0xf0, 0x9f, 0x98])]),
    });
    expectNzbnRefusal(truncated, 'body', 'is not valid UTF-8');
    expect(await count('sandbox', 'nzbn_watchlists')).toBe(listBefore);
  });

  it('a Primary Business Data write (a trading name): 400 naming `0.name`, the entity unchanged', async () => {
    const E = FIXTURE.authority;
    const etag = (await t.call('GET', `/entities/${E}`, { token: t.owner.token })).headers.etag;
    const events = await count('sandbox', 'nzbn_change_events');
    for (const bad of [
      ...BAD_BYTES.map(([, bytes]) => Buffer.from(bytes)),
      ...BAD_ESCAPES.map(([, e]) => e),
    ]) {
      const response = await t.call('POST', `/entities/${E}/trading-names`, {
        token: t.owner.token,
        headers: JSON_TYPE,
        // The published body of POST trading-names: an array of trading names (the field is the item's).
        payload: spliced([{ name: 'Kiwi @@ Traders' }], bad),
      });
      expect(response.statusCode, String(bad)).toBe(400);
      expect(response.json().list).toEqual([{ field: '0.name', message: expect.any(String) }]);
    }
    expect((await t.call('GET', `/entities/${E}`, { token: t.owner.token })).headers.etag).toBe(etag);
    expect(await count('sandbox', 'nzbn_change_events')).toBe(events);
  });

  it('%-encoded bytes in a query parameter name it; in a path segment, `path`', async () => {
    for (const bad of BAD_ESCAPED_BYTES) {
      expectNzbnRefusal(await t.call('GET', `/entities?search-term=a${bad}b`), 'search-term', 'UTF-8');
      const path = await t.call('GET', `/entities/${bad}`);
      expect(path.statusCode, bad).toBe(400);
      expect(path.json()).toMatchObject({ status: '400', list: [{ field: 'path' }] });
    }
    // Real characters, %-encoded, are searched for as usual.
    expect((await t.call('GET', '/entities?search-term=caf%C3%A9')).statusCode).toBe(200);
  });
});

describe('problem+json: the admin clock route and rental statistics', () => {
  const clock = async () =>
    (
      await t.gateway.app.inject({
        url: '/sandbox/admin/clock',
        headers: { 'ocp-apim-subscription-key': operatorKey },
      })
    ).json().offsetMs as number;

  it('a clock move whose duration holds bad bytes or a lone surrogate: 400 naming `duration`, not moved', async () => {
    const before = await clock();
    const cases: [Buffer | string, string][] = [
      ...BAD_BYTES.map(([, bytes]): [Buffer, string] => [Buffer.from(bytes), 'is not valid UTF-8']),
      ...BAD_ESCAPES.map(([, written]): [string, string] => [written, 'lone surrogate']),
    ];
    for (const [bad, rule] of cases) {
      const response = await t.gateway.app.inject({
        method: 'POST',
        url: '/sandbox/admin/clock/advance',
        headers: { ...JSON_TYPE, 'ocp-apim-subscription-key': operatorKey },
        payload: spliced({ duration: '1h@@' }, bad),
      });
      expectProblemRefusal(response, 'duration', rule);
    }
    expect(await clock()).toBe(before);
  });

  it('a statistics parameter %-encoding bytes that are not UTF-8: 400 naming it', async () => {
    for (const bad of BAD_ESCAPED_BYTES) {
      const response = await t.gateway.app.inject({
        url: `/sandbox/tenancy-services/market-rent/v2/statistics?period-ending=2025-01&area-definition=${bad}`,
        headers: { 'ocp-apim-subscription-key': rentKey },
      });
      expectProblemRefusal(response, 'area-definition', 'is not valid UTF-8');
    }
  });
});

describe('forms', () => {
  it('the OAuth token endpoint: 400 in the RFC 6749 shape naming the parameter, no token stored', async () => {
    const before = await count('gateway', 'oidc_payloads');
    const forms: [Buffer | string, string][] = [
      ...BAD_ESCAPED_BYTES.map((bad): [string, string] => [
        `grant_type=client_credentials&client_id=client&scope=${bad}`,
        'scope',
      ]),
      ...BAD_BYTES.map(([, bytes]): [Buffer, string] => [
        Buffer.concat([Buffer.from('grant_type=client_credentials&client_id='), Buffer.from(bytes)]),
        'client_id',
      ]),
    ];
    for (const [payload, field] of forms) {
      const response = await t.gateway.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: FORM_TYPE,
        payload,
      });
      expect(response.statusCode, String(payload)).toBe(400);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.json()).toEqual({
        error: 'invalid_request',
        error_description: expect.stringMatching(new RegExp(`^${field}: is not valid UTF-8`)),
      });
    }
    expect(await count('gateway', 'oidc_payloads')).toBe(before);
  });

  it('the portal’s sign-up form: a 400 page naming the field, no account made', async () => {
    const client = new PortalClient(t.gateway.app);
    const csrf = csrfOf((await client.get('/portal/signup')).body);
    const users = await count('gateway', 'users');
    const post = (payload: Buffer | string) =>
      t.gateway.app.inject({
        method: 'POST',
        url: '/portal/signup',
        headers: { ...FORM_TYPE, cookie: client.cookieHeader },
        payload,
      });
    const form = (name: Buffer | string) =>
      Buffer.concat([
        Buffer.from(
          `csrf=${encodeURIComponent(csrf)}&email=utf8-${Date.now()}%40example.test&password=long+enough+pass&name=`,
        ),
        Buffer.from(name),
      ]);
    for (const bad of [...BAD_ESCAPED_BYTES, ...BAD_BYTES.map(([, bytes]) => Buffer.from(bytes))]) {
      const response = await post(form(bad));
      expect(response.statusCode, String(bad)).toBe(400);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.body).toMatch(/<p role="alert">name: is not valid UTF-8/);
    }
    expect(await count('gateway', 'users')).toBe(users);
    // The same form with a real name makes the account.
    expect((await post(form('Ngaio%20M%C4%81ori'))).statusCode).toBe(303);
    expect(await count('gateway', 'users')).toBe(users + 1);
  });
});
