import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';
import { partRequest } from './support/bodies.ts';

/**
 * What the conformance matrix (conformance.test.ts) does not see of the contract every operation keeps
 * (README "The contract every operation keeps"): a watchlist's validators and how they move, the
 * validators on the answers of creations, and the register's negotiation (JSON whatever Accept says).
 */
let t: NzbnTest;
beforeAll(async () => {
  t = await nzbnTest({ entities: 200 });
  await t.grant(t.owner.userId, FIXTURE.authority);
});
afterAll(() => t?.close());

const WATCHLIST = {
  name: 'Contract',
  channel: 'EMAIL',
  watchlistEmailAddresses: ['c@example.test'],
  nzbns: [FIXTURE.company],
};

describe('a watchlist and its business numbers', () => {
  it('carry an ETag and Last-Modified, answer 304 to both, and writes hold against them', async () => {
    const id = (await t.call('POST', '/watchlists', { payload: WATCHLIST })).json().watchlistId as string;
    for (const url of [`/watchlists/${id}`, `/watchlists/${id}/nzbns`]) {
      const first = await t.call('GET', url);
      expect(first.statusCode, first.body).toBe(200);
      const { etag, 'last-modified': lastModified } = first.headers;
      expect(etag, url).toMatch(/^"/);
      expect(lastModified, url).toBeDefined();
      const conditions: Record<string, string>[] = [
        { 'if-none-match': String(etag) },
        { 'if-modified-since': String(lastModified) },
      ];
      for (const headers of conditions) {
        const again = await t.call('GET', url, { headers });
        expect(again.statusCode, `${url} ${JSON.stringify(headers)}`).toBe(304);
        expect(again.body).toBe('');
      }
    }
    const list = await t.call('GET', `/watchlists/${id}/nzbns`);
    // The published actions (POST …/action-append-nzbns, …/action-delete-nzbns) answer 201 with the list.
    const added = await t.call('POST', `/watchlists/${id}/action-append-nzbns`, {
      payload: { nzbns: [FIXTURE.soleTrader] },
      headers: { 'if-match': String(list.headers.etag) },
    });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.headers.etag).not.toBe(list.headers.etag);
    // The old list's ETag no longer holds: a second writer who read it is refused, nothing removed.
    const stale = await t.call('POST', `/watchlists/${id}/action-delete-nzbns`, {
      payload: { nzbns: [FIXTURE.company] },
      headers: { 'if-match': String(list.headers.etag) },
    });
    expect(stale.statusCode, stale.body).toBe(412);
    expect((await t.call('GET', `/watchlists/${id}/nzbns`)).json().nzbns).toEqual(
      [FIXTURE.company, FIXTURE.soleTrader].sort(),
    );
    // An update with the current ETag goes through; a deletion by a writer who read it before is refused.
    const current = await t.call('GET', `/watchlists/${id}`);
    const renamed = await t.call('PUT', `/watchlists/${id}`, {
      payload: { name: 'Renamed' },
      headers: { 'if-match': String(current.headers.etag) },
    });
    // 201: the published status of PUT /watchlists/{watchlistId}.
    expect(renamed.statusCode, renamed.body).toBe(201);
    expect(renamed.json().name).toBe('Renamed');
    expect(renamed.headers['last-modified']).toBeDefined();
    const gone = await t.call('DELETE', `/watchlists/${id}`, {
      headers: { 'if-match': String(current.headers.etag) },
    });
    expect(gone.statusCode, gone.body).toBe(412);
    expect((await t.call('GET', `/watchlists/${id}`)).statusCode).toBe(200);
  });
});

describe('creations', () => {
  it('answer the new resource with its ETag and Last-Modified', async () => {
    const registered = await t.call('POST', '/entities', {
      token: t.owner.token,
      payload: { entityTypeCode: 'Sole_Trader', entityName: 'Contract Trader' },
    });
    const part = await t.call('POST', `/entities/${FIXTURE.authority}/organisation-parts`, {
      token: t.owner.token,
      payload: partRequest({ name: 'Contract Depot' }),
    });
    const watchlist = await t.call('POST', '/watchlists', { payload: WATCHLIST });
    // A registration answers 200, the published status of POST /entities; the others 201.
    expect(registered.statusCode, registered.body).toBe(200);
    for (const created of [registered, part, watchlist]) {
      expect(created.statusCode, created.body).toBeLessThan(300);
      expect(created.headers.etag, created.body).toBeDefined();
      expect(created.headers['last-modified'], created.body).toBeDefined();
    }
  });
});

describe('negotiation', () => {
  it('answers JSON whatever Accept says, as the register always has', async () => {
    for (const accept of ['application/xml', 'text/csv', 'application/json', '*/*']) {
      const read = await t.call('GET', `/entities/${FIXTURE.company}`, { headers: { accept } });
      expect(read.statusCode, accept).toBe(200);
      expect(read.headers['content-type'], accept).toMatch(/^application\/json/);
      expect(read.json().nzbn).toBe(FIXTURE.company);
    }
    const search = await t.call('GET', '/entities?search-term=sandbox', {
      headers: { accept: 'application/xml' },
    });
    expect(search.statusCode).toBe(200);
    expect(search.json().items.length).toBeGreaterThan(0);
  });
});
