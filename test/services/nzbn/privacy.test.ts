import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInUser } from '../../support/oauth.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';
import { OpenApi } from './support/openapi.ts';

let t: NzbnTest;
let api: OpenApi;
beforeAll(async () => {
  t = await nzbnTest();
  api = await OpenApi.load(t);
});
afterAll(() => t?.close());

const PRIVATE_LISTS = ['phoneNumbers', 'emailAddresses', 'gstNumbers', 'paymentBankAccounts'] as const;

describe('private data of an entity', () => {
  it('is left out for a key alone and for a signed-in user without authority', async () => {
    for (const token of [undefined, t.stranger.token]) {
      const response = await t.call('GET', `/entities/${FIXTURE.privateData}`, {
        ...(token ? { token } : {}),
      });
      expect(response.statusCode).toBe(200);
      api.conforms('GET', '/entities/{nzbn}', response);
      const entity = response.json();
      for (const list of PRIVATE_LISTS) expect(entity[list], list).toEqual([]);
      expect(entity.privacySettings.phonePrivateInformation).toBe(true);
      expect(String(response.headers.etag)).toMatch(/-p"$/);
      const phones = await t.call('GET', `/entities/${FIXTURE.privateData}/phone-numbers`, {
        ...(token ? { token } : {}),
      });
      expect(phones.json()).toEqual([]);
    }
  });

  it('is shown to a signed-in user with business authority over the entity, under another ETag', async () => {
    const response = await t.call('GET', `/entities/${FIXTURE.privateData}`, { token: t.owner.token });
    const entity = response.json();
    for (const list of PRIVATE_LISTS) expect(entity[list].length, list).toBeGreaterThan(0);
    const publicView = await t.call('GET', `/entities/${FIXTURE.privateData}`);
    expect(response.headers.etag).not.toBe(publicView.headers.etag);
    const crossed = await t.call('GET', `/entities/${FIXTURE.privateData}`, {
      token: t.owner.token,
      headers: { 'if-none-match': String(publicView.headers.etag) },
    });
    expect(crossed.statusCode).toBe(200);
    const phones = await t.call('GET', `/entities/${FIXTURE.privateData}/phone-numbers`, {
      token: t.owner.token,
    });
    expect(phones.json()).toEqual(entity.phoneNumbers);
  });

  it('authority over another entity does not open this one', async () => {
    const response = await t.call('GET', `/entities/${FIXTURE.privateData}/gst-numbers`, {
      token: t.owner.token,
    });
    expect(response.json().length).toBeGreaterThan(0);
    const other = await t.call('GET', `/entities/${FIXTURE.privateData}/gst-numbers`, {
      token: t.stranger.token,
    });
    expect(other.json()).toEqual([]);
  });

  it('is hidden again as soon as the authority is revoked', async () => {
    const reader = await signedInUser(t.gateway);
    await t.grant(reader.userId, FIXTURE.privateData);
    expect(
      (await t.call('GET', `/entities/${FIXTURE.privateData}`, { token: reader.token })).json().gstNumbers,
    ).not.toEqual([]);
    const holders = (
      await t.call('GET', `/authorities?nzbn=${FIXTURE.privateData}&user-id=${reader.userId}`, {
        token: t.owner.token,
      })
    ).json().items;
    const held = holders.find((a: { userId: string }) => a.userId === reader.userId);
    const revoked = await t.call('PUT', `/authorities/${held.authorityId}`, {
      token: t.owner.token,
      payload: { AuthorityStatus: 'REVOKED' },
    });
    expect(revoked.statusCode).toBe(204);
    expect(
      (await t.call('GET', `/entities/${FIXTURE.privateData}`, { token: reader.token })).json().gstNumbers,
    ).toEqual([]);
  });
});

describe('privacy settings change what others see, search included', () => {
  it('a trading name made private leaves the public view and search, and comes back when public', async () => {
    const name = 'Kereru Hollow Orchard Traders';
    const added = await t.call('POST', `/entities/${FIXTURE.authority}/trading-names`, {
      token: t.owner.token,
      payload: [{ name }],
    });
    expect(added.statusCode).toBe(200);
    const find = async () =>
      (await t.call('GET', '/entities?search-term=kereru%20hollow'))
        .json()
        .items.map((i: { nzbn: string }) => i.nzbn);
    expect(await find()).toEqual([FIXTURE.authority]);
    const hide = await t.call('PUT', `/entities/${FIXTURE.authority}/privacy-settings`, {
      token: t.owner.token,
      payload: { tradingNamePrivateInformation: true },
    });
    expect(hide.statusCode).toBe(200);
    expect(hide.json().tradingNamePrivateInformation).toBe(true);
    expect(await find()).toEqual([]);
    expect((await t.call('GET', `/entities/${FIXTURE.authority}`)).json().tradingNames).toEqual([]);
    expect((await t.call('GET', `/entities/${FIXTURE.authority}/history/trading-names`)).json()).toEqual([]);
    const owned = (await t.call('GET', `/entities/${FIXTURE.authority}`, { token: t.owner.token })).json();
    expect(owned.tradingNames.map((n: { name: string }) => n.name)).toContain(name);
    await t.call('PUT', `/entities/${FIXTURE.authority}/privacy-settings`, {
      token: t.owner.token,
      payload: { tradingNamePrivateInformation: false },
    });
    expect(await find()).toEqual([FIXTURE.authority]);
  });

  it('a private postal address leaves the address history of the public view', async () => {
    const posted = await t.call('POST', `/entities/${FIXTURE.authority}/addresses`, {
      token: t.owner.token,
      payload: { addressType: 'POSTAL', address1: 'PO Box 4471', address3: 'Nelson', postCode: '7040' },
    });
    expect(posted.statusCode).toBe(201);
    await t.call('PUT', `/entities/${FIXTURE.authority}/privacy-settings`, {
      token: t.owner.token,
      payload: { postalAddressPrivateInformation: true },
    });
    const types = async (token?: string) =>
      (
        await t.call('GET', `/entities/${FIXTURE.authority}/history/addresses?address-type=ALL`, {
          ...(token ? { token } : {}),
        })
      )
        .json()
        .addressList.map((a: { addressType: string }) => a.addressType);
    expect(await types()).not.toContain('POSTAL');
    expect(await types(t.owner.token)).toContain('POSTAL');
  });
});
