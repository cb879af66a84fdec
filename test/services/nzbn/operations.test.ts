import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noPreconditions } from '../../../src/platform/http/operation.ts';
import { searchChangeEvents } from '../../../src/services/nzbn/operations/changes.ts';
import {
  discoverEntity,
  ENTITY_PARTS,
  readEntity,
  readEntityPart,
} from '../../../src/services/nzbn/operations/entities.ts';
import { addListItems, ENTITY_LISTS } from '../../../src/services/nzbn/operations/entity-lists.ts';
import { changePrivacySettings } from '../../../src/services/nzbn/operations/entity-updates.ts';
import { readHistory, readHistoryList } from '../../../src/services/nzbn/operations/history.ts';
import { searchRegister } from '../../../src/services/nzbn/operations/search.ts';
import type { NzbnContext } from '../../../src/services/nzbn/operations/support.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';
import { sandboxContext, userCaller } from './support/context.ts';

/** What a route answers from a read operation: the same bytes and validators. */
function expectSameAnswer(
  response: { statusCode: number; body: string; headers: Record<string, unknown> },
  answer: { body: string | Buffer; validators: { etag: string; lastModified: Date } },
) {
  expect(response.statusCode).toBe(200);
  expect(response.body).toBe(String(answer.body));
  expect(response.headers.etag).toBe(answer.validators.etag);
  expect(response.headers['last-modified']).toBe(answer.validators.lastModified.toUTCString());
}

describe('operations called without HTTP (as the CLI or an import does)', () => {
  // One gateway for the writes and the reads: the reads compare each operation with the API's answer.
  let t: NzbnTest;
  let context: NzbnContext;
  beforeAll(async () => {
    t = await nzbnTest();
    context = sandboxContext(t.gateway);
  });
  afterAll(() => t?.close());

  describe('writes', () => {
    const E = FIXTURE.authority;
    const read = (nzbn: string) => t.call('GET', `/entities/${nzbn}`, { token: t.owner.token });

    it('adds an item to a list: the entity the API reads has it, with the validators it answers', async () => {
      const websites = ENTITY_LISTS.find((list) => list.path === 'websites')!;
      const added = await addListItems(context, {
        caller: userCaller(t.owner.userId),
        nzbn: E,
        preconditions: noPreconditions,
        list: websites,
        items: [{ url: 'https://operations.example.test' }],
      });
      // The published answer of POST websites: the list as it now stands.
      expect(added.result).toContainEqual(
        expect.objectContaining({ url: 'https://operations.example.test' }),
      );
      const after = await read(E);
      expect(after.json().websites).toEqual(added.result);
      expect(after.headers.etag).toBe(added.validators.etag);
      expect(after.headers['last-modified']).toBe(added.validators.lastModified.toUTCString());
    });

    it('checks business authority and the domain rules as the API does', async () => {
      const input = { nzbn: E, preconditions: noPreconditions, settings: { emailPrivateInformation: true } };
      await expect(changePrivacySettings(context, { ...input, caller: undefined })).rejects.toMatchObject({
        status: 403,
      });
      await expect(
        changePrivacySettings(context, {
          ...input,
          caller: userCaller(t.owner.userId),
          nzbn: '9429000003026',
        }),
      ).rejects.toMatchObject({ status: 400, fields: [{ field: 'nzbn' }] });
    });

    it('holds the preconditions it is given inside its transaction: a failing one writes nothing', async () => {
      const before = await read(E);
      const stale = () => {
        throw Object.assign(new Error('stale'), { status: 412 });
      };
      await expect(
        changePrivacySettings(context, {
          caller: userCaller(t.owner.userId),
          nzbn: E,
          preconditions: stale,
          settings: { emailPrivateInformation: true },
        }),
      ).rejects.toThrow('stale');
      expect((await read(E)).headers.etag).toBe(before.headers.etag);
    });
  });

  describe('read operations answer what the API answers', () => {
    const P = FIXTURE.privateData;
    const part = (path: string) => ENTITY_PARTS.find((p) => p.path === path)!;

    it('reads the entity in the view of each caller', async () => {
      const owner = userCaller(t.owner.userId);
      expectSameAnswer(
        await t.call('GET', `/entities/${P}`, { token: t.owner.token }),
        await readEntity(context, { caller: owner, nzbn: P }),
      );
      const open = await readEntity(context, { caller: undefined, nzbn: P });
      expectSameAnswer(await t.call('GET', `/entities/${P}`), open);
      expect(open.validators.etag).toMatch(/-p"$/);
    });

    it('reads a part, addresses of one type, and refuses as the API does', async () => {
      const owner = userCaller(t.owner.userId);
      expectSameAnswer(
        await t.call('GET', `/entities/${P}/phone-numbers`, { token: t.owner.token }),
        await readEntityPart(context, { caller: owner, nzbn: P, part: part('phone-numbers') }),
      );
      const input = { caller: undefined, nzbn: FIXTURE.company, part: part('addresses') };
      expectSameAnswer(
        await t.call('GET', `/entities/${FIXTURE.company}/addresses?address-type=registered`),
        await readEntityPart(context, { ...input, addressType: 'registered' }),
      );
      await expect(readEntityPart(context, { ...input, addressType: 'nowhere' })).rejects.toMatchObject({
        status: 400,
        fields: [{ field: 'address-type' }],
      });
      const details = { caller: undefined, nzbn: FIXTURE.soleTrader, part: part('company-details') };
      const refused = await t.call('GET', `/entities/${FIXTURE.soleTrader}/company-details`);
      expect(refused.statusCode).toBe(400);
      await expect(readEntityPart(context, details)).rejects.toMatchObject({
        status: 400,
        message: refused.json().errorDescription,
      });
    });

    it('reads the history, whole and one kind, in the view of each caller', async () => {
      const owner = userCaller(t.owner.userId);
      expectSameAnswer(
        await t.call('GET', `/entities/${P}/history`, { token: t.owner.token }),
        await readHistory(context, { caller: owner, nzbn: P }),
      );
      expectSameAnswer(
        await t.call('GET', `/entities/${P}/history`),
        await readHistory(context, { caller: undefined, nzbn: P }),
      );
      const names = await readHistoryList(context, {
        caller: undefined,
        nzbn: FIXTURE.company,
        kind: 'entity-names',
      });
      expectSameAnswer(await t.call('GET', `/entities/${FIXTURE.company}/history/entity-names`), names);
      expect(Array.isArray(JSON.parse(names.body))).toBe(true);
    });

    it('searches the register: the page the API answers, and its refusals', async () => {
      const page = { pageSize: 5, offset: 5 };
      const search = { 'search-term': 'sandbox', 'entity-status': ['Registered, Inactive'] };
      const found = await searchRegister(context, { search, page });
      const answered = await t.call(
        'GET',
        '/entities?search-term=sandbox&entity-status=Registered,Inactive&page=1&page-size=5',
      );
      expect(answered.statusCode).toBe(200);
      expect(found.items.length).toBeGreaterThan(0);
      expect(found.items).toEqual(answered.json().items);
      expect(found.total).toBe(answered.json().totalItems);
      const refused = await t.call('GET', '/entities?search-term=sandbox&entity-status=Sleeping');
      expect(refused.statusCode).toBe(400);
      await expect(
        searchRegister(context, {
          search: { 'search-term': 'sandbox', 'entity-status': ['Sleeping'] },
          page,
        }),
      ).rejects.toMatchObject({ status: 400, message: refused.json().errorDescription });
    });

    it('searches the change events: the page the API answers, its order, and its refusals', async () => {
      const websites = ENTITY_LISTS.find((list) => list.path === 'websites')!;
      await addListItems(context, {
        caller: userCaller(t.owner.userId),
        nzbn: FIXTURE.authority,
        preconditions: noPreconditions,
        list: websites,
        items: [{ url: 'https://changes.example.test' }],
      });
      const page = { pageSize: 3, offset: 0 };
      const search = { 'change-event-type': ['ALL'], 'sort-by': 'nzbn', 'sort-order': 'desc' };
      const found = await searchChangeEvents(context, { search, page });
      const answered = await t.call(
        'GET',
        '/entities/changes?change-event-type=ALL&sort-by=nzbn&sort-order=desc&page-size=3',
      );
      expect(answered.statusCode).toBe(200);
      expect(found.items.length).toBeGreaterThan(0);
      expect(found).toEqual({
        total: answered.json().totalItems,
        items: answered.json().items,
        sortBy: answered.json().sortBy,
        sortOrder: answered.json().sortOrder,
      });
      const refused = await t.call(
        'GET',
        '/entities/changes?change-event-type=ALL&start-date=2020-01-02&end-date=2020-01-01',
      );
      expect(refused.statusCode).toBe(400);
      const backwards = {
        'change-event-type': ['ALL'],
        'start-date': '2020-01-02',
        'end-date': '2020-01-01',
      };
      await expect(searchChangeEvents(context, { search: backwards, page })).rejects.toMatchObject({
        status: 400,
        message: refused.json().errorDescription,
        fields: [{ field: 'date-time-to' }],
      });
    });

    it("answers discoverable with the links and validators of the caller's view", async () => {
      const O = FIXTURE.orgParts;
      expectSameAnswer(
        await t.call('GET', `/entities/${O}/discoverable`),
        await discoverEntity(context, { caller: undefined, nzbn: O }),
      );
      await expect(
        discoverEntity(context, { caller: undefined, nzbn: '9429000003026' }),
      ).rejects.toMatchObject({
        status: 400,
      });
    });
  });
});
