import type { QueryResultRow } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fanOutAll } from '../../../src/services/nzbn/store/fanout.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';

/**
 * NZBN_044_1 DELETE /entities/{nzbn}/addresses/{id}: the address ends and goes to the address history,
 * with an ADDRESS change event a watchlist of the entity is notified of; If-Match and
 * If-Unmodified-Since hold as for every other write of the entity (412, nothing written); 404 for an
 * address the entity does not have; 403 without business authority.
 */
let t: NzbnTest;
beforeAll(async () => {
  t = await nzbnTest();
});
afterAll(() => t?.close());

const E = FIXTURE.authority;
const sql = <T extends QueryResultRow>(text: string, values: unknown[] = []) =>
  t.gateway.runtime.environments.sandbox.pool.query<T>(text, values).then((r) => r.rows);
const addAddress = async (addressType = 'DELIVERY') => {
  const made = await t.call('POST', `/entities/${E}/addresses`, {
    token: t.owner.token,
    payload: { addressType, address1: '9 Removal Road', address3: 'Nelson' },
  });
  expect(made.statusCode, made.body).toBe(201);
  return made.json() as { uniqueIdentifier: string; addressType: string };
};
const current = async () => {
  const read = await t.call('GET', `/entities/${E}`, { token: t.owner.token });
  return { etag: String(read.headers.etag), entity: read.json() };
};
const remove = (id: string, headers: Record<string, string> = {}, token = t.owner.token) =>
  t.call('DELETE', `/entities/${E}/addresses/${id}`, { token, headers });

describe('DELETE /entities/{nzbn}/addresses/{id}', () => {
  it('ends the address: gone from the entity, in its history, an ADDRESS event a watchlist is told of', async () => {
    const watchlist = await t.call('POST', '/watchlists', {
      payload: {
        name: 'Addresses',
        channel: 'EMAIL',
        watchlistEmailAddresses: ['addresses@example.test'],
        changeEventTypes: ['ADDRESS'],
        nzbns: [E],
      },
    });
    expect(watchlist.statusCode, watchlist.body).toBe(201);
    const address = await addAddress();
    const clock = t.gateway.runtime.clocks.for('sandbox');
    await fanOutAll(t.gateway.runtime.environments.sandbox.pool, () => clock.now());
    const before = await current();

    const removed = await remove(address.uniqueIdentifier, { 'if-match': before.etag });
    expect(removed.statusCode, removed.body).toBe(204);
    expect(removed.body).toBe('');
    const after = await current();
    expect(removed.headers.etag).toBe(after.etag);
    expect(after.etag).not.toBe(before.etag);
    const ids = after.entity.addresses.addressList.map(
      (a: { uniqueIdentifier: string }) => a.uniqueIdentifier,
    );
    expect(ids).not.toContain(address.uniqueIdentifier);

    const history = await t.call('GET', `/entities/${E}/history/addresses?address-type=DELIVERY`, {
      token: t.owner.token,
    });
    const ended = history
      .json()
      .addressList.find((a: { uniqueIdentifier: string }) => a.uniqueIdentifier === address.uniqueIdentifier);
    expect(ended).toMatchObject({ addressType: 'DELIVERY', endDate: after.entity.lastUpdatedDate });

    const [event] = await sql<{ id: string; change_event_type: string; new_value: { endDate: string } }>(
      'SELECT id, change_event_type, new_value FROM nzbn_change_events WHERE nzbn = $1 ORDER BY id DESC LIMIT 1',
      [E],
    );
    expect(event).toMatchObject({
      change_event_type: 'ADDRESS',
      new_value: { endDate: after.entity.lastUpdatedDate },
    });
    await fanOutAll(t.gateway.runtime.environments.sandbox.pool, () => clock.now());
    const told = await sql(
      `SELECT 1 FROM nzbn_notifications n JOIN nzbn_watchlists w ON w.id = n.watchlist_id
        WHERE w.number = $1 AND n.change_event_id = $2`,
      [watchlist.json().watchlistId, event!.id],
    );
    expect(told).toHaveLength(1);

    // Gone, it is not there to remove again.
    const again = await remove(address.uniqueIdentifier);
    expect(again.statusCode).toBe(404);
    expect(again.json().errorDescription).toMatch(/^Object Not Found/);
  });

  it('holds If-Match and If-Unmodified-Since: 412, nothing written', async () => {
    const address = await addAddress('INVOICE');
    const before = await current();
    const events = async () => (await sql('SELECT 1 FROM nzbn_change_events WHERE nzbn = $1', [E])).length;
    const count = await events();
    const stale = await remove(address.uniqueIdentifier, { 'if-match': '"stale"' });
    expect(stale.statusCode).toBe(412);
    expect(stale.json().errorCode).toBe('precondition-failed');
    const past = await remove(address.uniqueIdentifier, {
      'if-unmodified-since': 'Sat, 01 Jan 2000 00:00:00 GMT',
    });
    expect(past.statusCode).toBe(412);
    expect((await current()).etag).toBe(before.etag);
    expect(await events()).toBe(count);
    expect((await remove(address.uniqueIdentifier, { 'if-match': before.etag })).statusCode).toBe(204);
  });

  it('refuses: no such address or entity (404), a malformed number (400), no authority (403), a company’s registered address', async () => {
    expect((await remove('42')).statusCode).toBe(404);
    const missing = await t.call('DELETE', `/entities/9429000009997/addresses/1`, { token: t.owner.token });
    expect(missing.statusCode).toBe(404);
    const broken = await t.call('DELETE', `/entities/9429000001008/addresses/1`, { token: t.owner.token });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().list[0].field).toBe('nzbn');
    const address = await addAddress('OFFICE');
    const stranger = await remove(address.uniqueIdentifier, {}, t.stranger.token);
    expect(stranger.statusCode).toBe(403);
    expect(stranger.json().errorCode).toBe('FORBIDDEN');
    const noUser = await t.call('DELETE', `/entities/${E}/addresses/${address.uniqueIdentifier}`);
    expect(noUser.statusCode).toBe(401);
    const registered = (await current()).entity.addresses.addressList.find(
      (a: { addressType: string }) => a.addressType === 'REGISTERED',
    );
    const kept = await remove(registered.uniqueIdentifier);
    expect(kept.statusCode).toBe(400);
    expect(kept.json().list[0]).toMatchObject({
      field: 'id',
      message: expect.stringMatching(/^is the company’s REGISTERED address/),
    });
  });
});
