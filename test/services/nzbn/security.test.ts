import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClient } from '../../../src/identity/oauth/clients.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';

/**
 * The shared table the design asks for: every write route refused with no key, with a key of the
 * other environment, without a user's three-legged token (a key alone, or a client-credentials
 * token), and without business authority over the entity; every read route refused with no key.
 */
let t: NzbnTest;
let appToken: string;
beforeAll(async () => {
  t = await nzbnTest();
  const { client, clientSecret } = await registerClient(t.gateway.runtime.gateway.pool, {
    ownerUserId: t.stranger.userId,
    name: 'Back office',
    environment: 'sandbox',
    redirectUris: [],
    grantTypes: ['client_credentials'],
    public: false,
  });
  const token = await t.gateway.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: clientSecret!,
      scope: 'https://api.business.govt.nz/sandbox/.default',
    }).toString(),
  });
  appToken = token.json().access_token;
});
afterAll(() => t?.close());

const E = FIXTURE.authority;
const PART = '9429800000019';
const WRITES: [string, string, unknown][] = [
  ['POST', `/entities/${E}/addresses`, { addressType: 'OFFICE', address1: '1 Main Road' }],
  ['POST', `/entities/${E}/phone-numbers`, { phoneNumber: '5551234' }],
  ['POST', `/entities/${E}/email-addresses`, { emailAddress: 'a@b.example' }],
  ['POST', `/entities/${E}/websites`, { url: 'https://b.example' }],
  ['POST', `/entities/${E}/trading-names`, { name: 'Refused Trading' }],
  ['POST', `/entities/${E}/industry-classifications`, { classificationCode: 'C121220' }],
  ['POST', `/entities/${E}/gst-numbers`, { gstNumber: '49091850' }],
  ['POST', `/entities/${E}/trading-areas`, { tradingArea: 'Otago' }],
  ['POST', `/entities/${E}/payment-bank-accounts`, { bankAccountNumber: '01-0902-0068389-00' }],
  [
    'POST',
    `/entities/${E}/business-ethnicity-identifiers`,
    { ethnicity: 'PASIFIKA', identifyingFactors: [{ identifyingFactor: 'OWNERSHIP' }] },
  ],
  ['PUT', `/entities/${E}/privacy-settings`, { phonePrivateInformation: true }],
  ['PUT', `/entities/${E}/roles`, []],
  ['PUT', `/entities/${E}/australian-business-number`, { australianBusinessNumber: null }],
  ['POST', `/entities/${FIXTURE.soleTrader}/entity-statuses`, { entityStatusCode: '90' }],
  ['GET', `/entities/${E}/authorities`, undefined],
  ['POST', `/entities/${E}/authorities`, { userEmail: 'someone@example.test' }],
  ['DELETE', `/entities/${E}/authorities/00000000-0000-4000-8000-000000000000`, undefined],
  ['GET', `/entities/${E}/organisation-parts/allocation`, undefined],
  ['POST', `/entities/${E}/organisation-parts`, { name: 'Refused Depot' }],
  ['PUT', `/entities/${FIXTURE.orgParts}/organisation-parts/${PART}`, { name: 'Taken Over' }],
];

describe('every write route', () => {
  it.each(WRITES)('%s %s: no key, other environment, no user token → 401', async (method, url, payload) => {
    const options = { payload, token: t.owner.token };
    expect((await t.call(method as 'GET', url, { ...options, key: null })).statusCode).toBe(401);
    expect((await t.call(method as 'GET', url, { ...options, key: t.productionKey })).statusCode).toBe(401);
    const keyOnly = await t.call(method as 'GET', url, { payload });
    expect(keyOnly.statusCode).toBe(401);
    expect(keyOnly.json().message).toContain('three-legged');
    expect((await t.call(method as 'GET', url, { payload, token: appToken })).statusCode).toBe(401);
  });

  it.each(WRITES)(
    '%s %s: a signed-in user without business authority → 403',
    async (method, url, payload) => {
      const response = await t.call(method as 'GET', url, { payload, token: t.stranger.token });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({
        status: '403',
        errorCode: 'FORBIDDEN',
        list: [{ field: 'nzbn' }],
      });
    },
  );

  it('POST /entities needs a user token (any signed-in user may register)', async () => {
    const body = { entityTypeCode: 'Sole_Trader', entityName: 'Refused Trader' };
    expect((await t.call('POST', '/entities', { payload: body, key: null })).statusCode).toBe(401);
    expect((await t.call('POST', '/entities', { payload: body })).statusCode).toBe(401);
    expect((await t.call('POST', '/entities', { payload: body, token: appToken })).statusCode).toBe(401);
  });

  it('a sandbox user token is refused on production', async () => {
    const response = await t.call('POST', `/gateway/nzbn/v5/entities/${E}/websites`, {
      key: t.productionKey,
      token: t.owner.token,
      payload: { url: 'https://b.example' },
    });
    expect(response.statusCode).toBe(401);
  });
});

describe('every read route', () => {
  const READS = [
    '/entities?search-term=sandbox',
    `/entities/${E}`,
    `/entities/${E}/addresses`,
    `/entities/${E}/discoverable`,
    `/entities/${E}/history`,
    `/entities/${E}/history/entity-names`,
    '/entities/organisation-parts?name=sandbox',
    `/entities/${FIXTURE.orgParts}/organisation-parts`,
    `/entities/${FIXTURE.orgParts}/organisation-parts/${PART}`,
  ];
  it.each(READS)('GET %s: 200 with a key, 401 without one or with the other environment key', async (url) => {
    expect((await t.call('GET', url)).statusCode).toBe(200);
    expect((await t.call('GET', url, { key: null })).statusCode).toBe(401);
    expect((await t.call('GET', url, { key: t.productionKey })).statusCode).toBe(401);
  });
});
