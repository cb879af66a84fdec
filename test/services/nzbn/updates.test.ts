import type { QueryResultRow } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nzPlaces } from '../../../src/platform/geography.ts';
import type { Entity } from '../../../src/services/nzbn/domain/schema.ts';
import { statusFollowsType } from '../../../src/services/nzbn/sandbox/entity-rules.ts';
import { generatedEntity } from '../../../src/services/nzbn/sandbox/seed-rows.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';
import { LISTS } from './support/bodies.ts';
import { OpenApi } from './support/openapi.ts';

let t: NzbnTest;
let api: OpenApi;
beforeAll(async () => {
  t = await nzbnTest();
  api = await OpenApi.load(t);
  await t.grant(t.owner.userId, FIXTURE.soleTrader);
});
afterAll(() => t?.close());

const E = FIXTURE.authority;
const sql = <T extends QueryResultRow>(text: string, values: unknown[] = []) =>
  t.gateway.runtime.environments.sandbox.pool.query<T>(text, values).then((r) => r.rows);
const events = (nzbn: string) =>
  sql<{ change_event_type: string; new_value: Record<string, unknown>; is_private: boolean }>(
    'SELECT change_event_type, new_value, is_private FROM nzbn_change_events WHERE nzbn = $1 ORDER BY id',
    [nzbn],
  );
const read = async (nzbn: string = E) => {
  const response = await t.call('GET', `/entities/${nzbn}`, { token: t.owner.token });
  return { etag: String(response.headers.etag), entity: response.json() };
};

/** The published answer of each list's POST: the address alone (201), the list (200), nothing (204). */
const statusOf = (path: string) =>
  path === 'addresses' ? 201 : path === 'payment-bank-accounts' ? 204 : 200;

describe('POST to the Primary Business Data lists', () => {
  it.each(LISTS)(
    '%s: adds the item, moves lastUpdatedDate and the ETag, records the change',
    async (path, body, type, key) => {
      const before = await read();
      const eventsBefore = (await events(E)).length;
      // The published bodies: an address alone, every other list an array of items.
      const response = await t.call('POST', `/entities/${E}/${path}`, {
        token: t.owner.token,
        payload: path === 'addresses' ? body : [body],
      });
      expect(response.statusCode, response.body).toBe(statusOf(path));
      api.conforms('POST', `/entities/{nzbn}/${path}`, response);
      const recorded = await events(E);
      expect(recorded).toHaveLength(eventsBefore + 1);
      const item = recorded.at(-1)!.new_value;
      expect(item.uniqueIdentifier).toMatch(/^\d+$/);
      const after = await read();
      expect(after.etag).not.toBe(before.etag);
      expect(response.headers.etag).toBe(after.etag);
      expect(after.entity.lastUpdatedDate).not.toBe(before.entity.lastUpdatedDate);
      const list = key === 'addresses' ? after.entity.addresses.addressList : after.entity[key];
      expect(list).toContainEqual(item);
      if (path === 'addresses') expect(response.json()).toEqual(item);
      else if (response.statusCode === 200) expect(response.json()).toEqual(list);
      else expect(response.body).toBe('');
      expect(recorded.at(-1)).toMatchObject({ change_event_type: type, new_value: item });
      const versions = await sql('SELECT 1 FROM nzbn_entity_versions WHERE nzbn = $1', [E]);
      expect(versions.length).toBeGreaterThan(0);
    },
  );

  it('adds every item of an array in one change, or none when one is refused', async () => {
    const count = (await events(E)).length;
    const both = await t.call('POST', `/entities/${E}/trading-names`, {
      token: t.owner.token,
      payload: [{ name: 'Kowhai One' }, { name: 'Kowhai Two' }],
    });
    expect(both.statusCode, both.body).toBe(200);
    expect(both.json().map((n: { name: string }) => n.name)).toEqual(
      expect.arrayContaining(['Kowhai One', 'Kowhai Two']),
    );
    expect((await events(E)).length).toBe(count + 2);
    const { etag } = await read();
    const refused = await t.call('POST', `/entities/${E}/trading-names`, {
      token: t.owner.token,
      payload: [{ name: 'Kowhai Three' }, { name: 'Kowhai One' }],
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().list[0].field).toBe('1.name');
    expect((await read()).etag).toBe(etag);
    const empty = await t.call('POST', `/entities/${E}/trading-names`, { token: t.owner.token, payload: [] });
    expect(empty.statusCode).toBe(400);
  });

  it('a second address of one type replaces the first, which goes to the address history', async () => {
    const first = (
      await t.call('POST', `/entities/${E}/addresses`, {
        token: t.owner.token,
        payload: { addressType: 'DELIVERY', address1: '1 First Road', address3: 'Hamilton' },
      })
    ).json();
    const second = (
      await t.call('POST', `/entities/${E}/addresses`, {
        token: t.owner.token,
        payload: { addressType: 'DELIVERY', address1: '2 Second Road', address3: 'Hamilton' },
      })
    ).json();
    const current = (await read()).entity.addresses.addressList.filter(
      (a: { addressType: string }) => a.addressType === 'DELIVERY',
    );
    expect(current).toEqual([second]);
    // The published history of addresses: Addresses of the address-type asked for.
    const history = (await t.call('GET', `/entities/${E}/history/addresses?address-type=DELIVERY`)).json();
    expect(history.addressList).toContainEqual({ ...first, endDate: second.startDate });
  });

  it('bad input is 400 naming the field, and nothing is written', async () => {
    const before = await read();
    const cases: [string, unknown, string][] = [
      ['gst-numbers', { gstNumber: '123456789' }, 'gstNumber'],
      [
        'payment-bank-accounts',
        { bankId: '01', bankBranch: '0902', accountBase: '0068388', accountSuffix: '00' },
        'accountBase',
      ],
      [
        'payment-bank-accounts',
        { bankId: '1', bankBranch: '0902', accountBase: '0068389', accountSuffix: '00' },
        'bankId',
      ],
      ['industry-classifications', { classificationCode: 'Z999999' }, 'classificationCode'],
      ['phone-numbers', { phoneNumber: 'call me' }, 'phoneNumber'],
      ['phone-numbers', { phoneNumber: '5551234', phonePurpose: 'Pager' }, 'phonePurpose'],
      ['addresses', { addressType: 'HOME', address1: 'x' }, 'addressType'],
      ['addresses', { addressType: 'POSTAL', address1: 'x', startDate: '24/03/2009' }, 'startDate'],
      ['trading-areas', { tradingArea: 'Mars' }, 'tradingArea'],
      ['email-addresses', {}, 'emailAddress'],
      // A factor the published Factor does not have.
      [
        'business-ethnicity-identifiers',
        { ethnicity: 'MAORI', identifyingFactors: [{ identifyingFactor: 'OTHER_PLEASE_SPECIFY' }] },
        '0.identifyingFactors.0.identifyingFactor',
      ],
    ];
    for (const [path, body, field] of cases) {
      const response = await t.call('POST', `/entities/${E}/${path}`, {
        token: t.owner.token,
        payload: path === 'addresses' ? body : [body],
      });
      expect(response.statusCode, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(
        response
          .json()
          .list.map((f: { field: string }) => f.field)
          .join(' '),
      ).toContain(field);
    }
    const malformed = await t.call('POST', `/entities/${E}/websites`, {
      token: t.owner.token,
      headers: { 'content-type': 'application/json' },
      payload: '{"url":',
    });
    expect(malformed.statusCode).toBe(400);
    // An item where the published body is an array of them.
    const alone = await t.call('POST', `/entities/${E}/websites`, {
      token: t.owner.token,
      payload: { url: 'https://alone.example' },
    });
    expect(alone.statusCode).toBe(400);
    expect(alone.json().list[0].field).toBe('body');
    expect((await read()).etag).toBe(before.etag);
  });
});

describe('conditional updates', () => {
  it('If-Match with a stale ETag is 412 and changes nothing; the current ETag of either view is accepted', async () => {
    const { etag } = await read();
    const count = (await events(E)).length;
    const stale = await t.call('POST', `/entities/${E}/websites`, {
      token: t.owner.token,
      headers: { 'if-match': '"not-the-current-version"' },
      payload: [{ url: 'https://stale.example' }],
    });
    expect(stale.statusCode).toBe(412);
    api.conforms('POST', '/entities/{nzbn}/websites', stale);
    expect((await events(E)).length).toBe(count);
    const current = await t.call('POST', `/entities/${E}/websites`, {
      token: t.owner.token,
      headers: { 'if-match': etag },
      payload: [{ url: 'https://current.example' }],
    });
    expect(current.statusCode).toBe(200);
    const publicEtag = String((await t.call('GET', `/entities/${E}`)).headers.etag);
    const viaPublic = await t.call('POST', `/entities/${E}/action-update-australian-business-numbers`, {
      token: t.owner.token,
      headers: { 'if-match': publicEtag },
      payload: { australianBusinessNumber: '51 824 753 556' },
    });
    expect(viaPublic.statusCode).toBe(200);
    const again = await t.call('POST', `/entities/${E}/action-update-australian-business-numbers`, {
      token: t.owner.token,
      headers: { 'if-match': etag },
      payload: { australianBusinessNumber: null },
    });
    expect(again.statusCode).toBe(412);
  });
});

describe('replace operations and status requests', () => {
  it('POST action-update-australian-business-numbers checks the ABN', async () => {
    const bad = await t.call('POST', `/entities/${E}/action-update-australian-business-numbers`, {
      token: t.owner.token,
      payload: { australianBusinessNumber: '51824753557' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().list[0].field).toBe('australianBusinessNumber');
    const good = await t.call('POST', `/entities/${E}/action-update-australian-business-numbers`, {
      token: t.owner.token,
      payload: { australianBusinessNumber: '51824753556' },
    });
    // The published UpdateAustralianBusinessNumberResponse: the entity and its ABN.
    expect(good.statusCode).toBe(200);
    api.conforms('POST', '/entities/{nzbn}/action-update-australian-business-numbers', good);
    expect(good.json()).toEqual({
      nzbn: E,
      entityName: (await read()).entity.entityName,
      australianBusinessNumber: '51824753556',
    });
    expect((await events(E)).at(-1)).toMatchObject({ change_event_type: 'AUSTRALIANBUSINESSNUMBER' });
  });

  it('POST roles appoints a director and PUT roles/{id} ends one; each change records the whole director', async () => {
    const { entity } = await read();
    const ended = entity.roles.find(
      (r: { roleType: string; roleStatus: string }) => r.roleType === 'Director' && r.roleStatus === 'ACTIVE',
    );
    const count = (await events(E)).length;
    const response = await t.call('POST', `/entities/${E}/roles`, {
      token: t.owner.token,
      payload: {
        roleType: 'Director',
        rolePerson: { firstName: 'Aroha', lastName: 'Ngata' },
        startDate: '2024-02-01',
      },
    });
    expect(response.statusCode, response.body).toBe(201);
    api.conforms('POST', '/entities/{nzbn}/roles', response);
    const appointed = response.json();
    expect(appointed).toMatchObject({
      roleType: 'Director',
      roleStatus: 'ACTIVE',
      startDate: '2024-02-01T00:00:00.000+1300',
    });
    expect((await read()).entity.roles).toContainEqual(appointed);
    const recorded = (await events(E)).slice(count);
    expect(recorded).toContainEqual({
      change_event_type: 'ROLES_DIRECTOR',
      new_value: appointed,
      is_private: false,
    });
    // A director the entity had, else the one just appointed: ended in place, still listed.
    {
      const target = ended ?? appointed;
      const update = await t.call('PUT', `/entities/${E}/roles/${target.uniqueIdentifier}`, {
        token: t.owner.token,
        payload: { roleType: 'Director', roleStatus: 'INACTIVE' },
      });
      expect(update.statusCode, update.body).toBe(200);
      api.conforms('PUT', '/entities/{nzbn}/roles/{id}', update);
      const after = update.json();
      expect(after).toMatchObject({
        uniqueIdentifier: target.uniqueIdentifier,
        roleStatus: 'INACTIVE',
        endDate: expect.any(String),
        rolePerson: target.rolePerson,
      });
      expect((await events(E)).at(-1)).toEqual({
        change_event_type: 'ROLES_DIRECTOR',
        new_value: after,
        is_private: false,
      });
    }
    const unknown = await t.call('PUT', `/entities/${E}/roles/42`, {
      token: t.owner.token,
      payload: { roleType: 'Director', rolePerson: { firstName: 'A', lastName: 'B' } },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().errorDescription).toMatch(/^Object Not Found/);
    const noHolder = await t.call('POST', `/entities/${E}/roles`, {
      token: t.owner.token,
      payload: { roleType: 'Director' },
    });
    expect(noHolder.statusCode).toBe(400);
    expect(noHolder.json().list[0].field).toBe('rolePerson');
  });

  it('POST statuses moves a sole trader between statuses and keeps the periods, reasons and comments', async () => {
    const trader = FIXTURE.soleTrader;
    const company = await t.call('POST', `/entities/${E}/statuses`, {
      token: t.owner.token,
      payload: { entityStatusCode: '90' },
    });
    expect(company.statusCode).toBe(400);
    const bad = await t.call('POST', `/entities/${trader}/statuses`, {
      token: t.owner.token,
      payload: { entityStatusCode: '60' },
    });
    expect(bad.json().list[0]).toEqual({
      field: 'entityStatusCode',
      message: expect.stringContaining('must be 50'),
    });
    const inactive = await t.call('POST', `/entities/${trader}/statuses`, {
      token: t.owner.token,
      payload: { entityStatusCode: 'Inactive', statusReasonCode: 'CEASED', comment: 'Stopped trading' },
    });
    // 204, the published status (its schema names FullEntity, but a 204 carries no body).
    expect(inactive.statusCode, inactive.body).toBe(204);
    api.conforms('POST', '/entities/{nzbn}/statuses', inactive);
    expect(inactive.headers.etag).toBe((await read(trader)).etag);
    expect((await read(trader)).entity).toMatchObject({
      entityStatusCode: '90',
      entityStatusDescription: 'Inactive',
    });
    const periods = (await t.call('GET', `/entities/${trader}/history/entity-statuses`)).json();
    expect(periods.map((p: { entityStatusCode: string }) => p.entityStatusCode)).toEqual(['50', '90']);
    expect(periods[0].endDate).toBe(periods[1].startDate);
    expect(periods[1]).toMatchObject({
      statusReasonCode: 'CEASED',
      comment: 'Stopped trading',
      endDate: null,
    });
    expect(periods[0]).toMatchObject({ statusReasonCode: null, comment: null });
    expect((await events(trader)).at(-1)).toMatchObject({
      change_event_type: 'ENTITY_STATUS',
      new_value: { entityStatusCode: '90', statusReasonCode: 'CEASED', comment: 'Stopped trading' },
    });
    // The next status takes its own reason; the ended period keeps the one it had.
    const again = await t.call('POST', `/entities/${trader}/statuses`, {
      token: t.owner.token,
      payload: { entityStatusCode: '50', statusReasonCode: 'RESUMED' },
    });
    expect(again.statusCode, again.body).toBe(204);
    const three = (await t.call('GET', `/entities/${trader}/history/entity-statuses`)).json();
    expect(three.map((p: { statusReasonCode: string | null }) => p.statusReasonCode)).toEqual([
      null,
      'CEASED',
      'RESUMED',
    ]);
    expect(three[1].comment).toBe('Stopped trading');
  });

  it('POST statuses closing a hibernating sole trader ends its hibernation, and the register keeps its rules', async () => {
    const index = Array.from({ length: 1_000 }, (_, i) => i).find((i) => {
      const entity = generatedEntity(i);
      return (
        entity.entityTypeCode === 'Sole_Trader' &&
        entity.entityStatusCode === '50' &&
        entity.hibernationStatusCode !== null
      );
    });
    expect(index).toBeDefined();
    const generated = generatedEntity(index!);
    await t.grant(t.owner.userId, generated.nzbn);
    const closed = await t.call('POST', `/entities/${generated.nzbn}/statuses`, {
      token: t.owner.token,
      payload: { entityStatusCode: '91' },
    });
    expect(closed.statusCode, closed.body).toBe(204);
    const { entity } = await read(generated.nzbn);
    expect(entity).toMatchObject({
      entityStatusCode: '91',
      hibernationStatusCode: null,
      hibernationStatusDescription: null,
    });
    const statuses = (await t.call('GET', `/entities/${generated.nzbn}/history/entity-statuses`)).json();
    const hibernation = (
      await t.call('GET', `/entities/${generated.nzbn}/history/hibernation-statuses`, {
        token: t.owner.token,
      })
    ).json();
    // The hibernation ended when the business closed, and is in its history.
    expect(hibernation).toEqual([
      {
        hibernationStatusCode: generated.hibernationStatusCode,
        hibernationStatusDescription: generated.hibernationStatusDescription,
        startDate: generated.registrationDate,
        endDate: statuses.at(-1).startDate,
      },
    ]);
    const [stored] = await sql<{ document: Entity }>('SELECT document FROM nzbn_entities WHERE nzbn = $1', [
      generated.nzbn,
    ]);
    const facts = {
      entity: stored!.document,
      statusCode: '91',
      typeCode: 'Sole_Trader',
      sourceRegisterUniqueId: null,
      endedNames: [],
    };
    expect(statusFollowsType(facts, { todayMs: Date.now(), places: nzPlaces() })).toEqual([]);
  });
});

describe('one transaction', () => {
  it('a failed change event write leaves the entity, its history and its events as they were', async () => {
    const pool = t.gateway.runtime.environments.sandbox.pool;
    await pool.query(`CREATE FUNCTION nzbn_test_refuse() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE EXCEPTION 'refused for the test'; END $$`);
    await pool.query(`CREATE TRIGGER refuse_events BEFORE INSERT ON nzbn_change_events
      FOR EACH ROW WHEN (NEW.new_value::text LIKE '%doomed.example%') EXECUTE FUNCTION nzbn_test_refuse()`);
    const before = await read();
    const counts = async () =>
      (
        await sql<{ n: number }>(
          `SELECT (SELECT count(*) FROM nzbn_change_events WHERE nzbn = $1) + (SELECT count(*) FROM nzbn_entity_versions WHERE nzbn = $1)
           + (SELECT count(*) FROM nzbn_entity_history WHERE nzbn = $1) AS n`,
          [E],
        )
      )[0]!.n;
    const was = await counts();
    const response = await t.call('POST', `/entities/${E}/websites`, {
      token: t.owner.token,
      payload: [{ url: 'https://doomed.example' }],
    });
    expect(response.statusCode).toBe(500);
    expect(response.json().errorDescription).not.toContain('refused for the test');
    expect((await read()).etag).toBe(before.etag);
    expect(await counts()).toBe(was);
    await pool.query('DROP TRIGGER refuse_events ON nzbn_change_events');
    const ok = await t.call('POST', `/entities/${E}/websites`, {
      token: t.owner.token,
      payload: [{ url: 'https://doomed.example' }],
    });
    expect(ok.statusCode).toBe(200);
    expect((await events(E)).at(-1)).toMatchObject({ change_event_type: 'WEBSITE' });
  });
});
