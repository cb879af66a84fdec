import type { QueryResultRow } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';

let t: NzbnTest;
const sql = <T extends QueryResultRow>(text: string, values: unknown[] = []) =>
  t.gateway.runtime.environments.sandbox.pool.query<T>(text, values).then((r) => r.rows);

// Change events written straight into the table, far from the seed's own dates, so the period filter
// isolates them; one real change through the API checks the whole path.
const AT = (day: number) => `2031-0${day}-01T00:00:00.000Z`;
beforeAll(async () => {
  t = await nzbnTest();
  await t.grant(t.owner.userId, FIXTURE.soleTrader);
  const rows: [string, string, string, string, string, unknown, boolean][] = [
    [FIXTURE.company, 'ALPHA LIMITED', 'LTD', 'NEW', AT(1), { entityName: 'ALPHA LIMITED' }, false],
    [FIXTURE.company, 'ALPHA LIMITED', 'LTD', 'ENTITY_NAME', AT(2), { entityName: 'ALPHA LIMITED' }, false],
    [FIXTURE.soleTrader, 'Bea Trader', 'Sole_Trader', 'ROLES_DIRECTOR', AT(3), { firstName: 'Bea' }, false],
    [FIXTURE.soleTrader, 'Bea Trader', 'Sole_Trader', 'PAYMENTBANKACCOUNT', AT(4), { secret: 1 }, true],
    ['9429000009999', 'Council', 'GovtLocal', 'ENTITY_STATUS', AT(5), { entityStatusCode: '50' }, false],
  ];
  for (const row of rows) {
    await sql(
      `INSERT INTO nzbn_change_events
         (nzbn, entity_name, entity_type_code, change_event_type, change_date, new_value, is_private)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [...row.slice(0, 5), JSON.stringify(row[5]), row[6]],
    );
  }
});
afterAll(() => t?.close());

const PERIOD = `date-time-from=${AT(1)}&date-time-to=${AT(6)}`;
const search = (query: string) => t.call('GET', `/entities/changes?${query}`);
/** The change event types of a page, in order: each change's events are nested (NzbnChange.items). */
const types = (body: { items: { items: { changeEventType: string }[] }[] }) =>
  body.items.flatMap((change) => change.items.map((event) => event.changeEventType));

describe('GET /entities/changes', () => {
  it('is not shadowed by /entities/{nzbn} and answers the published NzbnChange items', async () => {
    const response = await search(`change-event-type=ENTITY_NAME&${PERIOD}`);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    // Ordered by the change's date when no sort-by is given (the published sort-by names no such order).
    expect(body).toMatchObject({ page: 0, pageSize: 10, totalItems: 1, sortBy: null, sortOrder: 'ASC' });
    const entity = `http://127.0.0.1:8080/sandbox/nzbn/v5/entities/${FIXTURE.company}`;
    expect(body.items[0]).toEqual({
      nzbn: FIXTURE.company,
      entityName: 'ALPHA LIMITED',
      changeDateTime: '2031-02-01T13:00:00.000+1300',
      items: [
        {
          changeEventType: 'ENTITY_NAME',
          newValue: JSON.stringify({ entityName: 'ALPHA LIMITED' }),
          resourceLink: `${entity}/history/entity-names`,
          link: { rel: 'entity', href: entity, methods: ['GET'] },
        },
      ],
    });
  });

  it('nests the events of one change (one entity, one instant) in one item, in the order recorded', async () => {
    for (const type of ['PHONENUMBER', 'EMAILADDRESS']) {
      await sql(
        `INSERT INTO nzbn_change_events
           (nzbn, entity_name, entity_type_code, change_event_type, change_date, new_value, is_private)
         VALUES ($1, 'ALPHA LIMITED', 'LTD', $2, '2031-07-01T00:00:00.000Z', '{"x":1}', false)`,
        [FIXTURE.company, type],
      );
    }
    const body = (
      await search(
        'change-event-type=PHONENUMBER,EMAILADDRESS&date-time-from=2031-07-01&date-time-to=2031-07-02',
      )
    ).json();
    expect(body.totalItems).toBe(1);
    expect(body.items).toHaveLength(1);
    expect(types(body)).toEqual(['PHONENUMBER', 'EMAILADDRESS']);
  });

  it('ALL, ENTITY (all but NEW) and lists of types; private new values are withheld', async () => {
    expect(types((await search(`change-event-type=ALL&${PERIOD}`)).json())).toEqual([
      'NEW',
      'ENTITY_NAME',
      'ROLES_DIRECTOR',
      'PAYMENTBANKACCOUNT',
    ]);
    // The council's ENTITY_STATUS (public sector) is left out even when its type is asked for.
    expect(types((await search(`change-event-type=ENTITY_STATUS&${PERIOD}`)).json())).toEqual([]);
    expect(types((await search(`change-event-type=ENTITY&${PERIOD}`)).json())).not.toContain('NEW');
    const listed = (await search(`change-event-type=NEW,PAYMENTBANKACCOUNT&${PERIOD}`)).json();
    expect(types(listed)).toEqual(['NEW', 'PAYMENTBANKACCOUNT']);
    expect(listed.items[1].items[0].newValue).toBeNull();
  });

  it('filters by entity type and accepts start-date/end-date for the period', async () => {
    const body = (
      await search(`change-event-type=ALL&entity-type=SoleTrader&start-date=2031-03-01&end-date=2031-03-31`)
    ).json();
    expect(body.items.map((i: { nzbn: string }) => i.nzbn)).toEqual([FIXTURE.soleTrader]);
    expect(types(body)).toEqual(['ROLES_DIRECTOR']);
  });

  it('takes both spellings of the period at once when they agree, and a + sent unencoded', async () => {
    const both = await search(
      'change-event-type=ALL&entity-type=SoleTrader&date-time-from=2031-03-01&start-date=2031-03-01&end-date=2031-03-31',
    );
    expect(both.statusCode, both.body).toBe(200);
    expect(types(both.json())).toEqual(['ROLES_DIRECTOR']);
    // `+1300` unencoded arrives as " 1300": 2031-03-01T13:00+13:00 is the start of 1 March UTC …
    const plus = await search(
      'change-event-type=ALL&entity-type=SoleTrader&date-time-from=2031-03-01T13:00:00.000+1300&date-time-to=2031-03-01T13:00:00.000+1300',
    );
    expect(plus.statusCode, plus.body).toBe(200);
    expect(types(plus.json())).toEqual(['ROLES_DIRECTOR']);
    // … and one minute later it is past the event.
    const later = await search(
      'change-event-type=ALL&entity-type=SoleTrader&date-time-from=2031-03-01T13:01:00.000+1300&date-time-to=2031-03-02T00:00:00.000+1300',
    );
    expect(types(later.json())).toEqual([]);
    // A date and a time separated by a space still read as sent: 12:59 on 1 March, New Zealand time, is a minute before the event.
    const spaced = await search(
      'change-event-type=ALL&entity-type=SoleTrader&date-time-from=2031-03-01%2012:59&date-time-to=2031-03-02',
    );
    expect(spaced.statusCode, spaced.body).toBe(200);
    expect(types(spaced.json())).toEqual(['ROLES_DIRECTOR']);
  });

  it('sorts and pages with next/prev links that keep the filters', async () => {
    // The council's event (public sector: no change feed) is never among them.
    const first = (await search(`change-event-type=ALL&${PERIOD}&sort-order=desc&page-size=2`)).json();
    expect(first.totalItems).toBe(4);
    expect(types(first)).toEqual(['PAYMENTBANKACCOUNT', 'ROLES_DIRECTOR']);
    const next = first.links.find((l: { rel: string }) => l.rel === 'next').href as string;
    expect(next).toContain('change-event-type=ALL');
    const second = (await t.call('GET', new URL(next).pathname + new URL(next).search)).json();
    expect(types(second)).toEqual(['ENTITY_NAME', 'NEW']);
    expect(second.links.map((l: { rel: string }) => l.rel)).toEqual(['self', 'prev']);
    // The published sort-by values (entityName before they were published).
    const byName = (await search(`change-event-type=ALL&${PERIOD}&sort-by=ENTITY_NAME`)).json();
    expect(byName.items[0].entityName).toBe('ALPHA LIMITED');
    expect(byName.sortBy).toBe('ENTITY_NAME');
    // Parameter values in any case, as clients differ.
    const lower = (
      await search(`change-event-type=all&${PERIOD}&sort-by=entity_name&sort-order=desc`)
    ).json();
    expect(lower.items[0].entityName).toBe('Bea Trader');
    for (const order of ['NZBN', 'ENTITY_STATUS', 'ENTITY_TYPE_CODE']) {
      const sorted = await search(`change-event-type=ALL&${PERIOD}&sort-by=${order}`);
      expect(sorted.statusCode, sorted.body).toBe(200);
      expect(sorted.json().totalItems, order).toBe(4);
    }
  });

  it('a change made through the API is found', async () => {
    const changed = await t.call('POST', `/entities/${FIXTURE.soleTrader}/statuses`, {
      token: t.owner.token,
      payload: { entityStatusCode: 'Inactive' },
    });
    expect(changed.statusCode, changed.body).toBe(204);
    const body = (await search('change-event-type=ENTITY_STATUS&entity-type=Sole_Trader')).json();
    expect(body.items.map((i: { nzbn: string }) => i.nzbn)).toContain(FIXTURE.soleTrader);
  });

  it.each([
    ['', 'change-event-type'],
    ['change-event-type=SOMETHING', 'change-event-type'],
    ['change-event-type=ALL&entity-type=GovtLocal', 'entity-type'],
    ['change-event-type=ALL&entity-type=G', 'entity-type'],
    ['change-event-type=ALL&entity-type=Nope', 'entity-type'],
    ['change-event-type=ALL&start-date=yesterday', 'start-date'],
    ['change-event-type=ALL&date-time-from=2031-01-01&start-date=2031-01-02', 'start-date'],
    ['change-event-type=ALL&date-time-to=2031-01-01&end-date=nope', 'end-date'],
    ['change-event-type=ALL&start-date=2031-02-01&end-date=2031-01-01', 'date-time-to'],
    ['change-event-type=ALL&sort-by=colour', 'sort-by'],
    ['change-event-type=ALL&sort-by=changeDate', 'sort-by'],
    ['change-event-type=ALL&sort-order=sideways', 'sort-order'],
  ])('400 for %s naming %s', async (query, field) => {
    const response = await search(query);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().list[0].field).toBe(field);
  });
});
