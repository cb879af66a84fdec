import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignedInUser, signedInUser } from '../../support/oauth.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';
import { partRequest } from './support/bodies.ts';
import { OpenApi } from './support/openapi.ts';

/**
 * Access to an organisation part that is not public: the published request (OP025), the owner's
 * decision (ours), and what the requester sees before and after it: every read of the part, the GLN
 * lookup (OP002) and the search; nobody else sees more. Also the GLN lookup itself.
 */
let t: NzbnTest;
let api: OpenApi;
/** Holds authority over the sole trader test case: the requesting entity. */
let requester: SignedInUser;
/** Holds authority over another entity, which asked for nothing. */
let bystander: SignedInUser;
/** Holds authority over the company test case, which the shared part is shared with. */
let partner: SignedInUser;
beforeAll(async () => {
  t = await nzbnTest({ entities: 1_000 });
  api = await OpenApi.load(t);
  await t.grant(t.owner.userId, FIXTURE.orgParts);
  requester = await signedInUser(t.gateway);
  await t.grant(requester.userId, FIXTURE.soleTrader);
  bystander = await signedInUser(t.gateway);
  await t.grant(bystander.userId, FIXTURE.removed);
  partner = await signedInUser(t.gateway);
  await t.grant(partner.userId, FIXTURE.company);
});
afterAll(() => t?.close());

const P = FIXTURE.orgParts;
const R = FIXTURE.soleTrader;
const PUBLIC = '9429800000019';
const PRIVATE = '9429800000026';
const SHARED = '9429800000033';
const opnsOf = (parts: { opn: string }[]) => parts.map((part) => part.opn).sort();
const as = (user?: SignedInUser) => (user ? { token: user.token } : {});

const ask = (user: SignedInUser, body: unknown) =>
  t.call('POST', '/entities/organisation-parts/action-request-access', { ...as(user), payload: body });
const requests = (query = '', user: SignedInUser = t.owner) =>
  t.call('GET', `/entities/${P}/organisation-parts-access-requests${query}`, as(user));
const decide = (requestStatus: string, headers: Record<string, string> = {}, user = t.owner) =>
  t.call('PUT', `/entities/${P}/organisation-parts/${PRIVATE}/access-requests/${R}`, {
    ...as(user),
    headers,
    payload: { requestStatus },
  });

/** What the user sees of the private part through each read. */
async function seen(user?: SignedInUser) {
  const one = await t.call('GET', `/entities/${P}/organisation-parts/${PRIVATE}`, as(user));
  const list = await t.call('GET', `/entities/${P}/organisation-parts`, as(user));
  const search = await t.call('GET', `/entities/organisation-parts?search-term=${PRIVATE}`, as(user));
  const gln = await t.call('GET', `/entities/organisation-parts/gln/${PRIVATE}`, as(user));
  const entityGln = await t.call('GET', `/entities/organisation-parts/gln/${P}`, as(user));
  return {
    one: one.statusCode,
    list: opnsOf(list.json().items).includes(PRIVATE),
    search: opnsOf(search.json().items).includes(PRIVATE),
    gln: gln.statusCode,
    entityGln: opnsOf(entityGln.json().organisationParts).includes(PRIVATE),
  };
}
const HIDDEN = { one: 404, list: false, search: false, gln: 404, entityGln: false };
const SEEN = { one: 200, list: true, search: true, gln: 200, entityGln: true };

describe('a request for access to a private part', () => {
  it('is PENDING, the part hidden, until its owner approves; then the requester alone sees it, until declined', async () => {
    expect(await seen(requester)).toEqual(HIDDEN);
    const asked = await ask(requester, { opn: PRIVATE, requestingNzbn: R });
    expect(asked.statusCode, asked.body).toBe(201);
    api.conforms('POST', '/entities/organisation-parts/action-request-access', asked);
    expect(asked.json()).toEqual({ opn: PRIVATE, requestStatus: 'PENDING' });
    expect(await seen(requester)).toEqual(HIDDEN);

    // The owner's side (ours): the requests for the entity's parts (the seed's approved one first).
    const all = await requests();
    expect(all.statusCode, all.body).toBe(200);
    api.conforms('GET', '/entities/{nzbn}/organisation-parts-access-requests', all);
    expect(all.json()).toMatchObject({ totalItems: 2, sortBy: 'requestDate', sortOrder: 'ASC' });
    expect(all.json().items.map((item: { requestingNzbn: string }) => item.requestingNzbn)).toEqual([
      FIXTURE.authority,
      R,
    ]);
    const pending = await requests('?request-status=pending');
    expect(pending.json().totalItems).toBe(1);
    expect(pending.json().items[0]).toMatchObject({
      opn: PRIVATE,
      name: 'Sandbox Test Warehouse',
      requestingNzbn: R,
      requestStatus: 'PENDING',
      decisionDate: null,
    });
    expect((await requests(`?request-status=approved&opn=${PRIVATE}`)).json().items).toEqual([
      expect.objectContaining({ requestingNzbn: FIXTURE.authority, requestStatus: 'APPROVED' }),
    ]);
    expect((await requests('?request-status=LOST')).json().list[0].field).toBe('request-status');
    expect((await requests(`?opn=${PUBLIC}`)).json().items).toEqual([]);
    const cached = await t.call('GET', `/entities/${P}/organisation-parts-access-requests`, {
      token: t.owner.token,
      headers: { 'if-none-match': String(all.headers.etag) },
    });
    expect(cached.statusCode).toBe(304);

    // Only the owner decides, against the request as it stands.
    expect((await requests('', requester)).statusCode).toBe(403);
    expect((await decide('APPROVED', {}, requester)).statusCode).toBe(403);
    expect((await decide('APPROVED', { 'if-match': '"stale"' })).statusCode).toBe(412);
    const odd = await decide('MAYBE');
    expect(odd.statusCode).toBe(400);
    expect(odd.json().list[0].field).toBe('requestStatus');
    expect(await seen(requester)).toEqual(HIDDEN);
    const listed = (headers: Record<string, string> = {}) =>
      t.call('GET', `/entities/${P}/organisation-parts`, { ...as(requester), headers });
    const lastModified = String((await listed()).headers['last-modified']);

    const approved = await decide('approved');
    expect(approved.statusCode, approved.body).toBe(200);
    api.conforms(
      'PUT',
      '/entities/{nzbn}/organisation-parts/{opn}/access-requests/{requestingNzbn}',
      approved,
    );
    expect(approved.json()).toMatchObject({ requestStatus: 'APPROVED', decisionDate: expect.any(String) });
    expect(await seen(requester)).toEqual(SEEN);
    // The part came into view: the requester's Last-Modified moved with the approval.
    expect((await listed({ 'if-modified-since': lastModified })).statusCode).toBe(200);
    // The requester sees the part, not who else it is shared with.
    const part = await t.call('GET', `/entities/${P}/organisation-parts/${PRIVATE}`, as(requester));
    expect(part.json()).toMatchObject({ opn: PRIVATE, privacy: 'PRIVATE', 'nzbn-list': [] });
    for (const other of [undefined, t.stranger, bystander, partner])
      expect(await seen(other)).toEqual(HIDDEN);
    expect(await seen(t.owner)).toEqual(SEEN);
    // Asking again changes nothing.
    expect((await ask(requester, { opn: PRIVATE, requestingNzbn: R })).json().requestStatus).toBe('APPROVED');

    // A decision held against the ETag it answered; declining takes the access away.
    const declined = await decide('DECLINED', { 'if-match': String(approved.headers.etag) });
    expect(declined.statusCode, declined.body).toBe(200);
    expect(declined.json().requestStatus).toBe('DECLINED');
    expect(await seen(requester)).toEqual(HIDDEN);
    // Asking again after a decline asks the owner again.
    expect((await ask(requester, { opn: PRIVATE, requestingNzbn: R })).json().requestStatus).toBe('PENDING');
    expect(await seen(requester)).toEqual(HIDDEN);
  });

  it('the seed’s: the operator’s test case was given access to the warehouse, and its own private counter was asked for', async () => {
    // A user who holds authority over the operator's test case (and nothing else).
    const holder = await signedInUser(t.gateway);
    await t.grant(holder.userId, FIXTURE.authority);
    expect(await seen(holder)).toEqual(SEEN);
    const counter = await t.call('GET', `/entities/${FIXTURE.authority}/organisation-parts-access-requests`, {
      token: holder.token,
    });
    expect(
      counter
        .json()
        .items.map((item: { requestingNzbn: string; requestStatus: string; opn: string }) => [
          item.opn,
          item.requestingNzbn,
          item.requestStatus,
        ]),
    ).toEqual([
      ['9429800000057', FIXTURE.company, 'PENDING'],
      ['9429800000057', '9429000001014', 'DECLINED'],
    ]);
    // Nobody else sees the private counter.
    expect(
      (await t.call('GET', '/entities/organisation-parts/gln/9429800000057', as(partner))).statusCode,
    ).toBe(404);
  });

  it('the generated register’s: a private part a neighbour asked for, hidden until its owner approves', async () => {
    const [asked] = (
      await t.gateway.runtime.environments.sandbox.pool.query<{ opn: string; parent: string; by: string }>(
        `SELECT a.opn, p.parent_nzbn AS parent, a.requesting_nzbn AS by
           FROM nzbn_part_access_requests a JOIN nzbn_organisation_parts p ON p.opn = a.opn
          WHERE a.status = 'PENDING' AND p.privacy = 'PRIVATE' AND a.opn LIKE '94299%' ORDER BY a.opn LIMIT 1`,
      )
    ).rows;
    expect(asked).toBeDefined();
    const [owner, neighbour] = [await signedInUser(t.gateway), await signedInUser(t.gateway)];
    await t.grant(owner.userId, asked!.parent);
    await t.grant(neighbour.userId, asked!.by);
    const lookup = (user?: SignedInUser) =>
      t.call('GET', `/entities/organisation-parts/gln/${asked!.opn}`, as(user)).then((r) => r.statusCode);
    expect([await lookup(), await lookup(neighbour), await lookup(owner)]).toEqual([404, 404, 200]);
    const listed = await t.call(
      'GET',
      `/entities/${asked!.parent}/organisation-parts-access-requests`,
      as(owner),
    );
    expect(listed.json().items).toContainEqual(
      expect.objectContaining({ opn: asked!.opn, requestingNzbn: asked!.by, requestStatus: 'PENDING' }),
    );
    const url = `/entities/${asked!.parent}/organisation-parts/${asked!.opn}/access-requests/${asked!.by}`;
    const approved = await t.call('PUT', url, { ...as(owner), payload: { requestStatus: 'APPROVED' } });
    expect(approved.statusCode, approved.body).toBe(200);
    expect([await lookup(), await lookup(neighbour)]).toEqual([404, 200]);
  });

  it('is refused, with nothing written, for a public part, an entity that sees the part, a caller without authority, an unknown part', async () => {
    const refused = async (user: SignedInUser, body: unknown) => {
      const answer = await ask(user, body);
      return { status: answer.statusCode, field: answer.json().list?.[0]?.field };
    };
    const before = (await requests()).json().totalItems;
    expect(await refused(requester, { opn: PUBLIC, requestingNzbn: R })).toEqual({
      status: 400,
      field: 'opn',
    });
    expect(await refused(partner, { opn: SHARED, requestingNzbn: FIXTURE.company })).toEqual({
      status: 400,
      field: 'requestingNzbn',
    });
    expect(await refused(t.owner, { opn: PRIVATE, requestingNzbn: P })).toEqual({
      status: 400,
      field: 'requestingNzbn',
    });
    // The caller must act for the requesting entity: others learn nothing of the part.
    expect(await refused(t.stranger, { opn: PRIVATE, requestingNzbn: R })).toEqual({
      status: 403,
      field: 'requestingNzbn',
    });
    expect(await refused(requester, { opn: '9429800000040', requestingNzbn: R })).toEqual({
      status: 404,
      field: undefined,
    });
    expect(await refused(requester, { opn: PRIVATE, requestingNzbn: '9429000009997' })).toEqual({
      status: 404,
      field: undefined,
    });
    expect(await refused(requester, { opn: '9429800000027', requestingNzbn: R })).toEqual({
      status: 400,
      field: 'opn',
    });
    expect(await refused(requester, { opn: PRIVATE })).toEqual({ status: 400, field: 'requestingNzbn' });
    expect((await requests()).json().totalItems).toBe(before);
    const unknown = await t.call('PUT', `/entities/${P}/organisation-parts/${SHARED}/access-requests/${R}`, {
      token: t.owner.token,
      payload: { requestStatus: 'APPROVED' },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().errorDescription).toMatch(/^Object Not Found/);
  });
});

describe('the lookup by GLN', () => {
  const gln = (number: string, user?: SignedInUser, headers: Record<string, string> = {}) =>
    t.call('GET', `/entities/organisation-parts/gln/${number}`, { ...as(user), headers });

  it('answers the entity of a business number with the parts the caller sees, in the published shape', async () => {
    const anonymous = await gln(P);
    expect(anonymous.statusCode, anonymous.body).toBe(200);
    api.conforms('GET', '/entities/organisation-parts/gln/{gln}', anonymous);
    expect(anonymous.json()).toMatchObject({
      nzbn: P,
      entityName: 'SANDBOX TEST ORGANISATION PARTS LIMITED',
      organisationParts: [expect.objectContaining({ opn: PUBLIC })],
    });
    expect(anonymous.json()).not.toHaveProperty('non-company-details');
    expect(opnsOf(anonymous.json().organisationParts)).toEqual([PUBLIC]);
    expect(opnsOf((await gln(P, partner)).json().organisationParts)).toEqual([PUBLIC, SHARED]);
    expect(opnsOf((await gln(P, t.owner)).json().organisationParts)).toEqual([PUBLIC, PRIVATE, SHARED]);
    const cached = await gln(P, undefined, { 'if-none-match': String(anonymous.headers.etag) });
    expect(cached.statusCode).toBe(304);
    // The ETag is of the caller's view.
    expect((await gln(P, t.owner)).headers.etag).not.toBe(anonymous.headers.etag);
    // An entity without parts is found too.
    expect((await gln(FIXTURE.company)).json()).toMatchObject({
      nzbn: FIXTURE.company,
      organisationParts: [],
    });
  });

  it('answers a part’s number with that part and the parts under it, as the caller sees them', async () => {
    const child = await t.call('POST', `/entities/${P}/organisation-parts`, {
      token: t.owner.token,
      payload: partRequest({ name: 'Head Office Annex', parentGln: PUBLIC, privacy: 'PRIVATE' }),
    });
    expect(child.statusCode, child.body).toBe(201);
    const annex = child.json().opn as string;
    expect(opnsOf((await gln(PUBLIC)).json().organisationParts)).toEqual([PUBLIC]);
    expect(opnsOf((await gln(PUBLIC, t.owner)).json().organisationParts)).toEqual([PUBLIC, annex].sort());
    expect(opnsOf((await gln(annex, t.owner)).json().organisationParts)).toEqual([annex]);
    // A part the caller may not see is a number nobody holds.
    const hidden = await gln(annex);
    const missing = await gln('9429000009997');
    expect([hidden.statusCode, missing.statusCode]).toEqual([404, 404]);
    expect(hidden.json().errorDescription).toBe(
      `Object Not Found: no entity or organisation part has the GLN ${annex}`,
    );
    const broken = await gln('9429800000010');
    expect(broken.statusCode).toBe(400);
    expect(broken.json().list[0]).toEqual({ field: 'gln', message: 'wrong check digit, expected 9' });
  });
});
