import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNzDateTimeString } from '../../../src/platform/nz-time.ts';
import { nzbnForIndex } from '../../../src/services/nzbn/sandbox/numbers.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';
import { OpenApi } from './support/openapi.ts';

let t: NzbnTest;
let api: OpenApi;
beforeAll(async () => {
  t = await nzbnTest();
  api = await OpenApi.load(t);
});
afterAll(() => t?.close());

/** Every string that looks like a date must be in the register's form. */
function datesIn(value: unknown, found: string[] = []): string[] {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value)) found.push(value);
  else if (Array.isArray(value)) for (const item of value) datesIn(item, found);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) datesIn(item, found);
  return found;
}

describe('GET /entities/{nzbn}', () => {
  it('answers a fixture and a generated entity in the published shape, with an ETag', async () => {
    for (const nzbn of [FIXTURE.company, nzbnForIndex(7), nzbnForIndex(999)]) {
      const response = await t.call('GET', `/entities/${nzbn}`);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers.etag).toMatch(/^"[\w-]{27}(-p)?"$/);
      api.conforms('GET', '/entities/{nzbn}', response);
      const entity = response.json();
      expect(entity.nzbn).toBe(nzbn);
      expect(datesIn(entity).every(isNzDateTimeString)).toBe(true);
    }
  });

  it('keeps unknown values as null keys, never leaves them out', async () => {
    const entity = (await t.call('GET', `/entities/${FIXTURE.soleTrader}`)).json();
    expect(entity).toHaveProperty('company-details', null);
    expect(entity).toHaveProperty('sourceRegisterUniqueIdentifier', null);
    expect(entity.registrationDate).toBe('2009-03-24T10:00:00.000+1300');
  });

  it('answers 304 with an empty body for a current If-None-Match, 200 for a stale one', async () => {
    const first = await t.call('GET', `/entities/${FIXTURE.company}`);
    const etag = String(first.headers.etag);
    const again = await t.call('GET', `/entities/${FIXTURE.company}`, { headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    const weak = await t.call('GET', `/entities/${FIXTURE.company}`, {
      headers: { 'if-none-match': `W/${etag}` },
    });
    expect(weak.statusCode).toBe(304);
    const stale = await t.call('GET', `/entities/${FIXTURE.company}`, {
      headers: { 'if-none-match': '"stale"' },
    });
    expect(stale.statusCode).toBe(200);
    const modified = await t.call('GET', `/entities/${FIXTURE.company}`, {
      headers: { 'if-modified-since': new Date().toUTCString() },
    });
    expect(modified.statusCode).toBe(304);
    const failed = await t.call('GET', `/entities/${FIXTURE.company}`, {
      headers: { 'if-match': '"stale"' },
    });
    expect(failed.statusCode).toBe(412);
    api.conforms('GET', '/entities/{nzbn}', failed);
  });

  it('a missing entity is 404 "Object Not Found" in the published error body', async () => {
    const response = await t.call('GET', `/entities/${nzbnForIndex(1_000_000)}`);
    expect(response.statusCode).toBe(404);
    const body = response.json();
    expect(body).toMatchObject({ status: '404', errorCode: 'NOT_FOUND', list: [] });
    expect(body.errorDescription).toContain('Object Not Found');
    api.conforms('GET', '/entities/{nzbn}', response);
  });

  it('the OpenAPI document lists the error codes, the register’s own among them', async () => {
    const document = (await t.call('GET', '/sandbox/nzbn/v5/openapi.json', { key: null })).json();
    const codes = document['x-error-codes'].map((e: { code: string; status: number; dialect: string }) =>
      [e.dialect, e.status, e.code].join(' '),
    );
    expect(codes).toEqual(
      expect.arrayContaining([
        'apim 401 missing-key',
        'nzbn 400 invalid-parameter',
        'nzbn 404 NOT_FOUND',
        'nzbn 403 FORBIDDEN',
      ]),
    );
  });

  it('a malformed business number is 400 naming the rule', async () => {
    const short = await t.call('GET', '/entities/942900000100');
    expect(short.statusCode).toBe(400);
    expect(short.json().list).toEqual([{ field: 'nzbn', message: 'not 13 digits' }]);
    const wrong = await t.call('GET', '/entities/9429000001008');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().list).toEqual([{ field: 'nzbn', message: 'wrong check digit, expected 7' }]);
    api.conforms('GET', '/entities/{nzbn}', wrong);
    const letters = await t.call('GET', '/entities/94290000010x7/addresses');
    expect(letters.statusCode).toBe(400);
  });

  it('security: no key, a production key, and a key for another service are refused', async () => {
    expect((await t.call('GET', `/entities/${FIXTURE.company}`, { key: null })).statusCode).toBe(401);
    expect((await t.call('GET', `/entities/${FIXTURE.company}`, { key: t.productionKey })).statusCode).toBe(
      401,
    );
    const production = await t.call('GET', `/gateway/nzbn/v5/entities/${FIXTURE.company}`, {
      key: t.productionKey,
    });
    expect(production.statusCode).toBe(404);
    expect(production.json().errorDescription).toContain('Object Not Found');
  });
});

describe('sub-resources', () => {
  const parts = [
    'addresses',
    'roles',
    'trading-names',
    'phone-numbers',
    'email-addresses',
    'websites',
    'industry-classifications',
    'privacy-settings',
    'business-ethnicity-identifiers',
    'payment-bank-accounts',
    'gst-numbers',
    'trading-areas',
  ];

  it('each part equals the same part of the whole entity', async () => {
    const entity = (await t.call('GET', `/entities/${FIXTURE.company}`)).json();
    const keys: Record<string, string> = {
      addresses: 'addresses',
      roles: 'roles',
      'trading-names': 'tradingNames',
      'phone-numbers': 'phoneNumbers',
      'email-addresses': 'emailAddresses',
      websites: 'websites',
      'industry-classifications': 'industryClassifications',
      'privacy-settings': 'privacySettings',
      'business-ethnicity-identifiers': 'businessEthnicityIdentifiers',
      'payment-bank-accounts': 'paymentBankAccounts',
      'gst-numbers': 'gstNumbers',
      'trading-areas': 'tradingAreas',
    };
    for (const part of parts) {
      // The published address-type is required: ALL is every type.
      const url = `/entities/${FIXTURE.company}/${part}${part === 'addresses' ? '?address-type=ALL' : ''}`;
      const response = await t.call('GET', url);
      expect(response.statusCode, part).toBe(200);
      api.conforms('GET', `/entities/{nzbn}/${part}`, response);
      expect(response.json()).toEqual(entity[keys[part]!]);
      const again = await t.call('GET', url, {
        headers: { 'if-none-match': String(response.headers.etag) },
      });
      expect(again.statusCode).toBe(304);
    }
  });

  it('addresses filter by the required address-type (ALL for every type); a missing or unknown type is 400', async () => {
    const all = (await t.call('GET', `/entities/${FIXTURE.company}/addresses?address-type=all`)).json()
      .addressList;
    expect(all.length).toBeGreaterThan(0);
    const missing = await t.call('GET', `/entities/${FIXTURE.company}/addresses`);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().list[0].field).toBe('address-type');
    const registered = await t.call('GET', `/entities/${FIXTURE.company}/addresses?address-type=REGISTERED`);
    expect(registered.json().addressList).toEqual(
      all.filter((a: { addressType: string }) => a.addressType === 'REGISTERED'),
    );
    const bad = await t.call('GET', `/entities/${FIXTURE.company}/addresses?address-type=HOME`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().list[0].field).toBe('address-type');
  });

  it('company-details is 400 for a non-company, non-company-details 400 for a company', async () => {
    const company = await t.call('GET', `/entities/${FIXTURE.company}/company-details`);
    expect(company.statusCode).toBe(200);
    api.conforms('GET', '/entities/{nzbn}/company-details', company);
    expect((await t.call('GET', `/entities/${FIXTURE.company}/non-company-details`)).statusCode).toBe(400);
    const trader = await t.call('GET', `/entities/${FIXTURE.soleTrader}/non-company-details`);
    expect(trader.statusCode).toBe(200);
    api.conforms('GET', '/entities/{nzbn}/non-company-details', trader);
    const refused = await t.call('GET', `/entities/${FIXTURE.soleTrader}/company-details`);
    expect(refused.statusCode).toBe(400);
    api.conforms('GET', '/entities/{nzbn}/company-details', refused);
  });

  it('discoverable is the published Entity: a link to each part that exists, organisation parts when visible', async () => {
    const response = await t.call('GET', `/entities/${FIXTURE.orgParts}/discoverable`);
    api.conforms('GET', '/entities/{nzbn}/discoverable', response);
    const discovered = response.json();
    const entity = (await t.call('GET', `/entities/${FIXTURE.orgParts}`)).json();
    expect(discovered).toMatchObject({
      nzbn: entity.nzbn,
      entityName: entity.entityName,
      entityStatusCode: entity.entityStatusCode,
      registrationDate: entity.registrationDate,
      lastUpdatedDate: entity.lastUpdatedDate,
      'non-company-details': null,
      'supporting-information': null,
    });
    expect(discovered.roles).toMatchObject({ rel: 'roles', href: expect.stringMatching(/\/roles$/) });
    expect(discovered.organisationParts).toMatchObject({ rel: 'organisation-parts' });
    expect(discovered['company-details']).toMatchObject({ rel: 'company-details' });
    const types = new Set(entity.addresses.addressList.map((a: { addressType: string }) => a.addressType));
    expect(
      discovered.addresses.map((l: { href: string }) => new URL(l.href).searchParams.get('address-type')),
    ).toEqual([...types]);
    expect(
      (await t.call('GET', `/entities/${FIXTURE.company}/discoverable`)).json().organisationParts,
    ).toBeNull();
  });

  it('a missing entity is 404 on every part', async () => {
    const response = await t.call('GET', `/entities/${nzbnForIndex(1_000_001)}/roles`);
    expect(response.statusCode).toBe(404);
    expect(response.json().errorDescription).toContain('Object Not Found');
  });
});

describe('history', () => {
  it('links every kind, each list in the published item shape', async () => {
    // The published history: a list of links, one to each kind.
    const whole = await t.call('GET', `/entities/${FIXTURE.removed}/history`);
    expect(whole.statusCode).toBe(200);
    api.conforms('GET', '/entities/{nzbn}/history', whole);
    const base = `http://127.0.0.1:8080/sandbox/nzbn/v5/entities/${FIXTURE.removed}/history`;
    expect(whole.json().map((l: { rel: string; href: string }) => [l.rel, l.href])).toEqual([
      ['addresses', `${base}/addresses?address-type=ALL`],
      ['entity-names', `${base}/entity-names`],
      ['trading-names', `${base}/trading-names`],
      ['trading-areas', `${base}/trading-areas`],
      ['entity-statuses', `${base}/entity-statuses`],
      ['hibernation-statuses', `${base}/hibernation-statuses`],
    ]);
    const statuses = (await t.call('GET', `/entities/${FIXTURE.removed}/history/entity-statuses`)).json();
    expect(statuses.map((s: { entityStatusCode: string }) => s.entityStatusCode)).toEqual(['50', '80']);
    expect(statuses[0]).toEqual({
      entityStatusCode: '50',
      startDate: expect.any(String),
      endDate: statuses[1].startDate,
      statusReasonCode: null,
      entityStatusDescription: 'Registered',
      comment: null,
    });
    for (const link of whole.json() as { rel: string; href: string }[]) {
      const url = new URL(link.href);
      const response = await t.call('GET', `${url.pathname.replace('/sandbox/nzbn/v5', '')}${url.search}`);
      // Hibernation statuses answer 201, the published status of that read.
      expect(response.statusCode, link.rel).toBe(link.rel === 'hibernation-statuses' ? 201 : 200);
      api.conforms('GET', `/entities/{nzbn}/history/${link.rel}`, response);
    }
    // The 201 of hibernation statuses carries its validators as every read does.
    const hibernation = await t.call('GET', `/entities/${FIXTURE.company}/history/hibernation-statuses`);
    expect(hibernation.headers.etag).toMatch(/^"/);
    expect(hibernation.headers['last-modified']).toBeDefined();
    const unchanged = await t.call('GET', `/entities/${FIXTURE.company}/history/hibernation-statuses`, {
      headers: { 'if-none-match': String(hibernation.headers.etag) },
    });
    expect(unchanged.statusCode).toBe(304);
    const addresses = await t.call(
      'GET',
      `/entities/${FIXTURE.company}/history/addresses?address-type=REGISTERED`,
    );
    expect(addresses.json()).toEqual({ links: [], addressList: expect.any(Array) });
    const missing = await t.call('GET', `/entities/${FIXTURE.company}/history/addresses`);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().list[0].field).toBe('address-type');
  });

  it('earlier names of generated entities are in the name history and in search items', async () => {
    const { rows } = await t.gateway.runtime.environments.sandbox.pool.query<{
      nzbn: string;
      previous_names: string[];
    }>(
      'SELECT nzbn, previous_names FROM nzbn_entities WHERE cardinality(previous_names) > 0 ORDER BY nzbn LIMIT 1',
    );
    const { nzbn, previous_names: previous } = rows[0]!;
    const entity = (await t.call('GET', `/entities/${nzbn}`)).json();
    const names = (await t.call('GET', `/entities/${nzbn}/history/entity-names`)).json();
    expect(names.map((n: { entityName: string }) => n.entityName)).toEqual([...previous, entity.entityName]);
    expect(names.at(-1).endDate).toBeNull();
    const search = await t.call(
      'GET',
      `/entities?search-term=${encodeURIComponent(previous[0]!)}&page-size=50`,
    );
    const item = search.json().items.find((i: { nzbn: string }) => i.nzbn === nzbn);
    expect(item.previousEntityNames).toEqual(previous);
  });
});
