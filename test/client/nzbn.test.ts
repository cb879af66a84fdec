import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type NzbnClient, RegisterError } from '../../packages/client/src/index.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from '../services/nzbn/support/api.ts';
import { listening, servesCommittedDocuments } from './support.ts';

/**
 * The business number register through the client, against a running gateway with the sandbox seed:
 * searches paged from page 0, an entity and its parts, a conditional write by a user who holds
 * authority, and the register's own error dialect (`errorCode` and its `list`).
 */
let t: NzbnTest;
let baseUrl: string;
let nzbn: NzbnClient;

beforeAll(async () => {
  t = await nzbnTest({ entities: 300 });
  baseUrl = await listening(t.gateway);
  nzbn = createClient({ register: 'nzbn', environment: 'sandbox', baseUrl, key: t.key });
}, 180_000);
afterAll(async () => t?.close());

it('is served the documents its types were made from', async () => {
  await servesCommittedDocuments(baseUrl, 'nzbn', '/nzbn/v5');
});

describe('reads', () => {
  it('searches page after page from the register’s page 0', async () => {
    const first = await nzbn.EntitiesGet({ query: { 'search-term': 'sandbox', 'page-size': 5 } });
    expect(first.page).toBe(0);
    const all = [];
    for await (const item of nzbn.paginate('EntitiesGet', {
      query: { 'search-term': 'sandbox', 'page-size': 5 },
    })) {
      all.push(item.nzbn);
    }
    expect(all.length).toBe(first.totalItems);
    expect(new Set(all).size).toBe(all.length);
  });

  it('reads an entity and its addresses by their operation ids', async () => {
    const entity = await nzbn.EntitiesByNzbnGet({ path: { nzbn: FIXTURE.company } });
    expect(entity.nzbn).toBe(FIXTURE.company);
    const addresses = await nzbn.EntitiesAddressesByNzbnGet({
      path: { nzbn: FIXTURE.company },
      query: { 'address-type': 'ALL' },
    });
    expect(Array.isArray(addresses.links)).toBe(true);
  });
});

describe('a conditional write', () => {
  it('sends the remembered ETag as If-Match, and a stale one gets a typed 412', async () => {
    const owner = createClient({
      register: 'nzbn',
      environment: 'sandbox',
      baseUrl,
      key: t.key,
      oauth: { token: async () => t.owner.token },
    });
    const path = { nzbn: FIXTURE.authority };
    // The entity's ETag (its authorised view) covers its parts: read it, then write a part.
    await owner.EntitiesByNzbnGet({ path });
    const settings = await owner.EntitiesPrivacySettingsByNzbnGet({ path });
    expect(owner.transport.etagOf(`/entities/${FIXTURE.authority}/privacy-settings`)).toMatch(/"/);
    const changed = await owner.EntitiesPrivacySettingsByNzbnPut({
      path,
      body: { ...settings, phonePrivateInformation: !settings.phonePrivateInformation },
    });
    expect(changed.phonePrivateInformation).toBe(!settings.phonePrivateInformation);
    const stale = await owner
      .EntitiesPrivacySettingsByNzbnPut({ path, body: settings, ifMatch: '"stale"' })
      .catch((e) => e);
    expect(stale.status).toBe(412);
    expect(stale.details.kind).toBe('nzbn');
  });
});

describe('errors', () => {
  it('gives the register’s errorCode and list', async () => {
    const refused = await nzbn
      .EntitiesGet({ query: { 'search-term': 'sandbox', 'page-size': 1000 } })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(RegisterError);
    expect(refused.details.kind).toBe('nzbn');
    expect(refused.details.errorCode).toMatch(/\S/);
    expect(refused.details.list.map((p: { field: string }) => p.field)).toContain('page-size');
  });
});
