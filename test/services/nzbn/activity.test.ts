import type { QueryResultRow } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatNzDateTime } from '../../../src/platform/nz-time.ts';
import { statusChangeProblem } from '../../../src/services/nzbn/domain/changes.ts';
import {
  ENTITY_STATUS_CODES,
  ENTITY_TYPE_CODES,
  ENTITY_TYPES,
} from '../../../src/services/nzbn/domain/codes.ts';
import type { Entity } from '../../../src/services/nzbn/domain/schema.ts';
import {
  ACTIVITY_KINDS,
  type ActivityOptions,
  MAX_SLOTS_PER_RUN,
  planActivity,
  simulateActivity,
  statusTransitions,
} from '../../../src/services/nzbn/sandbox/activity.ts';
import { FIXTURE_CASES } from '../../../src/services/nzbn/sandbox/fixtures.ts';
import { type NzbnTest, nzbnTest } from './support/api.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T0 = Date.parse('2030-03-04T00:00:00.000Z');
const at = (ms: number) => new Date(ms);

describe('planActivity (pure)', () => {
  it('gives the same events however the clock walk is split', () => {
    const whole = planActivity(T0, T0 + 6 * HOUR, 30, 10_000);
    const parts = [0, 1, 2.5, 2.51, 4, 6].map((hours) => T0 + hours * HOUR);
    const split = parts.slice(1).flatMap((to, i) => planActivity(parts[i]!, to, 30, 10_000).events);
    const shape = (events: typeof split) => events.map((e) => [e.at, e.slot, e.index, e.kind]);
    expect(shape(split)).toEqual(shape(whole.events));
    expect(shape(planActivity(T0, T0 + 6 * HOUR, 30, 10_000).events)).toEqual(shape(whole.events));
    for (const [i, event] of whole.events.entries()) {
      expect(event.at).toBeGreaterThan(T0);
      if (i > 0) expect(event.at).toBeGreaterThan(whole.events[i - 1]!.at);
    }
  });

  it('draws about ratePerHour events an hour, none at rate 0, and depends on the key', () => {
    for (const rate of [6, 30, 600]) {
      const hours = 200;
      const { events } = planActivity(T0, T0 + hours * HOUR, rate, 1_000_000);
      expect(events.length / hours).toBeGreaterThan(rate * 0.9);
      expect(events.length / hours).toBeLessThan(rate * 1.1);
    }
    expect(planActivity(T0, T0 + 100 * HOUR, 0, 1_000_000).events).toEqual([]);
    const other = planActivity(T0, T0 + 6 * HOUR, 30, 10_000, (key) => ((key.length * 7919) % 1000) / 1000);
    const mine = planActivity(T0, T0 + 6 * HOUR, 30, 10_000);
    expect(other.events.map((e) => e.at)).not.toEqual(mine.events.map((e) => e.at));
  });

  it('caps a giant jump at the most recent events and never looks back more than a year', () => {
    const tenYears = 10 * 365 * 24 * HOUR;
    const capped = planActivity(T0, T0 + tenYears, 30, 2_000);
    expect(capped.events.length).toBeLessThanOrEqual(2_000);
    expect(capped.events.length).toBeGreaterThan(1_900);
    expect(capped.skippedSlots).toBeGreaterThan(tenYears / MINUTE - 2_000 * 10);
    expect(capped.events.at(-1)!.at).toBeGreaterThan(T0 + tenYears - 10 * HOUR);
    const slow = planActivity(T0, T0 + tenYears, 0.01, 2_000);
    expect(slow.skippedSlots).toBe(tenYears / MINUTE + 1 - MAX_SLOTS_PER_RUN);
  });

  it('moves statuses only as the register would', () => {
    for (const type of ENTITY_TYPE_CODES) {
      for (const status of ENTITY_STATUS_CODES) {
        for (const [target] of statusTransitions(type, status)) {
          expect(target).not.toBe(status);
          if (ENTITY_TYPES[type].sourceRegister === 'NZBN') {
            const entity = { entityTypeCode: type, entityStatusCode: status } as Entity;
            expect(statusChangeProblem(entity, target)).toBeNull();
          }
        }
        if (status === '80' || status === '91') expect(statusTransitions(type, status)).toEqual([]);
      }
    }
  });
});

describe('simulateActivity', () => {
  let t: NzbnTest;
  let twin: NzbnTest;
  let fixturesBefore: unknown[];
  const sqlOf =
    (test: () => NzbnTest) =>
    <T extends QueryResultRow>(text: string, values: unknown[] = []) =>
      test()
        .gateway.runtime.environments.sandbox.pool.query<T>(text, values)
        .then((r) => r.rows);
  const sql = sqlOf(() => t);
  const run = (test: NzbnTest, now: number, options: ActivityOptions = { ratePerHour: 30 }) =>
    simulateActivity(test.gateway.runtime.environments.sandbox.pool, at(now), options);
  const fixtureState = () =>
    sql('SELECT nzbn, version, etag, last_updated FROM nzbn_entities WHERE origin = $1 ORDER BY nzbn', [
      'fixture',
    ]);
  interface EventRow {
    id: string;
    nzbn: string;
    change_event_type: string;
    change_date: Date;
    new_value: Record<string, unknown>;
    entity_name: string;
  }
  const eventsSince = (test: NzbnTest, from: number) =>
    sqlOf(() => test)<EventRow>(
      `SELECT id::text, nzbn, change_event_type, change_date, new_value, entity_name
         FROM nzbn_change_events c WHERE change_date > $1 ORDER BY c.id`,
      [at(from)],
    );
  const read = async (nzbn: string) => {
    const response = await t.call('GET', `/entities/${nzbn}`, { token: t.owner.token });
    expect(response.statusCode, response.body).toBe(200);
    return { etag: String(response.headers.etag), entity: response.json() as Entity };
  };

  beforeAll(async () => {
    [t, twin] = await Promise.all([nzbnTest(), nzbnTest()]);
    fixturesBefore = await fixtureState();
  });
  afterAll(async () => {
    await Promise.all([t?.close(), twin?.close()]);
  });

  it('starts its cursor at the first run’s now, without simulating the past', async () => {
    for (const test of [t, twin]) {
      const first = await run(test, T0);
      expect(first).toMatchObject({ changes: 0, events: 0, until: at(T0) });
      expect((await eventsSince(test, 0)).length).toBe(0);
    }
  });

  it('an hour at rate 30 makes about 30 changes, the same ones every time, each written as the API writes it', async () => {
    // The twin walks first, so the entities it touches can be read on `t` before `t` walks.
    const twinResult = await run(twin, T0 + HOUR);
    const touched = [...new Set((await eventsSince(twin, T0)).map((e) => e.nzbn))];
    const before = new Map<string, { etag: string; entity: Entity }>();
    for (const nzbn of touched) {
      const existing = await sql('SELECT 1 FROM nzbn_entities WHERE nzbn = $1', [nzbn]);
      if (existing.length === 0) continue; // registered by the walk
      await t.grant(t.owner.userId, nzbn);
      before.set(nzbn, await read(nzbn));
    }

    const result = await run(t, T0 + HOUR);
    expect(result.changes).toBe(twinResult.changes);
    expect(result.byKind).toEqual(twinResult.byKind);
    expect(result.until).toEqual(at(T0 + HOUR));
    expect(result.changes).toBeGreaterThanOrEqual(15);
    expect(result.changes).toBeLessThanOrEqual(50);
    expect(result.changes).toBeLessThanOrEqual(result.events);
    const events = await eventsSince(t, T0);
    const strip = (rows: EventRow[]) => rows.map(({ id: _id, ...row }) => row);
    expect(strip(events)).toEqual(strip(await eventsSince(twin, T0)));
    expect(events).toHaveLength(result.changes);

    // The change event search lists every one (each change's events nested, as published).
    type Listed = { nzbn: string; changeDateTime: string; items: { changeEventType: string }[] };
    const listed: { nzbn: string; changeEventType: string; changeDate: string }[] = [];
    for (let page = 0; ; page++) {
      const response = await t.call(
        'GET',
        `/entities/changes?change-event-type=ALL&date-time-from=${at(T0 + 1).toISOString()}&date-time-to=${at(T0 + HOUR).toISOString()}&page-size=50&page=${page}`,
      );
      expect(response.statusCode, response.body).toBe(200);
      const items: Listed[] = response.json().items;
      for (const change of items) {
        for (const event of change.items) {
          listed.push({
            nzbn: change.nzbn,
            changeEventType: event.changeEventType,
            changeDate: change.changeDateTime,
          });
        }
      }
      if (items.length < 50) break;
    }
    expect(listed.map((item) => [item.nzbn, item.changeEventType, item.changeDate])).toEqual(
      events.map((e) => [e.nzbn, e.change_event_type, formatNzDateTime(e.change_date.getTime())]),
    );

    // Each touched entity: a new ETag, lastUpdatedDate at its last change, the old version kept.
    const last = new Map(events.map((e) => [e.nzbn, e]));
    for (const [nzbn, lastEvent] of last) {
      await t.grant(t.owner.userId, nzbn);
      const now = await read(nzbn);
      expect(now.entity.lastUpdatedDate).toBe(formatNzDateTime(lastEvent.change_date.getTime()));
      expect(now.entity.entityName).toBe(lastEvent.entity_name);
      const previous = before.get(nzbn);
      if (previous) {
        expect(now.etag).not.toBe(previous.etag);
        const versions = await sql('SELECT version FROM nzbn_entity_versions WHERE nzbn = $1', [nzbn]);
        expect(versions.length).toBeGreaterThan(0);
      }
    }

    // And each kind leaves what its API operation leaves.
    for (const event of events) {
      const date = formatNzDateTime(event.change_date.getTime());
      const value = event.new_value;
      const isLast = last.get(event.nzbn) === event;
      switch (event.change_event_type) {
        case 'NEW': {
          const registered = await read(event.nzbn);
          expect(registered.entity.registrationDate).toBe(date);
          expect(['Sole_Trader', 'Partnership', 'Trading_Trust']).toContain(registered.entity.entityTypeCode);
          expect(event.nzbn).toMatch(/^94297\d{8}$/); // the registration range, as POST /entities
          if (isLast) expect(registered.entity).toEqual(value);
          break;
        }
        case 'ENTITY_NAME': {
          const names = (await t.call('GET', `/entities/${event.nzbn}/history/entity-names`)).json();
          const index = names.findIndex((n: { startDate: string }) => n.startDate === date);
          expect(index).toBeGreaterThan(0);
          expect(names[index]).toMatchObject({ entityName: value.entityName });
          expect(names[index - 1].endDate).toBe(date);
          const search = await t.call(
            'GET',
            `/entities?search-term=${encodeURIComponent(names[index - 1].entityName.split(' ').slice(0, 3).join(' '))}&page-size=50`,
          );
          expect(search.json().items.map((item: { nzbn: string }) => item.nzbn)).toContain(event.nzbn);
          break;
        }
        case 'ENTITY_STATUS': {
          const statuses = (await t.call('GET', `/entities/${event.nzbn}/history/entity-statuses`)).json();
          const index = statuses.findIndex((s: { startDate: string }) => s.startDate === date);
          expect(index).toBeGreaterThan(0);
          expect(statuses[index].entityStatusCode).toBe(value.entityStatusCode);
          expect(statuses[index - 1].endDate).toBe(date);
          break;
        }
        case 'ADDRESS': {
          const history = (
            await t.call('GET', `/entities/${event.nzbn}/history/addresses?address-type=ALL`, {
              token: t.owner.token,
            })
          ).json().addressList;
          expect(history).toContainEqual(
            expect.objectContaining({ uniqueIdentifier: value.uniqueIdentifier, startDate: date }),
          );
          break;
        }
        case 'ROLES_DIRECTOR': {
          expect(value.roleType).toBe('Director');
          const roles = (
            await t.call('GET', `/entities/${event.nzbn}/roles`, { token: t.owner.token })
          ).json();
          const role = roles.find(
            (r: { uniqueIdentifier: string }) => r.uniqueIdentifier === value.uniqueIdentifier,
          );
          expect(role).toBeDefined();
          if (isLast) expect(role).toEqual(value);
          const { entity } = await read(event.nzbn);
          expect(ENTITY_TYPES[entity.entityTypeCode].kind).toBe('company');
          break;
        }
        default:
          throw new Error(`unexpected change event ${event.change_event_type}`);
      }
    }
  });

  it('a second run with the same now changes nothing', async () => {
    const again = await run(t, T0 + HOUR);
    expect(again).toMatchObject({ changes: 0, events: 0, until: at(T0 + HOUR) });
  });

  it('makes every kind of change over a long enough walk, touching only generated and its own entities', async () => {
    const totals = Object.fromEntries(ACTIVITY_KINDS.map((kind) => [kind, 0]));
    let total = 0;
    for (let hour = 2; hour <= 13; hour++) {
      const result = await run(t, T0 + hour * HOUR, { ratePerHour: 60 });
      for (const kind of ACTIVITY_KINDS) totals[kind]! += result.byKind[kind];
      total += result.changes;
    }
    for (const kind of ACTIVITY_KINDS) expect(totals[kind], kind).toBeGreaterThan(0);
    expect(total).toBeGreaterThan(12 * 60 * 0.7);
    expect(total).toBeLessThan(12 * 60 * 1.3);
    const origins = await sql<{ origin: string; simulated: boolean; count: number }>(
      `SELECT e.origin, s.nzbn IS NOT NULL AS simulated, count(DISTINCT e.nzbn)::int AS count
         FROM nzbn_change_events c JOIN nzbn_entities e USING (nzbn)
         LEFT JOIN nzbn_sandbox_activity_entities s USING (nzbn)
        WHERE c.change_date > $1 GROUP BY 1, 2 ORDER BY 1, 2`,
      [at(T0)],
    );
    expect(origins.map((row) => [row.origin, row.simulated])).toEqual([
      ['generated', false],
      ['registered', true],
    ]);
  });

  it('keeps a company’s insolvencies with its practitioners: one appointed commences one, one ended is vacated', async () => {
    const rows = await sql<{ document: Entity }>(
      `SELECT e.document FROM nzbn_entities e
        WHERE e.document IS NOT NULL AND e.type_code IN ('LTD', 'ULTD', 'COOP')
          AND e.nzbn IN (SELECT nzbn FROM nzbn_change_events WHERE change_event_type = 'ENTITY_STATUS' AND change_date > $1)`,
      [at(T0)],
    );
    const practitionerOf: Record<string, string> = {
      Liquidation: 'Liquidator',
      Receivership: 'Receiver',
      'Voluntary Administration': 'Administrator',
      'Statutory Management': 'Administrator',
    };
    let commenced = 0;
    let vacated = 0;
    for (const { document: entity } of rows) {
      const insolvencies = entity['company-details']!.insolvencies;
      const open = insolvencies
        .flatMap((insolvency) =>
          insolvency.insolvencyAppointee
            .filter((appointee) => appointee.vacationDate === null)
            .map((a) => `${practitionerOf[insolvency.insolvencyType]} ${a.firstName} ${a.lastName}`),
        )
        .sort();
      const practitioners = entity.roles
        .filter(
          (role) => role.roleStatus === 'ACTIVE' && Object.values(practitionerOf).includes(role.roleType),
        )
        .map((role) => `${role.roleType} ${role.rolePerson!.firstName} ${role.rolePerson!.lastName}`)
        .sort();
      expect(open, entity.nzbn).toEqual(practitioners);
      const since = (text: string | null) => text !== null && Date.parse(text) > T0;
      commenced += insolvencies.filter((insolvency) => since(insolvency.commenced)).length;
      vacated += insolvencies.filter((i) => i.insolvencyAppointee.some((a) => since(a.vacationDate))).length;
    }
    expect(commenced).toBeGreaterThan(0);
    expect(vacated).toBeGreaterThan(0);
  });

  it('makes nothing at rate 0, and follows a clock moved back', async () => {
    const off = await run(t, T0 + 20 * HOUR, { ratePerHour: 0 });
    expect(off).toMatchObject({ changes: 0, events: 0, until: at(T0 + 20 * HOUR) });
    const back = await run(t, T0 + 19 * HOUR);
    expect(back).toMatchObject({ changes: 0, until: at(T0 + 19 * HOUR) });
    const forward = await run(t, T0 + 19 * HOUR + 10 * MINUTE, { ratePerHour: 600 });
    expect(forward.changes).toBeGreaterThan(50);
    expect(forward.changes).toBeLessThan(150);
  });

  it('lets one of two concurrent runs do the work', async () => {
    const now = T0 + 20 * HOUR;
    const [a, b] = await Promise.all([run(t, now), run(t, now)]);
    expect(a.changes === 0 || b.changes === 0).toBe(true);
    const done = a.changes + b.changes;
    expect(done).toBe((await eventsSince(t, T0 + 19 * HOUR + 10 * MINUTE)).length);
  });

  it('caps a giant clock jump, skips the older minutes and moves the cursor to now', async () => {
    const now = T0 + 5 * 365 * 24 * HOUR;
    const lines: string[] = [];
    const result = await run(t, now, {
      ratePerHour: 30,
      maxEventsPerRun: 40,
      log: (line) => lines.push(line),
    });
    expect(result.events).toBeLessThanOrEqual(40);
    expect(result.changes).toBeGreaterThan(20);
    // From the cursor (20 hours past T0) to now, less the few minutes simulated.
    expect(result.skippedSlots).toBeGreaterThan((now - T0) / MINUTE - 20 * 60 - 200);
    expect(result.until).toEqual(at(now));
    expect(lines.join('\n')).toMatch(/minutes of the sandbox clock skipped/);
    const made = await eventsSince(t, T0 + 21 * HOUR);
    expect(made).toHaveLength(result.changes);
    for (const event of made) expect(event.change_date.getTime()).toBeGreaterThan(now - 6 * HOUR);
    expect(await run(t, now)).toMatchObject({ changes: 0 });
  });

  it('never touches the fixed test cases', async () => {
    expect(await fixtureState()).toEqual(fixturesBefore);
    const fixtures = FIXTURE_CASES.map((fixture) => fixture.nzbn);
    const touched = await sql('SELECT 1 FROM nzbn_change_events WHERE nzbn = ANY($1)', [fixtures]);
    expect(touched).toEqual([]);
    const company = await t.call('GET', `/entities/${fixtures[0]}`);
    expect(company.json().lastUpdatedDate).not.toMatch(/^20(2[6-9]|3)/);
  });
});
