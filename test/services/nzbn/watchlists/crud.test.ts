import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { glnProblem } from '../../../../src/platform/gs1.ts';
import { pushEndpointProblem } from '../../../../src/services/nzbn/domain/watchlist.ts';
import { verify, webhookHeaders } from '../../../../src/services/nzbn/domain/webhook-signing.ts';
import { subscriber } from '../../../support/runtime.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from '../support/api.ts';

let t: NzbnTest;
let otherKey: string;
beforeAll(async () => {
  t = await nzbnTest();
  otherKey = (await subscriber(t.gateway, 'sandbox-nzbn')).primaryKey;
});
afterAll(() => t?.close());

/** A business number with a right check digit that the register does not hold. */
const UNKNOWN = (() => {
  for (let digit = 0; digit < 10; digit++) {
    const candidate = `942987654321${digit}`;
    if (!glnProblem(candidate)) return candidate;
  }
  throw new Error('no check digit');
})();

const PUSH = {
  name: 'Suppliers',
  channel: 'PUSH',
  pushEndpoint: 'https://receiver.example.com/hooks',
  authorizationToken: 'Bearer abc',
  adminEmailAddress: 'admin@example.com',
  changeEventTypes: ['ENTITY_NAME', 'ROLES_DIRECTOR'],
  nzbns: [FIXTURE.company, FIXTURE.soleTrader],
};
const create = (payload: unknown, key?: string) =>
  t.call('POST', '/watchlists', { payload, ...(key ? { key } : {}) });

describe('watchlists', () => {
  it('creates a push watchlist with the published fields and shows its webhook secret once', async () => {
    const created = await create(PUSH);
    expect(created.statusCode, created.body).toBe(201);
    const body = created.json();
    // The published values and types: ONEVENT, and the lists as comma-joined text.
    expect(body).toMatchObject({
      name: 'Suppliers',
      channel: 'PUSH',
      frequency: 'ONEVENT',
      wildcard: null,
      changeEventTypes: 'ENTITY_NAME,ROLES_DIRECTOR',
      pushEndpoint: PUSH.pushEndpoint,
      authorizationToken: 'Bearer abc',
      adminEmailAddress: 'admin@example.com',
      watchlistEmailAddresses: '',
      lastSuccessfulChangeNoticeId: null,
      suspended: false,
      toDate: null,
      nzbns: [FIXTURE.company, FIXTURE.soleTrader].sort(),
    });
    expect(body.webhookSecret).toMatch(/^whsec_/);
    expect(created.headers.location).toContain(`/watchlists/${body.watchlistId}`);
    // The secret is stored usable for signing: a signature made with it verifies.
    const [{ webhook_secret }] = (
      await t.gateway.runtime.environments.sandbox.pool.query(
        'SELECT webhook_secret FROM nzbn_watchlists WHERE number = $1',
        [body.watchlistId],
      )
    ).rows;
    expect(webhook_secret).toBe(body.webhookSecret);
    const at = new Date();
    const headers = webhookHeaders(webhook_secret, 'msg_1', at, '{}');
    expect(verify(body.webhookSecret, headers, '{}', at)).toBe(true);
    const read = await t.call('GET', `/watchlists/${body.watchlistId}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).not.toHaveProperty('webhookSecret');
    expect(read.json().nzbns).toEqual(body.nzbns);
  });

  it('lists, updates, resumes, manages business numbers and deletes', async () => {
    const { watchlistId } = (await create({ ...PUSH, name: 'Zeta list' })).json();
    // NEW, our earlier wildcard for every new registration, is the published ALL of change event type NEW.
    const email = await create({
      name: 'Alpha digest',
      channel: 'EMAIL',
      watchlistEmailAddresses: ['team@example.com'],
      wildcard: 'NEW',
    });
    expect(email.statusCode, email.body).toBe(201);
    expect(email.json()).toMatchObject({
      frequency: 'DAILY',
      wildcard: 'ALL',
      changeEventTypes: 'NEW',
      watchlistEmailAddresses: 'team@example.com',
    });
    // The published text form is taken too, and IMMEDIATE (our earlier name) is read as ONEVENT.
    const texts = await create({
      ...PUSH,
      frequency: 'immediate',
      changeEventTypes: 'ENTITY_NAME, NEW',
      watchlistEmailAddresses: 'a@example.com,b@example.com',
    });
    expect(texts.statusCode, texts.body).toBe(201);
    expect(texts.json()).toMatchObject({
      frequency: 'ONEVENT',
      changeEventTypes: 'ENTITY_NAME,NEW',
      watchlistEmailAddresses: 'a@example.com,b@example.com',
    });

    const listed = (await t.call('GET', '/watchlists?sort-by=name&sortorder=DESC')).json();
    const names = listed.items.map((w: { name: string }) => w.name);
    expect(names).toContain('Zeta list');
    expect(names.indexOf('Zeta list')).toBeLessThan(names.indexOf('Alpha digest'));
    const anyCase = (await t.call('GET', '/watchlists?sort-by=NAME&sortorder=desc')).json();
    expect(anyCase.items.map((w: { name: string }) => w.name)).toEqual(names);
    const filtered = (await t.call('GET', '/watchlists?name=alpha')).json();
    expect(filtered.items.map((w: { name: string }) => w.name)).toEqual(['Alpha digest']);
    expect(filtered.links[0].href).toContain('name=alpha');

    const updated = await t.call('PUT', `/watchlists/${watchlistId}`, {
      payload: { name: 'Renamed', frequency: 'daily', suspended: false },
    });
    // 201: the published status of PUT /watchlists/{watchlistId}.
    expect(updated.statusCode, updated.body).toBe(201);
    expect(updated.json()).toMatchObject({
      name: 'Renamed',
      frequency: 'DAILY',
      pushEndpoint: PUSH.pushEndpoint,
    });

    // The published actions on the business numbers: 201 with the NZBNList (numbers and links).
    const removed = await t.call('POST', `/watchlists/${watchlistId}/action-delete-nzbns`, {
      payload: { nzbns: [FIXTURE.company] },
    });
    expect(removed.statusCode, removed.body).toBe(201);
    expect(removed.json()).toEqual({ nzbns: [FIXTURE.soleTrader], links: expect.any(Array) });
    expect(removed.json().links.map((l: { rel: string }) => l.rel)).toEqual([
      'nzbns',
      'action-append-nzbns',
      'action-delete-nzbns',
    ]);
    const added = await t.call('POST', `/watchlists/${watchlistId}/action-append-nzbns`, {
      payload: { nzbns: [FIXTURE.authority, FIXTURE.soleTrader] },
    });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json()).toMatchObject({ nzbns: [FIXTURE.soleTrader, FIXTURE.authority].sort() });
    expect((await t.call('GET', `/watchlists/${watchlistId}/nzbns`)).json()).toEqual(added.json());

    expect((await t.call('DELETE', `/watchlists/${watchlistId}`)).statusCode).toBe(204);
    const gone = await t.call('GET', `/watchlists/${watchlistId}`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().errorDescription).toContain('Object Not Found');
  });

  it("another subscription's watchlist is a 404, as a missing one is", async () => {
    const { watchlistId } = (await create(PUSH)).json();
    for (const [method, url] of [
      ['GET', `/watchlists/${watchlistId}`],
      ['DELETE', `/watchlists/${watchlistId}`],
      ['GET', `/watchlists/${watchlistId}/nzbns`],
    ] as const) {
      expect((await t.call(method, url, { key: otherKey })).statusCode).toBe(404);
    }
    for (const action of ['action-append-nzbns', 'action-delete-nzbns', 'action-send-test-notification']) {
      const payload =
        action === 'action-send-test-notification' ? { text: 'x' } : { nzbns: [FIXTURE.company] };
      const theirs = await t.call('POST', `/watchlists/${watchlistId}/${action}`, { key: otherKey, payload });
      expect(theirs.statusCode, action).toBe(404);
    }
    const put = await t.call('PUT', `/watchlists/${watchlistId}`, { key: otherKey, payload: { name: 'x' } });
    expect(put.statusCode).toBe(404);
    const theirs = (await t.call('GET', '/watchlists', { key: otherKey })).json();
    expect(theirs.totalItems).toBe(0);
    expect((await t.call('GET', '/watchlists/2147483647')).statusCode).toBe(404);
    // Not a published watchlistId (an int32 whole number) at all: 400 naming it.
    for (const odd of ['not-an-id', '0', '-1', '2147483648', '00000000-0000-0000-0000-000000000000']) {
      const answer = await t.call('GET', `/watchlists/${odd}`);
      expect(answer.statusCode, odd).toBe(400);
      expect(answer.body, odd).toContain('watchlistId');
    }
  });

  it.each([
    [{ pushEndpoint: 'http://receiver.example.com/hooks' }, 'pushEndpoint'],
    [{ pushEndpoint: 'ftp://receiver.example.com' }, 'pushEndpoint'],
    [{ pushEndpoint: 'not a url' }, 'pushEndpoint'],
    [{ pushEndpoint: null }, 'pushEndpoint'],
    [{ adminEmailAddress: null }, 'adminEmailAddress'],
    [{ nzbns: [UNKNOWN] }, 'nzbns'],
    [{ nzbns: ['9429000001008'] }, 'nzbns'],
    [{ nzbns: [] }, 'nzbns'],
    [{ changeEventTypes: ['SOMETHING'] }, 'changeEventTypes'],
    [{ channel: 'SMS' }, 'channel'],
    [{ channel: 'EMAIL' }, 'watchlistEmailAddresses'],
    [{ wildcard: 'SOME' }, 'wildcard'],
    [{ frequency: 'HOURLY' }, 'frequency'],
    [{ fromDate: 'soon' }, 'fromDate'],
    [{ fromDate: '2030-01-02', toDate: '2030-01-01' }, 'toDate'],
  ])('400 for %j naming %s', async (change, field) => {
    const response = await create({ ...PUSH, ...change });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().list[0].field).toBe(field);
  });

  it('400s on the business number operations and for suspending by hand', async () => {
    const { watchlistId } = (await create(PUSH)).json();
    const unknown = await t.call('POST', `/watchlists/${watchlistId}/action-append-nzbns`, {
      payload: { nzbns: [UNKNOWN] },
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().list[0].message).toContain(UNKNOWN);
    // Public sector entities have no change feed, so they cannot be watched.
    const [council] = (
      await t.gateway.runtime.environments.sandbox.pool.query<{ nzbn: string }>(
        "SELECT nzbn FROM nzbn_entities WHERE type_code = 'GovtLocal' ORDER BY nzbn LIMIT 1",
      )
    ).rows;
    const publicSector = await t.call('POST', `/watchlists/${watchlistId}/action-append-nzbns`, {
      payload: { nzbns: [council!.nzbn] },
    });
    expect(publicSector.statusCode, publicSector.body).toBe(400);
    expect(publicSector.json().list[0]).toMatchObject({ field: 'nzbns' });
    expect(publicSector.json().list[0].message).toContain('public sector');
    const suspend = await t.call('PUT', `/watchlists/${watchlistId}`, { payload: { suspended: true } });
    expect(suspend.statusCode).toBe(400);
    expect(suspend.json().list[0].field).toBe('suspended');
    const badType = await t.call('PUT', `/watchlists/${watchlistId}`, {
      payload: { changeEventTypes: ['NOPE'] },
    });
    expect(badType.json().list[0].field).toBe('changeEventTypes');
  });

  it('push endpoints: https anywhere, http only on this machine', () => {
    expect(pushEndpointProblem('https://example.com/x')).toBeNull();
    expect(pushEndpointProblem('http://localhost:8080/x')).toBeNull();
    expect(pushEndpointProblem('http://127.0.0.1/x')).toBeNull();
    expect(pushEndpointProblem('http://[::1]:9/x')).toBeNull();
    expect(pushEndpointProblem('http://example.com/x')).not.toBeNull();
    expect(pushEndpointProblem('https://user:pw@example.com/x')).not.toBeNull();
  });
});
