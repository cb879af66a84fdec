import type { QueryResultRow } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidGln } from '../../../src/platform/gs1.ts';
import { type SignedInUser, signedInUser } from '../../support/oauth.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';
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
      return response.json();
    };
    expect(opns(await list())).toEqual([PUBLIC]);
    expect(opns(await list(t.stranger.token))).toEqual([PUBLIC]);
    expect(opns(await list(partner.token))).toEqual([PUBLIC, SHARED]);
    const owned = await list(t.owner.token);
    expect(opns(owned)).toEqual([PUBLIC, PRIVATE, SHARED]);
    expect(owned.find((p: { opn: string }) => p.opn === SHARED).nzbnList).toEqual([FIXTURE.company]);
    expect((await list(partner.token)).find((p: { opn: string }) => p.opn === SHARED).nzbnList).toEqual([]);
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
      organisationPartStatus: 'Active',
      privacy: 'public',
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

  it('search applies the same rule, and filters by number, name, function and status', async () => {
    const search = async (query: string, token?: string) => {
      const response = await t.call('GET', `/entities/organisation-parts?${query}`, {
        ...(token ? { token } : {}),
      });
      api.conforms('GET', '/entities/organisation-parts', response);
      return response;
    };
    expect(opns((await search('name=sandbox%20test')).json().items)).toEqual([PUBLIC]);
    expect(opns((await search('name=SANDBOX', partner.token)).json().items)).toEqual([PUBLIC, SHARED]);
    expect(opns((await search(`nzbn=${P}`, t.owner.token)).json().items)).toEqual([PUBLIC, PRIVATE, SHARED]);
    expect((await search(`nzbn=${P}`, t.owner.token)).json().totalItems).toBe(3);
    expect(opns((await search('status=inactive', t.owner.token)).json().items)).toEqual([SHARED]);
    expect(opns((await search('function=warehouse', t.owner.token)).json().items)).toEqual([PRIVATE]);
    expect(opns((await search(`opn=${PRIVATE}`)).json().items)).toEqual([]);
    const paged = (await search(`nzbn=${P}&page-size=2&page=1`, t.owner.token)).json();
    expect(paged).toMatchObject({ page: 1, pageSize: 2, totalItems: 3 });
    expect(paged.items).toHaveLength(1);
    expect((await search('status=Sleeping')).json().list[0].field).toBe('status');
    expect((await search('nzbn=123')).json().list[0]).toEqual({ field: 'nzbn', message: 'not 13 digits' });
  });
});

describe('create, allocate, update', () => {
  const E = FIXTURE.authority;
  const create = (body: unknown) =>
    t.call('POST', `/entities/${E}/organisation-parts`, { token: t.owner.token, payload: body });

  it('allocates unique numbers that are valid GLNs, and uses an allocated number once', async () => {
    const allocate = () =>
      t.call('GET', `/entities/${E}/organisation-parts/allocation`, { token: t.owner.token });
    const first = await allocate();
    expect(first.statusCode).toBe(200);
    api.conforms('GET', '/entities/{nzbn}/organisation-parts/allocation', first);
    const second = (await allocate()).json();
    expect(isValidGln(first.json().opn) && isValidGln(second.opn)).toBe(true);
    expect(first.json().opn).not.toBe(second.opn);
    const made = await create({ opn: first.json().opn, name: 'Kowhai Dispatch', function: 'Warehouse' });
    expect(made.statusCode, made.body).toBe(201);
    expect(made.json().opn).toBe(first.json().opn);
    expect((await create({ opn: first.json().opn, name: 'Again' })).statusCode).toBe(400);
    const foreign = await create({ opn: '9429800000040', name: 'Never allocated' });
    expect(foreign.json().list[0].field).toBe('opn');
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
    const third = await create({ name: 'Paid Part', privacy: 'private', gstNumber: '49091850' });
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
    const part = (await create({ name: 'Rata Shop', function: 'Retail', purposes: ['Sales'] })).json();
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
      payload: { name: 'Rata Store', function: 'Retail' },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    api.conforms('PUT', '/entities/{nzbn}/organisation-parts/{opn}', renamed);
    expect(renamed.json()).toMatchObject({
      name: 'Rata Store',
      statusDate: part.statusDate,
      startDate: part.startDate,
    });
    const closed = (
      await t.call('PUT', url, {
        token: t.owner.token,
        payload: { name: 'Rata Store', organisationPartStatus: 'INACTIVE' },
      })
    ).json();
    expect(closed.organisationPartStatus).toBe('Inactive');
    expect(closed.statusDate).not.toBe(part.statusDate);
    const badShare = await t.call('PUT', url, {
      token: t.owner.token,
      payload: { name: 'x', privacy: 'shared' },
    });
    expect(badShare.json().list[0].field).toBe('nzbnList');
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
        expect(opns(crossed.json())).toEqual([PUBLIC]);
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
      payload: { name: 'Hidden Depot', function: 'Warehouse', privacy: 'private' },
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
    expect(opns(hidden[`owner /entities/${E}/organisation-parts`]!.body as { opn: string }[])).toEqual([opn]);

    // Made public, the part reaches everyone: new ETags, a later Last-Modified, If-Modified-Since 200.
    const published = await t.call('PUT', `/entities/${E}/organisation-parts/${opn}`, {
      token: t.owner.token,
      payload: { name: 'Hidden Depot', function: 'Warehouse', privacy: 'public' },
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
    expect(opns(shown[`anyone /entities/${E}/organisation-parts`]!.body as { opn: string }[])).toEqual([opn]);
    const links = (shown[`anyone /entities/${E}/discoverable`]!.body as { links: { rel: string }[] }).links;
    expect(links.map((l) => l.rel)).toContain('organisation-parts');
  });
});
