import type { QueryResultRow } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidGln } from '../../../src/platform/gs1.ts';
import { type SignedInUser, signedInUser } from '../../support/oauth.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';
import { partRequest } from './support/bodies.ts';
import { OpenApi } from './support/openapi.ts';

let t: NzbnTest;
let api: OpenApi;
let partner: SignedInUser;
beforeAll(async () => {
  t = await nzbnTest({ entities: 1_000 });
  api = await OpenApi.load(t);
  await t.grant(t.owner.userId, FIXTURE.orgParts);
  partner = await signedInUser(t.gateway);
  await t.grant(partner.userId, FIXTURE.company);
});
afterAll(() => t?.close());

const P = FIXTURE.orgParts;
const PUBLIC = '9429800000019';
const PRIVATE = '9429800000026';
const SHARED = '9429800000033';
const opns = (parts: { opn: string }[]) => parts.map((p) => p.opn).sort();
const sql = <T extends QueryResultRow>(text: string, values: unknown[] = []) =>
  t.gateway.runtime.environments.sandbox.pool.query<T>(text, values).then((r) => r.rows);

describe('visibility', () => {
  it('an entity’s parts: public to all, private to its holders, shared to holders of the listed entities', async () => {
    const list = async (token?: string) => {
      const response = await t.call('GET', `/entities/${P}/organisation-parts`, {
        ...(token ? { token } : {}),
      });
      api.conforms('GET', '/entities/{nzbn}/organisation-parts', response);
      // The published OrganisationPartSearchResponse: a page of parts.
      return response.json().items;
    };
    expect(opns(await list())).toEqual([PUBLIC]);
    expect(opns(await list(t.stranger.token))).toEqual([PUBLIC]);
    expect(opns(await list(partner.token))).toEqual([PUBLIC, SHARED]);
    const owned = await list(t.owner.token);
    expect(opns(owned)).toEqual([PUBLIC, PRIVATE, SHARED]);
    expect(owned.find((p: { opn: string }) => p.opn === SHARED)['nzbn-list']).toEqual([
      { nzbn: FIXTURE.company },
    ]);
    expect((await list(partner.token)).find((p: { opn: string }) => p.opn === SHARED)['nzbn-list']).toEqual(
      [],
    );
  });

  it('one part: a part the caller may not see is answered as a missing one', async () => {
    const one = (opn: string, token?: string) =>
      t.call('GET', `/entities/${P}/organisation-parts/${opn}`, { ...(token ? { token } : {}) });
    const visible = await one(PUBLIC);
    expect(visible.statusCode).toBe(200);
    api.conforms('GET', '/entities/{nzbn}/organisation-parts/{opn}', visible);
    expect(visible.json()).toMatchObject({
      opn: PUBLIC,
      parentNzbn: P,
      organisationPartStatus: 'ACTIVE',
      privacy: 'PUBLIC',
      function: 'PHYSICAL_LOCATION',
      purposes: [
        expect.objectContaining({ purpose: 'E_INVOICING', purposeDescription: 'Invoicing' }),
        expect.objectContaining({ purpose: 'OTHER', purposeDescription: 'Delivery' }),
      ],
      'custom-data': [expect.objectContaining({ key: 'fixture', value: 'yes' })],
    });
    const cached = await t.call('GET', `/entities/${P}/organisation-parts/${PUBLIC}`, {
      headers: { 'if-none-match': String(visible.headers.etag) },
    });
    expect(cached.statusCode).toBe(304);
    for (const [opn, token] of [
      [PRIVATE, undefined],
      [PRIVATE, partner.token],
      [SHARED, undefined],
    ] as const) {
      const hidden = await one(opn, token);
      expect(hidden.statusCode).toBe(404);
      expect(hidden.json().errorDescription).toContain('Object Not Found');
    }
    expect((await one(SHARED, partner.token)).statusCode).toBe(200);
    expect((await one(PRIVATE, t.owner.token)).statusCode).toBe(200);
    expect(
      (await t.call('GET', `/entities/${FIXTURE.company}/organisation-parts/${PUBLIC}`)).statusCode,
    ).toBe(404);
    expect((await one('9429800000010')).json().list[0]).toEqual({
      field: 'opn',
      message: 'wrong check digit, expected 9',
    });
  });

  it('search applies the same rule, with the published parameters', async () => {
    const search = async (query: string, token?: string) => {
      const response = await t.call('GET', `/entities/organisation-parts?${query}`, {
        ...(token ? { token } : {}),
      });
      api.conforms('GET', '/entities/organisation-parts', response);
      return response;
    };
    const term = 'search-term=sandbox%20test';
    expect(opns((await search(term)).json().items)).toEqual([PUBLIC]);
    expect(opns((await search('search-term=SANDBOX', partner.token)).json().items)).toEqual([PUBLIC, SHARED]);
    const own = `${term}&parent-nzbn=${P}`;
    expect(opns((await search(own, t.owner.token)).json().items)).toEqual([PUBLIC, PRIVATE, SHARED]);
    expect((await search(own, t.owner.token)).json().totalItems).toBe(3);
    const inactive = `${own}&organisation-part-status=inactive`;
    expect(opns((await search(inactive, t.owner.token)).json().items)).toEqual([SHARED]);
    const physical = `${own}&function=PHYSICAL_LOCATION`;
    expect(opns((await search(physical, t.owner.token)).json().items)).toEqual([PUBLIC, PRIVATE]);
    expect(opns((await search(`${own}&purpose=E_INVOICING`, t.owner.token)).json().items)).toEqual([PUBLIC]);
    const byName = `${term}&parent-nzbn-name=organisation%20parts`;
    expect(opns((await search(byName, t.owner.token)).json().items)).toEqual([PUBLIC, PRIVATE, SHARED]);
    expect(opns((await search(`${term}&parent-gln=${P}`)).json().items)).toEqual([PUBLIC]);
    expect(opns((await search(`search-term=${PRIVATE}`)).json().items)).toEqual([]);
    expect(opns((await search(`search-term=${PRIVATE}`, t.owner.token)).json().items)).toEqual([PRIVATE]);
    const paged = (await search(`${own}&page-size=2&page=1`, t.owner.token)).json();
    expect(paged).toMatchObject({ page: 1, pageSize: 2, totalItems: 3 });
    expect(paged.items).toHaveLength(1);
    const refused = async (query: string) => (await search(query)).json().list[0];
    expect((await refused(`${term}&organisation-part-status=Sleeping`)).field).toBe(
      'organisation-part-status',
    );
    expect((await refused(`${term}&function=Warehouse`)).field).toBe('function');
    expect((await refused(`${term}&purpose=Sales`)).field).toBe('purpose');
    expect(await refused(`${term}&parent-nzbn=123`)).toEqual({
      field: 'parent-nzbn',
      message: 'not 13 digits',
    });
    expect((await refused('parent-nzbn=9429000003018')).field).toBe('search-term');
  });
});

describe('create, allocate, update', () => {
  const E = FIXTURE.authority;
  /** The published OrganisationPartRequest around the part. */
  const create = (part: unknown) =>
    t.call('POST', `/entities/${E}/organisation-parts`, { token: t.owner.token, payload: partRequest(part) });

  it('gives each new part a unique number that is a valid GLN, and sums up the numbers held', async () => {
    const allocation = () =>
      t.call('GET', `/entities/${E}/organisation-parts-allocation`, { token: t.owner.token });
    const before = await allocation();
    expect(before.statusCode, before.body).toBe(200);
    api.conforms('GET', '/entities/{nzbn}/organisation-parts-allocation', before);
    const held = before.json().nzbnGlnsAllocated as number;
    expect(before.json()).toEqual({ nzbnGlnsAllocated: held, nzbnGlnsRemaining: Math.max(0, 2 - held) });
    // A number in the body is the register's to give.
    const first = await create({
      opn: '9429800000040',
      name: 'Kowhai Dispatch',
      function: 'PHYSICAL_LOCATION',
    });
    expect(first.statusCode, first.body).toBe(201);
    const second = await create({ name: 'Kowhai Depot' });
    expect(isValidGln(first.json().opn) && isValidGln(second.json().opn)).toBe(true);
    expect(first.json().opn).not.toBe('9429800000040');
    expect(first.json().opn).not.toBe(second.json().opn);
    const after = (await allocation()).json();
    expect(after).toEqual({ nzbnGlnsAllocated: held + 2, nzbnGlnsRemaining: Math.max(0, 2 - held - 2) });
    const cached = await t.call('GET', `/entities/${E}/organisation-parts-allocation`, {
      token: t.owner.token,
      headers: { 'if-none-match': String((await allocation()).headers.etag) },
    });
    expect(cached.statusCode).toBe(304);
    const declined = await t.call('POST', `/entities/${E}/organisation-parts`, {
      token: t.owner.token,
      payload: { termsAndConditionsAccepted: false, organisationPart: { name: 'Declined' } },
    });
    expect(declined.statusCode).toBe(400);
    expect(declined.json().list[0].field).toBe('termsAndConditionsAccepted');
    const bare = await t.call('POST', `/entities/${E}/organisation-parts`, {
      token: t.owner.token,
      payload: { name: 'Not wrapped' },
    });
    expect(bare.statusCode).toBe(400);
    expect(bare.json().list.map((f: { field: string }) => f.field)).toContain('organisationPart');
  });

  it('takes custom-data and nzbn-list (each entry {nzbn}, or the number alone) in the published shape', async () => {
    const made = await create({
      name: 'Shared Counter',
      privacy: 'shared',
      'nzbn-list': [{ nzbn: FIXTURE.company }, FIXTURE.soleTrader],
      'custom-data': [{ key: 'dock', value: '7' }],
      purposes: [{ purpose: 'e_invoicing' }],
      emailAddresses: [{ emailAddress: 'ap@counter.example', emailPurpose: 'INVOICE_ADDRESS' }],
      addresses: [{ addressType: 'delivery', address1: '7 Wharf Road', address3: 'Napier' }],
    });
    expect(made.statusCode, made.body).toBe(201);
    api.conforms('POST', '/entities/{nzbn}/organisation-parts', made);
    expect(made.json()).toMatchObject({
      privacy: 'SHARED',
      'nzbn-list': [{ nzbn: FIXTURE.company }, { nzbn: FIXTURE.soleTrader }],
      'custom-data': [{ key: 'dock', value: '7', uniqueIdentifier: expect.stringMatching(/^\d+$/) }],
      purposes: [{ purpose: 'E_INVOICING', purposeDescription: null }],
      emailAddresses: [expect.objectContaining({ emailPurpose: 'INVOICE_ADDRESS' })],
      addresses: [expect.objectContaining({ addressType: 'DELIVERY', address1: '7 Wharf Road' })],
    });
    const bad = await create({
      name: 'Odd Counter',
      addresses: [{ addressType: 'REGISTERED', address1: 'x' }],
    });
    expect(bad.json().list[0].field).toBe('addresses.0.addressType');
  });

  it('charges a fee for each part beyond the entity’s second, in the same transaction', async () => {
    const fees = () =>
      sql<{ object_id: string; amount_cents: number; gst_cents: number; fee_code: string }>(
        "SELECT object_id, amount_cents, gst_cents, fee_code FROM fee_records WHERE service = 'nzbn' ORDER BY id",
      );
    const parts = () =>
      sql<{ n: number }>('SELECT count(*)::int AS n FROM nzbn_organisation_parts WHERE parent_nzbn = $1', [
        E,
      ]);
    while ((await parts())[0]!.n < 2) expect((await create({ name: 'Free Part' })).statusCode).toBe(201);
    const before = (await fees()).length;
    const third = await create({ name: 'Paid Part', privacy: 'PRIVATE', gstNumber: '49091850' });
    expect(third.statusCode).toBe(201);
    api.conforms('POST', '/entities/{nzbn}/organisation-parts', third);
    const charged = await fees();
    expect(charged).toHaveLength(before + 1);
    expect(charged.at(-1)).toEqual({
      object_id: third.json().opn,
      amount_cents: 500,
      gst_cents: 75,
      fee_code: 'NZBN_ORGANISATION_PART',
    });
    // The seed's fixture parts charged nobody.
    expect(charged.map((f) => f.object_id)).not.toContain(SHARED);
    const event = await sql<{ is_private: boolean }>(
      "SELECT is_private FROM nzbn_change_events WHERE change_event_type = 'ORGANISATIONPART' AND new_value->>'opn' = $1",
      [third.json().opn],
    );
    expect(event).toEqual([{ is_private: true }]);
  });

  it('PUT replaces a part, honours If-Match, and moves statusDate only with the status', async () => {
    const part = (
      await create({
        name: 'Rata Shop',
        function: 'PHYSICAL_LOCATION',
        purposes: [{ purpose: 'OTHER', purposeDescription: 'Sales' }],
        'custom-data': [{ key: 'till', value: '1' }],
      })
    ).json();
    const url = `/entities/${E}/organisation-parts/${part.opn}`;
    const current = await t.call('GET', url, { token: t.owner.token });
    const stale = await t.call('PUT', url, {
      token: t.owner.token,
      headers: { 'if-match': '"old"' },
      payload: { name: 'Rata Store' },
    });
    expect(stale.statusCode).toBe(412);
    const renamed = await t.call('PUT', url, {
      token: t.owner.token,
      headers: { 'if-match': String(current.headers.etag) },
      payload: { name: 'Rata Store', function: 'PHYSICAL_LOCATION', 'custom-data': part['custom-data'] },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    api.conforms('PUT', '/entities/{nzbn}/organisation-parts/{opn}', renamed);
    expect(renamed.json()).toMatchObject({
      name: 'Rata Store',
      statusDate: part.statusDate,
      startDate: part.startDate,
      // A sub-item sent with its identifier keeps it.
      'custom-data': part['custom-data'],
    });
    const closed = (
      await t.call('PUT', url, {
        token: t.owner.token,
        payload: { name: 'Rata Store', organisationPartStatus: 'INACTIVE' },
      })
    ).json();
    expect(closed.organisationPartStatus).toBe('INACTIVE');
    expect(closed.statusDate).not.toBe(part.statusDate);
    const badShare = await t.call('PUT', url, {
      token: t.owner.token,
      payload: { name: 'x', privacy: 'shared' },
    });
    expect(badShare.json().list[0].field).toBe('nzbn-list');
    const badStatus = await t.call('PUT', url, {
      token: t.owner.token,
      payload: { name: 'x', organisationPartStatus: 'Open' },
    });
    expect(badStatus.json().list[0].field).toBe('organisationPartStatus');
    expect(
      (
        await t.call('PUT', `/entities/${E}/organisation-parts/${PUBLIC}`, {
          token: t.owner.token,
          payload: { name: 'x' },
        })
      ).statusCode,
    ).toBe(404);
  });
});

describe('conditional reads of an entity’s parts and of discoverable', () => {
  const urls = (nzbn: string) => [`/entities/${nzbn}/organisation-parts`, `/entities/${nzbn}/discoverable`];
  const read = (url: string, token?: string, headers: Record<string, string> = {}) =>
    t.call('GET', url, { ...(token ? { token } : {}), headers });
  const hour = 3_600_000;

  it('answer with an ETag and Last-Modified, and 304 with an empty body to either', async () => {
    for (const url of urls(P)) {
      for (const token of [undefined, partner.token, t.owner.token]) {
        const first = await read(url, token);
        expect(first.statusCode, url).toBe(200);
        const { etag, 'last-modified': lastModified } = first.headers;
        expect(etag, url).toMatch(/^"[^"]+"$/);
        expect(lastModified, url).toBeDefined();
        const conditions: Record<string, string>[] = [
          { 'if-none-match': String(etag) },
          { 'if-modified-since': String(lastModified) },
        ];
        for (const headers of conditions) {
          const again = await read(url, token, headers);
          expect(again.statusCode, `${url} ${JSON.stringify(headers)}`).toBe(304);
          expect(again.body).toBe('');
          expect(again.headers.etag).toBe(etag);
        }
      }
    }
  });

  it('the ETag is of what the caller sees; Last-Modified the latest of the entity and its visible parts', async () => {
    const entityModified = Date.parse(String((await read(`/entities/${P}`)).headers['last-modified']));
    // Each part changed after the entity, the hidden ones last: no caller's Last-Modified may show them.
    for (const [opn, after] of [
      [PUBLIC, 1],
      [SHARED, 2],
      [PRIVATE, 3],
    ] as const) {
      await sql('UPDATE nzbn_organisation_parts SET last_updated = $2 WHERE opn = $1', [
        opn,
        new Date(entityModified + after * hour),
      ]);
    }
    const [list, discoverable] = urls(P);
    for (const url of [list!, discoverable!]) {
      const seen = async (token?: string) => {
        const response = await read(url, token);
        return {
          etag: String(response.headers.etag),
          modified: Date.parse(String(response.headers['last-modified'])),
        };
      };
      const anyone = await seen();
      const partnerSees = await seen(partner.token);
      const ownerSees = await seen(t.owner.token);
      expect(anyone.modified, url).toBe(entityModified + hour);
      expect(partnerSees.modified, url).toBe(entityModified + 2 * hour);
      expect(ownerSees.modified, url).toBe(entityModified + 3 * hour);
      if (url === list) {
        // Three views of the list: none answers 304 for another's ETag.
        expect(new Set([anyone.etag, partnerSees.etag, ownerSees.etag]).size).toBe(3);
        const crossed = await read(url, undefined, { 'if-none-match': ownerSees.etag });
        expect(crossed.statusCode).toBe(200);
        expect(opns(crossed.json().items)).toEqual([PUBLIC]);
      }
    }
  });

  it('a change makes a new ETag for those who see it, and none for those who do not', async () => {
    const E = FIXTURE.privateData;
    const views = async () => {
      const out: Record<string, { etag: string; lastModified: string; body: unknown }> = {};
      for (const url of urls(E)) {
        for (const [who, token] of [
          ['anyone', undefined],
          ['owner', t.owner.token],
        ] as const) {
          const response = await read(url, token);
          expect(response.statusCode, response.body).toBe(200);
          out[`${who} ${url}`] = {
            etag: String(response.headers.etag),
            lastModified: String(response.headers['last-modified']),
            body: response.json(),
          };
        }
      }
      return out;
    };
    const before = await views();
    const created = await t.call('POST', `/entities/${E}/organisation-parts`, {
      token: t.owner.token,
      payload: {
        termsAndConditionsAccepted: true,
        organisationPart: { name: 'Hidden Depot', function: 'PHYSICAL_LOCATION', privacy: 'PRIVATE' },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const opn = created.json().opn as string;
    const hidden = await views();
    for (const url of urls(E)) {
      // The private part changes nothing the public sees: same ETag, same Last-Modified, still 304.
      expect(hidden[`anyone ${url}`]).toEqual(before[`anyone ${url}`]);
      const cached = await read(url, undefined, { 'if-none-match': before[`anyone ${url}`]!.etag });
      expect(cached.statusCode, url).toBe(304);
      // The owner sees it: a new ETag, and the old one no longer answers 304.
      expect(hidden[`owner ${url}`]!.etag, url).not.toBe(before[`owner ${url}`]!.etag);
      const stale = await read(url, t.owner.token, { 'if-none-match': before[`owner ${url}`]!.etag });
      expect(stale.statusCode, url).toBe(200);
    }
    const itemsOf = (body: unknown) => (body as { items: { opn: string }[] }).items;
    expect(opns(itemsOf(hidden[`owner /entities/${E}/organisation-parts`]!.body))).toEqual([opn]);

    // Made public, the part reaches everyone: new ETags, a later Last-Modified, If-Modified-Since 200.
    const published = await t.call('PUT', `/entities/${E}/organisation-parts/${opn}`, {
      token: t.owner.token,
      payload: { name: 'Hidden Depot', function: 'PHYSICAL_LOCATION', privacy: 'PUBLIC' },
    });
    expect(published.statusCode, published.body).toBe(200);
    const shown = await views();
    for (const url of urls(E)) {
      const was = before[`anyone ${url}`]!;
      const now = shown[`anyone ${url}`]!;
      expect(now.etag, url).not.toBe(was.etag);
      expect(Date.parse(now.lastModified), url).toBeGreaterThan(Date.parse(was.lastModified));
      const conditions: Record<string, string>[] = [
        { 'if-none-match': was.etag },
        { 'if-modified-since': was.lastModified },
      ];
      for (const headers of conditions) {
        const response = await read(url, undefined, headers);
        expect(response.statusCode, `${url} ${JSON.stringify(headers)}`).toBe(200);
        expect(response.headers.etag).toBe(now.etag);
      }
    }
    expect(opns(itemsOf(shown[`anyone /entities/${E}/organisation-parts`]!.body))).toEqual([opn]);
    // discoverable (the published Entity) links the organisation parts once one is visible.
    const discovered = shown[`anyone /entities/${E}/discoverable`]!.body as { organisationParts: unknown };
    expect(discovered.organisationParts).toMatchObject({ rel: 'organisation-parts' });
  });
});
