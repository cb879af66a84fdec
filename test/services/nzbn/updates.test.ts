import type { QueryResultRow } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('POST to the Primary Business Data lists', () => {
  it.each(LISTS)(
    '%s: adds the item, moves lastUpdatedDate and the ETag, records the change',
    async (path, body, type, key) => {
      const before = await read();
      const eventsBefore = (await events(E)).length;
      const response = await t.call('POST', `/entities/${E}/${path}`, {
        token: t.owner.token,
        payload: body,
      });
      expect(response.statusCode, response.body).toBe(201);
      api.conforms('POST', `/entities/{nzbn}/${path}`, response);
      const item = response.json();
      expect(item.uniqueIdentifier).toMatch(/^\d+$/);
      const after = await read();
      expect(after.etag).not.toBe(before.etag);
      expect(response.headers.etag).toBe(after.etag);
      expect(after.entity.lastUpdatedDate).not.toBe(before.entity.lastUpdatedDate);
      const list = key === 'addresses' ? after.entity.addresses.addressList : after.entity[key];
      expect(list).toContainEqual(item);
      const recorded = await events(E);
      expect(recorded).toHaveLength(eventsBefore + 1);
      expect(recorded.at(-1)).toMatchObject({ change_event_type: type, new_value: item });
      const versions = await sql('SELECT 1 FROM nzbn_entity_versions WHERE nzbn = $1', [E]);
      expect(versions.length).toBeGreaterThan(0);
    },
  );

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
    const history = (await t.call('GET', `/entities/${E}/history/addresses`)).json();
    expect(history).toContainEqual({ ...first, endDate: second.startDate });
  });

  it('bad input is 400 naming the field, and nothing is written', async () => {
    const before = await read();
    const cases: [string, unknown, string][] = [
      ['gst-numbers', { gstNumber: '123456789' }, 'gstNumber'],
      ['payment-bank-accounts', { bankAccountNumber: '01-0902-0068388-00' }, 'bankAccountNumber'],
      ['industry-classifications', { classificationCode: 'Z999999' }, 'classificationCode'],
      ['phone-numbers', { phoneNumber: 'call me' }, 'phoneNumber'],
      ['phone-numbers', { phoneNumber: '5551234', phonePurpose: 'Pager' }, 'phonePurpose'],
      ['addresses', { addressType: 'HOME', address1: 'x' }, 'addressType'],
      ['addresses', { addressType: 'POSTAL', address1: 'x', startDate: '24/03/2009' }, 'startDate'],
      ['trading-areas', { tradingArea: 'Mars' }, 'tradingArea'],
      ['email-addresses', {}, 'emailAddress'],
      [
        'business-ethnicity-identifiers',
        { ethnicity: 'MAORI', identifyingFactors: [{ identifyingFactor: 'OTHER_PLEASE_SPECIFY' }] },
        'identifyingFactors.0.identifyingFactorOtherDescription',
      ],
    ];
    for (const [path, body, field] of cases) {
      const response = await t.call('POST', `/entities/${E}/${path}`, {
        token: t.owner.token,
        payload: body,
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
      payload: { url: 'https://stale.example' },
    });
    expect(stale.statusCode).toBe(412);
    api.conforms('POST', '/entities/{nzbn}/websites', stale);
    expect((await events(E)).length).toBe(count);
    const current = await t.call('POST', `/entities/${E}/websites`, {
      token: t.owner.token,
      headers: { 'if-match': etag },
      payload: { url: 'https://current.example' },
    });
    expect(current.statusCode).toBe(201);
    const publicEtag = String((await t.call('GET', `/entities/${E}`)).headers.etag);
    const viaPublic = await t.call('PUT', `/entities/${E}/australian-business-number`, {
      token: t.owner.token,
      headers: { 'if-match': publicEtag },
      payload: { australianBusinessNumber: '51 824 753 556' },
    });
    expect(viaPublic.statusCode).toBe(200);
    const again = await t.call('PUT', `/entities/${E}/australian-business-number`, {
      token: t.owner.token,
      headers: { 'if-match': etag },
      payload: { australianBusinessNumber: null },
    });
    expect(again.statusCode).toBe(412);
  });
});

describe('replace operations and status requests', () => {
  it('PUT australian-business-number checks the ABN', async () => {
    const bad = await t.call('PUT', `/entities/${E}/australian-business-number`, {
      token: t.owner.token,
      payload: { australianBusinessNumber: '51824753557' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().list[0].field).toBe('australianBusinessNumber');
    const good = await t.call('PUT', `/entities/${E}/australian-business-number`, {
      token: t.owner.token,
      payload: { australianBusinessNumber: '51824753556' },
    });
    expect(good.json()).toEqual({ australianBusinessNumber: '51824753556' });
    expect((await events(E)).at(-1)).toMatchObject({ change_event_type: 'AUSTRALIANBUSINESSNUMBER' });
  });

  it('PUT roles appoints and ends directors; each change records the whole director', async () => {
    const { entity } = await read();
    const kept = entity.roles.filter((r: { roleStatus: string }) => r.roleStatus === 'ACTIVE');
    const ended = kept.find((r: { roleType: string }) => r.roleType === 'Director');
    const body = [
      ...kept
        .filter((r: unknown) => r !== ended)
        .map(
          (r: { uniqueIdentifier: string; roleType: string; rolePerson: unknown; roleEntity: unknown }) => ({
            uniqueIdentifier: r.uniqueIdentifier,
            roleType: r.roleType,
            rolePerson: r.rolePerson,
            roleEntity: r.roleEntity,
          }),
        ),
      {
        roleType: 'Director',
        rolePerson: { firstName: 'Aroha', lastName: 'Ngata' },
        startDate: '2024-02-01',
      },
    ];
    const count = (await events(E)).length;
    const response = await t.call('PUT', `/entities/${E}/roles`, { token: t.owner.token, payload: body });
    expect(response.statusCode, response.body).toBe(200);
    api.conforms('PUT', '/entities/{nzbn}/roles', response);
    const roles = response.json();
    const appointed = roles.find(
      (r: { rolePerson: { lastName: string } | null }) => r.rolePerson?.lastName === 'Ngata',
    );
    expect(appointed).toMatchObject({
      roleType: 'Director',
      roleStatus: 'ACTIVE',
      startDate: '2024-02-01T00:00:00.000+1300',
    });
    const recorded = (await events(E)).slice(count);
    expect(recorded).toContainEqual({
      change_event_type: 'ROLES_DIRECTOR',
      new_value: appointed,
      is_private: false,
    });
    if (ended) {
      const after = roles.find(
        (r: { uniqueIdentifier: string }) => r.uniqueIdentifier === ended.uniqueIdentifier,
      );
      expect(after).toMatchObject({ roleStatus: 'INACTIVE', endDate: expect.any(String) });
      expect(recorded).toContainEqual({
        change_event_type: 'ROLES_DIRECTOR',
        new_value: after,
        is_private: false,
      });
    }
    const unknown = await t.call('PUT', `/entities/${E}/roles`, {
      token: t.owner.token,
      payload: [
        { uniqueIdentifier: '42', roleType: 'Director', rolePerson: { firstName: 'A', lastName: 'B' } },
      ],
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().list[0].field).toBe('0.uniqueIdentifier');
  });

  it('POST entity-statuses moves a sole trader between statuses and keeps the periods', async () => {
    const trader = FIXTURE.soleTrader;
    const company = await t.call('POST', `/entities/${E}/entity-statuses`, {
      token: t.owner.token,
      payload: { entityStatusCode: '90' },
    });
    expect(company.statusCode).toBe(400);
    const bad = await t.call('POST', `/entities/${trader}/entity-statuses`, {
      token: t.owner.token,
      payload: { entityStatusCode: '60' },
    });
    expect(bad.json().list[0]).toEqual({
      field: 'entityStatusCode',
      message: expect.stringContaining('must be 50'),
    });
    const inactive = await t.call('POST', `/entities/${trader}/entity-statuses`, {
      token: t.owner.token,
      payload: { entityStatusCode: 'Inactive' },
    });
    expect(inactive.statusCode, inactive.body).toBe(201);
    api.conforms('POST', '/entities/{nzbn}/entity-statuses', inactive);
    expect((await read(trader)).entity).toMatchObject({
      entityStatusCode: '90',
      entityStatusDescription: 'Inactive',
    });
    const periods = (await t.call('GET', `/entities/${trader}/history/entity-statuses`)).json();
    expect(periods.map((p: { entityStatusCode: string }) => p.entityStatusCode)).toEqual(['50', '90']);
    expect(periods[0].endDate).toBe(periods[1].startDate);
    expect((await events(trader)).at(-1)).toMatchObject({ change_event_type: 'ENTITY_STATUS' });
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
      payload: { url: 'https://doomed.example' },
    });
    expect(response.statusCode).toBe(500);
    expect(response.json().errorDescription).not.toContain('refused for the test');
    expect((await read()).etag).toBe(before.etag);
    expect(await counts()).toBe(was);
    await pool.query('DROP TRIGGER refuse_events ON nzbn_change_events');
    const ok = await t.call('POST', `/entities/${E}/websites`, {
      token: t.owner.token,
      payload: { url: 'https://doomed.example' },
    });
    expect(ok.statusCode).toBe(201);
    expect((await events(E)).at(-1)).toMatchObject({ change_event_type: 'WEBSITE' });
  });
});
