import type { QueryResultRow } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fanOutAll } from '../../../src/services/nzbn/store/fanout.ts';
import { type SignedInUser, signedInUser } from '../../support/oauth.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';
import { partRequest } from './support/bodies.ts';
import { createWatchlist, notifications } from './support/watchlists.ts';

/**
 * The items of an organisation part, one at a time (OP007–OP017, OP020–OP022), and its share list
 * (OP018, OP019): what each answers, that the part shows the change (its GET, an entity's parts, the
 * search), the part's If-Match, the change event every change records (the change event search and
 * the watchlists see it), and that a refused change writes nothing.
 */
let t: NzbnTest;
let partner: SignedInUser;
beforeAll(async () => {
  t = await nzbnTest({ entities: 200 });
  await t.grant(t.owner.userId, FIXTURE.orgParts);
  partner = await signedInUser(t.gateway);
  await t.grant(partner.userId, FIXTURE.company);
});
afterAll(() => t?.close());

const E = FIXTURE.authority;
const MISSING = '9429000009997';
const FIXTURE_PART = '9429800000019';
const sql = <T extends QueryResultRow>(text: string, values: unknown[] = []) =>
  t.gateway.runtime.environments.sandbox.pool.query<T>(text, values).then((r) => r.rows);

let parts = 0;
/** A new part of E, as the owner makes it: its number. */
async function newPart(part: Record<string, unknown> = {}): Promise<string> {
  const made = await t.call('POST', `/entities/${E}/organisation-parts`, {
    token: t.owner.token,
    payload: partRequest({ name: `Item Depot ${++parts}`, ...part }),
  });
  expect(made.statusCode, made.body).toBe(201);
  return made.json().opn as string;
}
const partUrl = (opn: string, nzbn: string = E) => `/entities/${nzbn}/organisation-parts/${opn}`;
const read = (opn: string, token = t.owner.token, nzbn: string = E) =>
  t.call('GET', partUrl(opn, nzbn), { token });
const write = (
  method: 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
  headers: Record<string, string> = {},
  token = t.owner.token,
) => t.call(method, url, { token, headers, ...(payload === undefined ? {} : { payload }) });
const events = (opn: string) =>
  sql<{ new_value: { [key: string]: unknown }; is_private: boolean }>(
    `SELECT new_value, is_private FROM nzbn_change_events
      WHERE change_event_type = 'ORGANISATIONPART' AND new_value->>'opn' = $1 ORDER BY id`,
    [opn],
  );

/** Each list: its path, the part's field, an item to add, a change to it, and a bad value and the field it names. */
const LISTS = [
  {
    path: 'addresses',
    field: 'addresses',
    add: { addressType: 'delivery', address1: '7 Wharf Road', address3: 'Napier', postCode: '4110' },
    change: undefined,
    bad: [{ addressType: 'REGISTERED', address1: '1 Road' }, 'addressType'],
  },
  {
    path: 'phone-numbers',
    field: 'phoneNumbers',
    add: { phoneAreaCode: '6', phoneNumber: '8351234', phonePurpose: 'Primary' },
    change: { phoneAreaCode: '6', phoneNumber: '8359999', phonePurpose: 'Fax' },
    bad: [{ phoneNumber: '8351234', phonePurpose: 'Carrier pigeon' }, 'phonePurpose'],
  },
  {
    path: 'email-addresses',
    field: 'emailAddresses',
    add: { emailAddress: 'ap@depot.example', emailPurpose: 'invoice_address' },
    change: {
      emailAddress: 'accounts@depot.example',
      emailPurpose: 'OTHER',
      emailPurposeDescription: 'Accounts',
    },
    bad: [{ emailAddress: 'ap@depot.example', emailPurpose: 'BILLING' }, 'emailPurpose'],
  },
  {
    path: 'custom-data',
    field: 'custom-data',
    add: { key: 'dock', value: '7' },
    change: { key: 'dock', value: '9', startDate: '2024-02-01' },
    bad: [{ key: 'dock', value: '7', startDate: 'yesterday' }, 'startDate'],
  },
  {
    path: 'purpose',
    field: 'purposes',
    add: { purpose: 'locationarrival', purposeDescription: 'Goods inwards' },
    change: { purpose: 'E_INVOICING' },
    bad: [{ purpose: 'SALES' }, 'purpose'],
  },
] as const;

describe('the items of an organisation part', () => {
  it.each(LISTS)('$path: added, changed and removed, each shown by the part and the search', async (list) => {
    const opn = await newPart();
    const items = `${partUrl(opn)}/${list.path}`;
    const before = await read(opn);
    const added = await write('POST', items, list.add);
    expect(added.statusCode, added.body).toBe(201);
    const item = added.json();
    expect(item.uniqueIdentifier).toMatch(/^\d{11,}$/);
    // The published values, whatever case they were sent in.
    if (list.path === 'addresses') expect(item.addressType).toBe('DELIVERY');
    if (list.path === 'email-addresses') expect(item.emailPurpose).toBe('INVOICE_ADDRESS');
    if (list.path === 'purpose') expect(item.purpose).toBe('LOCATIONARRIVAL');
    // The answer carries the part's new validators: the part reads with that ETag, and holds the item.
    const after = await read(opn);
    expect(after.headers.etag).toBe(added.headers.etag);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.json()[list.field]).toEqual([item]);
    const listed = (
      await t.call('GET', `/entities/${E}/organisation-parts?page-size=50`, { token: t.owner.token })
    )
      .json()
      .items.find((part: { opn: string }) => part.opn === opn);
    expect(listed[list.field]).toEqual([item]);
    const found = await t.call('GET', `/entities/organisation-parts?search-term=${opn}`);
    expect(found.json().items[0][list.field]).toEqual([item]);

    // A second one the same is refused; a bad value names its field; nothing changes.
    const again = await write('POST', items, list.add);
    expect(again.statusCode).toBe(400);
    const [badItem, badField] = list.bad;
    const bad = await write('POST', items, badItem);
    expect(bad.statusCode, bad.body).toBe(400);
    expect(bad.json().list.map((f: { field: string }) => f.field)).toContain(badField);
    expect((await read(opn)).headers.etag).toBe(after.headers.etag);

    const one = `${items}/${item.uniqueIdentifier}`;
    if (list.change) {
      const changed = await write('PUT', one, list.change);
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.json().uniqueIdentifier).toBe(item.uniqueIdentifier);
      if ('startDate' in item) {
        // Its start date stays unless one is sent.
        const sent = 'startDate' in list.change;
        expect(changed.json().startDate === item.startDate).toBe(!sent);
      }
      expect((await read(opn)).json()[list.field]).toEqual([changed.json()]);
      const renumbered = await write('PUT', one, { ...list.change, uniqueIdentifier: '123' });
      expect(renumbered.json().list[0].field).toBe('uniqueIdentifier');
      const badChange = await write('PUT', one, badItem);
      expect(badChange.json().list.map((f: { field: string }) => f.field)).toContain(badField);
      const nowhere = await write('PUT', `${items}/42`, list.change);
      expect(nowhere.statusCode).toBe(404);
      expect(nowhere.json().errorDescription).toMatch(/^Object Not Found/);
    }

    const removed = await write('DELETE', one);
    expect(removed.statusCode, removed.body).toBe(204);
    expect(removed.body).toBe('');
    const gone = await read(opn);
    expect(gone.json()[list.field]).toEqual([]);
    expect(gone.headers.etag).toBe(removed.headers.etag);
    const twice = await write('DELETE', one);
    expect(twice.statusCode).toBe(404);
    expect(twice.json().errorCode).toBe('NOT_FOUND');
    expect(twice.json().errorDescription).toMatch(
      new RegExp(`^Object Not Found: the organisation part ${opn} has no .+ ${item.uniqueIdentifier}$`),
    );
  });

  it('the fixed test case’s part has an item in every list, for the examples to act on', async () => {
    const part = (await read(FIXTURE_PART, t.owner.token, FIXTURE.orgParts)).json();
    for (const field of ['addresses', 'phoneNumbers', 'emailAddresses', 'custom-data', 'purposes']) {
      expect(part[field].length, field).toBeGreaterThan(0);
    }
    expect(part.phoneNumbers[0]).toMatchObject({ uniqueIdentifier: '9000000102', phoneCountryCode: '64' });
  });

  it('answers 404 for an unknown entity, part or item, 400 for a malformed number, 403 without authority', async () => {
    const opn = await newPart({ 'custom-data': [{ key: 'a', value: '1' }] });
    const uid = (await read(opn)).json()['custom-data'][0].uniqueIdentifier as string;
    const body = { key: 'b', value: '2' };
    const missing = [
      [`/entities/${MISSING}/organisation-parts/${opn}/custom-data`, 'no entity'],
      [`/entities/${E}/organisation-parts/9429800000040/custom-data`, 'no organisation part'],
      // A part of another entity is not found under this one.
      [`/entities/${FIXTURE.orgParts}/organisation-parts/${opn}/custom-data`, 'no organisation part'],
    ] as const;
    for (const [url, what] of missing) {
      const response = await write('POST', url, body);
      expect(response.statusCode, url).toBe(404);
      expect(response.json().errorDescription, url).toContain(`Object Not Found: ${what}`);
    }
    const unknownItem = await write('DELETE', `${partUrl(opn)}/custom-data/99999999999`);
    expect(unknownItem.json().errorDescription).toBe(
      `Object Not Found: the organisation part ${opn} has no custom data item 99999999999`,
    );
    // An identifier of another list is no item of this one.
    expect((await write('DELETE', `${partUrl(opn)}/email-addresses/${uid}`)).statusCode).toBe(404);
    const broken = await write('POST', `/entities/${E}/organisation-parts/9429800000010/custom-data`, body);
    expect(broken.json().list[0]).toEqual({ field: 'opn', message: 'wrong check digit, expected 9' });
    const long = await write('DELETE', `${partUrl(opn)}/custom-data/${'1'.repeat(21)}`);
    expect(long.statusCode).toBe(400);
    expect(long.json().list[0].field).toBe('uid');
    const stranger = await write(
      'DELETE',
      `${partUrl(opn)}/custom-data/${uid}`,
      undefined,
      {},
      t.stranger.token,
    );
    expect(stranger.statusCode).toBe(403);
    expect(stranger.json().errorCode).toBe('FORBIDDEN');
    const keyOnly = await t.call('DELETE', `${partUrl(opn)}/custom-data/${uid}`);
    expect(keyOnly.statusCode).toBe(401);
    expect((await read(opn)).json()['custom-data']).toHaveLength(1);
  });

  it('a part holds at most 20 of an item, 50 custom data items', async () => {
    const phones = Array.from({ length: 20 }, (_, i) => ({ phoneNumber: String(5550100 + i) }));
    const opn = await newPart({ phoneNumbers: phones });
    const full = await write('POST', `${partUrl(opn)}/phone-numbers`, { phoneNumber: '5550999' });
    expect(full.statusCode).toBe(400);
    expect(full.json().list[0]).toEqual({
      field: 'phoneNumbers',
      message: 'the organisation part holds 20 already, the most it may',
    });
  });
});

const STALE: Record<string, string>[] = [
  { 'if-match': '"stale"' },
  { 'if-unmodified-since': 'Sat, 01 Jan 2000 00:00:00 GMT' },
];

describe('If-Match on the part', () => {
  it('holds every change of an item against the part’s ETag: stale is 412 and nothing is written', async () => {
    const opn = await newPart({ emailAddresses: [{ emailAddress: 'a@depot.example' }] });
    const current = await read(opn);
    const etag = String(current.headers.etag);
    const uid = current.json().emailAddresses[0].uniqueIdentifier as string;
    const one = `${partUrl(opn)}/email-addresses/${uid}`;
    const changes: [string, 'POST' | 'PUT' | 'DELETE', unknown][] = [
      [`${partUrl(opn)}/email-addresses`, 'POST', { emailAddress: 'b@depot.example' }],
      [one, 'PUT', { emailAddress: 'c@depot.example' }],
      [one, 'DELETE', undefined],
      [`${partUrl(opn)}/action-append-nzbns`, 'POST', { nzbns: [FIXTURE.company] }],
    ];
    const eventsBefore = (await events(opn)).length;
    for (const [url, method, body] of changes) {
      for (const headers of STALE) {
        const refused = await write(method, url, body, headers);
        expect(refused.statusCode, `${method} ${url} ${JSON.stringify(headers)}`).toBe(412);
        expect(refused.json().errorCode).toBe('precondition-failed');
      }
    }
    expect((await read(opn)).headers.etag).toBe(etag);
    expect(await events(opn)).toHaveLength(eventsBefore);
    // With the current ETag each goes through, and its answer's ETag is the next one to send.
    let tag = etag;
    for (const [url, method, body] of changes.slice(0, 3)) {
      const done = await write(method, url, body, { 'if-match': tag });
      expect(done.statusCode, done.body).toBeLessThan(300);
      tag = String(done.headers.etag);
    }
    expect((await read(opn)).headers.etag).toBe(tag);
    expect(
      (await read(opn)).json().emailAddresses.map((e: { emailAddress: string }) => e.emailAddress),
    ).toEqual(['b@depot.example']);
  });
});

describe('change events', () => {
  it('every change of an item is an ORGANISATIONPART change the change event search and the watchlists see', async () => {
    const watchlist = await createWatchlist(t, {
      name: 'Parts',
      channel: 'EMAIL',
      watchlistEmailAddresses: ['parts@example.test'],
      nzbns: [E],
    });
    const pool = t.gateway.runtime.environments.sandbox.pool;
    const now = () => t.gateway.runtime.clocks.for('sandbox').now();
    await fanOutAll(pool, now);
    const recordsBefore = (await notifications(t, watchlist.watchlistId)).length;
    const from = new Date(now().getTime() - 1_000).toISOString();
    const opn = await newPart();
    const added = await write('POST', `${partUrl(opn)}/custom-data`, { key: 'bay', value: '3' });
    const uid = added.json().uniqueIdentifier as string;
    await write('PUT', `${partUrl(opn)}/custom-data/${uid}`, { key: 'bay', value: '4' });
    await write('DELETE', `${partUrl(opn)}/custom-data/${uid}`);
    const recorded = await events(opn);
    // The create, then one per change: each the part after it, public as the part is.
    expect(
      recorded.map((e) => (e.new_value['custom-data'] as { value: string }[]).map((c) => c.value)),
    ).toEqual([[], ['3'], ['4'], []]);
    expect(recorded.every((e) => !e.is_private)).toBe(true);

    const to = new Date(now().getTime() + 1_000).toISOString();
    const feed = await t.call(
      'GET',
      `/entities/changes?change-event-type=ORGANISATIONPART&date-time-from=${from}&date-time-to=${to}&page-size=50`,
    );
    expect(feed.statusCode, feed.body).toBe(200);
    const values = feed
      .json()
      .items.filter((change: { nzbn: string }) => change.nzbn === E)
      .flatMap((change: { items: { changeEventType: string; newValue: string }[] }) => change.items)
      .map((event: { newValue: string }) => JSON.parse(event.newValue))
      .filter((part: { opn: string }) => part.opn === opn);
    expect(values.map((part: { 'custom-data': unknown[] }) => part['custom-data'].length)).toEqual([
      0, 1, 1, 0,
    ]);

    await fanOutAll(pool, now);
    const records = await notifications(t, watchlist.watchlistId);
    const fresh = records.slice(recordsBefore).map((record) => record.change_event_id);
    const types = await sql<{ change_event_type: string; opn: string }>(
      `SELECT change_event_type, new_value->>'opn' AS opn FROM nzbn_change_events WHERE id = ANY($1::bigint[])`,
      [fresh],
    );
    expect(types.filter((e) => e.opn === opn && e.change_event_type === 'ORGANISATIONPART')).toHaveLength(4);
  });

  it('a change of a private part is a private change: the search shows it without its value', async () => {
    const from = t.gateway.runtime.clocks.for('sandbox').now().toISOString();
    const opn = await newPart({ privacy: 'PRIVATE' });
    await write('POST', `${partUrl(opn)}/purpose`, { purpose: 'OTHER', purposeDescription: 'Secret' });
    const [, change] = await events(opn);
    expect(change!.is_private).toBe(true);
    expect(change!.new_value.purposes).toEqual([expect.objectContaining({ purposeDescription: 'Secret' })]);
    const feed = await t.call(
      'GET',
      `/entities/changes?change-event-type=ORGANISATIONPART&date-time-from=${from}`,
    );
    const shown = feed.json().items.flatMap((c: { items: { newValue: string | null }[] }) => c.items);
    expect(shown).toHaveLength(2);
    expect(shown.map((event: { newValue: string | null }) => event.newValue)).toEqual(shown.map(() => null));
  });

  it('the change and its event commit together: when the event cannot be written, the part is unchanged', async () => {
    const opn = await newPart();
    const before = await read(opn);
    await sql(`CREATE FUNCTION refuse_doomed_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.new_value::text LIKE '%"doomed"%' THEN RAISE EXCEPTION 'the event store is away'; END IF;
        RETURN NEW;
      END $$`);
    await sql(`CREATE TRIGGER refuse_doomed_event BEFORE INSERT ON nzbn_change_events
      FOR EACH ROW EXECUTE FUNCTION refuse_doomed_event()`);
    try {
      // Sent around the harness's call, which holds every answer to the document (a 500 is in none).
      const failed = await t.gateway.app.inject({
        method: 'POST',
        url: `/sandbox/nzbn/v5${partUrl(opn)}/custom-data`,
        headers: { 'Ocp-Apim-Subscription-Key': t.key, authorization: `Bearer ${t.owner.token}` },
        payload: { key: 'doomed', value: '1' },
      });
      expect(failed.statusCode).toBe(500);
      expect(failed.body).not.toContain('event store');
    } finally {
      await sql('DROP TRIGGER refuse_doomed_event ON nzbn_change_events');
      await sql('DROP FUNCTION refuse_doomed_event()');
    }
    const after = await read(opn);
    expect(after.headers.etag).toBe(before.headers.etag);
    expect(after.json()['custom-data']).toEqual([]);
  });
});

describe('the share list (nzbn-list)', () => {
  const append = (opn: string, nzbns: unknown) =>
    write('POST', `${partUrl(opn)}/action-append-nzbns`, { nzbns });
  const remove = (opn: string, nzbns: unknown) =>
    write('POST', `${partUrl(opn)}/action-delete-nzbns`, { nzbns });

  it('shares a private part with entities the register holds, and stops; the shared see it meanwhile', async () => {
    const opn = await newPart({ privacy: 'PRIVATE' });
    const seen = async () => (await read(opn, partner.token)).statusCode;
    expect(await seen()).toBe(404);
    const shared = await append(opn, [FIXTURE.company, FIXTURE.soleTrader, FIXTURE.company]);
    expect(shared.statusCode, shared.body).toBe(201);
    expect(shared.json()).toEqual({ nzbns: [FIXTURE.company, FIXTURE.soleTrader] });
    expect((await read(opn)).json()).toMatchObject({
      privacy: 'SHARED',
      'nzbn-list': [{ nzbn: FIXTURE.company }, { nzbn: FIXTURE.soleTrader }],
    });
    expect(await seen()).toBe(200);
    // The partner sees the part, not whom else it is shared with.
    expect((await read(opn, partner.token)).json()['nzbn-list']).toEqual([]);
    const found = await t.call('GET', `/entities/organisation-parts?search-term=${opn}`, {
      token: partner.token,
    });
    expect(found.json().totalItems).toBe(1);

    const less = await remove(opn, [FIXTURE.company, FIXTURE.removed]);
    expect(less.statusCode, less.body).toBe(200);
    expect(less.json()).toEqual({ nzbns: [FIXTURE.soleTrader] });
    expect(await seen()).toBe(404);
    // Shared with nobody, the part is private again.
    const none = await remove(opn, [FIXTURE.soleTrader]);
    expect(none.json()).toEqual({ nzbns: [] });
    expect((await read(opn)).json()).toMatchObject({ privacy: 'PRIVATE', 'nzbn-list': [] });
    const [, ...changes] = await events(opn);
    expect(changes.map((e) => (e.new_value['nzbn-list'] as unknown[]).length)).toEqual([2, 1, 0]);
    expect(changes.every((e) => e.is_private)).toBe(true);
  });

  it('refuses a number the register does not hold, a malformed one, the part’s own entity and a public part', async () => {
    const opn = await newPart({ privacy: 'PRIVATE' });
    const refusals: [string[], string][] = [
      [[MISSING], `unknown business number "${MISSING}"`],
      [['9429000001008'], '"9429000001008": wrong check digit, expected 7'],
      [[], 'fewer than 1 items'],
    ];
    for (const [nzbns, message] of refusals) {
      for (const call of [append, remove]) {
        const response = await call(opn, nzbns);
        expect(response.statusCode, response.body).toBe(400);
        expect(response.json().list[0]).toEqual({
          field: 'nzbns',
          message: expect.stringContaining(message),
        });
      }
    }
    // Only sharing names the part's own entity as a mistake; it is never on the list to remove.
    const own = await append(opn, [E]);
    expect(own.json().list[0]).toEqual({
      field: 'nzbns',
      message: `"${E}" is the part's own entity, which always sees it`,
    });
    const open = await newPart({ privacy: 'PUBLIC' });
    const refused = await append(open, [FIXTURE.company]);
    expect(refused.json().list[0]).toEqual({
      field: 'nzbns',
      message: expect.stringMatching(/^the part is PUBLIC/),
    });
    expect((await read(opn)).json()).toMatchObject({ privacy: 'PRIVATE', 'nzbn-list': [] });
  });
});
