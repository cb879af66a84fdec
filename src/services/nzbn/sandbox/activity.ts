/**
 * Simulated register activity for the sandbox: new registrations and name, address, director and
 * status changes at a configurable rate on the sandbox clock, so watchlists and the change event search
 * have something to report.
 *
 * - **Slots.** Time is cut into minutes of the sandbox clock. How many events a minute holds (Poisson
 *   with mean `ratePerHour / 60`), when in the minute they happen, what kind each is, which entity it
 *   touches and what it changes all come from keyed randomness of the minute (`keyedUniform`, then a
 *   seeded sfc32 stream per event), never from Math.random: the same walk of the clock over the same
 *   register makes the same changes, whether it is walked in one step or many.
 * - **Cursor.** `nzbn_sandbox_activity.simulated_until` is the end of the interval simulated so far. A
 *   run simulates the events after it up to `now`. The first run only sets it to `now` (no backfill of
 *   the past); a clock moved back moves it back without changes. Each change moves the cursor to its
 *   own instant in its own transaction, so a run that stops half-way neither repeats nor loses an event.
 * - **Cap.** One run makes at most `maxEventsPerRun` events (default 2,000) and looks back at most a
 *   year: after a jump of the clock the most recent events are simulated, the older minutes are
 *   skipped (counted in `skippedSlots` and logged), and the cursor still moves to `now`.
 * - **The same writes as the API.** Every change goes through `updateEntity` (or `registerEntity` for a
 *   registration) with the change builders the API's operations use (store/edits.ts): it keeps the
 *   replaced version, writes the history, moves `lastUpdatedDate` and the ETag and records the change
 *   event, all in one transaction, dated at the event's instant.
 * - **Which entities.** Generated entities (`origin = 'generated'`, found by generator index, so never
 *   a fixture) and the entities the simulator registered itself (`nzbn_sandbox_activity_entities`);
 *   never the fixed test cases, nor entities registered through the API. An entity changed after an
 *   event's instant (by a client, say) is left alone by that event.
 * - Changes, kinds: `NEW` (a sole trader, partnership or trust registered as POST /entities registers
 *   one), `ENTITY_NAME`, `ADDRESS`, `ROLES_DIRECTOR` (companies: a director appointed, resigning or
 *   moving house) and `ENTITY_STATUS` (transitions below). An event that finds no entity it fits after
 *   a few draws is dropped, so a run makes slightly fewer changes than events.
 */

import type pg from 'pg';
import { withTransaction } from '../../../platform/db/pool.ts';
import { RuleError } from '../../../platform/errors.ts';
import { keyedUniform as hmacUniform, type Random, seeded } from '../../../platform/random.ts';
import type { DivisionLetter } from '../domain/bic.ts';
import { bicCodesInDivision } from '../domain/bic.ts';
import { statusChangeProblem } from '../domain/changes.ts';
import {
  type AddressType,
  ENTITY_STATUSES,
  ENTITY_TYPES,
  type EntityStatusCode,
  type EntityTypeCode,
  isCompanyType,
  isEntityStatusCode,
  isEntityTypeCode,
} from '../domain/codes.ts';
import { formatNzDateTime } from '../domain/dates.ts';
import type { AddressLike } from '../domain/items.ts';
import { newEntity, type RegistrationLike, registrationIdentifiers } from '../domain/registration.ts';
import type { RoleLike } from '../domain/roles.ts';
import type { Entity, Role } from '../domain/schema.ts';
import { addressChange, entityNameChange, rolesChange, statusChange } from '../store/edits.ts';
import { registerEntity } from '../store/register.ts';
import { SANDBOX_SEED, sandboxGeography } from '../store/seed-rows.ts';
import { type Change, type UpdateTools, updateEntity } from '../store/update.ts';
import { type AddressKind, type AddressLines, generateNzAddress, pickArea } from './addresses.ts';
import { pafIdFor } from './build.ts';
import { businessEmail, domainFor, generateGstNumber, generateLandline, generateMobile } from './contacts.ts';
import type { Area, Geography } from './geography.ts';
import { generateEntityName, type NameContext } from './names.ts';
import { nzbnForIndex } from './numbers.ts';
import { generatePerson, generateRelative, type Person } from './people.ts';
import { divisionWeightsFor, typeGroup } from './profile.ts';

export interface ActivityOptions {
  /** Simulated changes per hour of the sandbox clock (on average); 0 simulates nothing. */
  ratePerHour: number;
  /** At most this many events per run (default 2,000); older minutes of a longer interval are skipped. */
  maxEventsPerRun?: number;
  /** Told when a run skips minutes because of the cap. */
  log?: (line: string) => void;
}

export interface ActivityResult {
  /** Changes made (each with its change event). */
  changes: number;
  /** The cursor after the run: everything up to here has been simulated (or skipped). */
  until: Date;
  /** Events drawn for the simulated minutes (an event that finds no fitting entity makes no change). */
  events: number;
  /** Minute slots left out by the cap on one run. */
  skippedSlots: number;
  /** Changes by kind. */
  byKind: Record<ActivityKind, number>;
  /** Another process was running the simulation: this run did nothing. */
  busy?: boolean;
}

export const ACTIVITY_KINDS = ['NEW', 'ENTITY_NAME', 'ADDRESS', 'ROLES_DIRECTOR', 'ENTITY_STATUS'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** The mix of simulated changes (ours: addresses and officers change most, names least). */
export const ACTIVITY_KIND_WEIGHTS: readonly (readonly [ActivityKind, number])[] = [
  ['NEW', 20],
  ['ENTITY_NAME', 10],
  ['ADDRESS', 30],
  ['ROLES_DIRECTOR', 22],
  ['ENTITY_STATUS', 18],
];

export const DEFAULT_MAX_EVENTS_PER_RUN = 2_000;
/** A run looks back at most a year of minutes, whatever the rate. */
export const MAX_SLOTS_PER_RUN = 366 * 24 * 60;
const MINUTE = 60_000;
/** Entities drawn for one event before it is dropped. */
const ATTEMPTS = 12;
/** Share of change events that go to an entity the simulator registered (when there are any). */
const SIMULATED_SHARE = 0.15;
const LOCK_NAME = 'rsg:nzbn:sandbox-activity';
const KEY_PREFIX = 'nzbn-sandbox-activity';

/** The default keyed randomness: the sandbox seed is the key, so every sandbox sees the same activity. */
export const defaultActivityKey = (key: string): number => hmacUniform(SANDBOX_SEED, key);

/**
 * Simulates the register's activity for the sandbox-clock interval since the last run, up to `now`.
 * Returns how many changes it made and the new cursor. Runs in one process at a time (a PostgreSQL
 * advisory lock; a second caller meanwhile gets `busy` and does nothing). For the sandbox database.
 */
export async function simulateActivity(
  pool: pg.Pool,
  now: Date,
  options: ActivityOptions,
  keyedUniform: (key: string) => number = defaultActivityKey,
): Promise<ActivityResult> {
  const rate = options.ratePerHour;
  const cap = options.maxEventsPerRun ?? DEFAULT_MAX_EVENTS_PER_RUN;
  if (!Number.isFinite(rate) || rate < 0) throw new RangeError(`ratePerHour must be ≥ 0, got ${rate}`);
  if (!Number.isInteger(cap) || cap < 0) throw new RangeError(`maxEventsPerRun must be an integer ≥ 0`);
  const result: ActivityResult = {
    changes: 0,
    until: now,
    events: 0,
    skippedSlots: 0,
    byKind: Object.fromEntries(ACTIVITY_KINDS.map((kind) => [kind, 0])) as Record<ActivityKind, number>,
  };
  // One transaction holds the run's lock and the cursor; each event commits in its own.
  return withTransaction(pool, async (lock) => {
    const locked = await lock.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked',
      [LOCK_NAME],
    );
    const cursor = await readCursor(lock);
    if (!locked.rows[0]!.locked) return { ...result, until: cursor ?? now, busy: true };
    if (cursor === undefined || cursor.getTime() >= now.getTime()) {
      // First run: start here, no backfill. A clock moved back: follow it, nothing to simulate.
      await setCursor(lock, now);
      return result;
    }
    const plan = planActivity(cursor.getTime(), now.getTime(), rate, cap, keyedUniform);
    result.events = plan.events.length;
    result.skippedSlots = plan.skippedSlots;
    if (plan.skippedSlots > 0) {
      options.log?.(
        `nzbn sandbox activity: ${plan.skippedSlots.toLocaleString('en-NZ')} minutes of the sandbox clock skipped ` +
          `(at most ${cap.toLocaleString('en-NZ')} events per run); simulated the last ${plan.events.length}`,
      );
    }
    if (plan.events.length > 0) {
      const state = await registerState(pool);
      for (const event of plan.events) {
        if (await runEvent(pool, event, state)) {
          result.changes++;
          result.byKind[event.kind]++;
        }
      }
    }
    await setCursor(lock, now);
    return result;
  });
}

async function readCursor(client: pg.PoolClient): Promise<Date | undefined> {
  const rows = await client.query<{ until: Date }>(
    'SELECT simulated_until AS until FROM nzbn_sandbox_activity WHERE id',
  );
  return rows.rows[0]?.until;
}

async function setCursor(client: pg.PoolClient, until: Date): Promise<void> {
  await client.query(
    `INSERT INTO nzbn_sandbox_activity (id, simulated_until) VALUES (true, $1)
     ON CONFLICT (id) DO UPDATE SET simulated_until = EXCLUDED.simulated_until`,
    [until],
  );
}

/** Moves the cursor to an event's instant, in the event's own transaction. */
async function advanceCursor(client: pg.PoolClient, at: number): Promise<void> {
  await client.query(
    'UPDATE nzbn_sandbox_activity SET simulated_until = $1 WHERE id AND simulated_until < $1',
    [new Date(at)],
  );
}

// ---------------------------------------------------------------------------------------------------
// Planning: pure, from the keyed randomness of each minute.

export interface PlannedEvent {
  /** The instant of the change (epoch ms). */
  at: number;
  /** The minute (epoch ms / 60,000) and the event's place in it. */
  slot: number;
  index: number;
  kind: ActivityKind;
  /** The event's own stream: which entity, what change. */
  random: Random;
}

export interface ActivityPlan {
  /** Oldest first. */
  events: PlannedEvent[];
  skippedSlots: number;
}

/**
 * The events after `from` up to and including `to` (epoch ms) at `ratePerHour`. When there are more
 * than `cap`, or the interval is longer than MAX_SLOTS_PER_RUN minutes, the most recent minutes are
 * kept and the older ones skipped (a minute is kept whole or not at all).
 */
export function planActivity(
  from: number,
  to: number,
  ratePerHour: number,
  cap: number,
  keyedUniform: (key: string) => number = defaultActivityKey,
): ActivityPlan {
  const newestFirst: PlannedEvent[] = [];
  if (ratePerHour <= 0 || to <= from) return { events: [], skippedSlots: 0 };
  const first = Math.floor(from / MINUTE);
  const last = Math.floor(to / MINUTE);
  const mean = ratePerHour / 60;
  for (let slot = last; slot >= first; slot--) {
    if (last - slot >= MAX_SLOTS_PER_RUN)
      return { events: newestFirst.reverse(), skippedSlots: slot - first + 1 };
    const events = slotEvents(slot, mean, keyedUniform).filter((event) => event.at > from && event.at <= to);
    if (newestFirst.length + events.length > cap) {
      return { events: newestFirst.reverse(), skippedSlots: slot - first + 1 };
    }
    for (let i = events.length - 1; i >= 0; i--) newestFirst.push(events[i]!);
  }
  return { events: newestFirst.reverse(), skippedSlots: 0 };
}

/** The events of one minute, in time order: always the same for the same minute, mean and key. */
export function slotEvents(
  slot: number,
  mean: number,
  keyedUniform: (key: string) => number,
): PlannedEvent[] {
  const u = keyedUniform(`${KEY_PREFIX}/${slot}`);
  const count = poisson(mean, u, () => keyedUniform(`${KEY_PREFIX}/${slot}/normal`));
  if (count === 0) return [];
  const slotSeed = Math.floor(u * 2 ** 32);
  const timing = seeded(KEY_PREFIX, 'timing', slot, slotSeed);
  // Whole seconds when they are enough to keep the events apart, as register timestamps are.
  const unit = count <= 60 ? 1000 : 1;
  const places = MINUTE / unit;
  const offsets = Array.from({ length: count }, () => Math.floor(timing.next() * places)).sort(
    (a, b) => a - b,
  );
  for (let i = 1; i < count; i++) offsets[i] = Math.max(offsets[i]!, offsets[i - 1]! + 1);
  for (let i = count - 1; i >= 0; i--) offsets[i] = Math.min(offsets[i]!, places - count + i);
  return offsets.map((offset, index) => {
    const random = seeded(KEY_PREFIX, 'event', slot, index, slotSeed);
    return {
      at: slot * MINUTE + offset * unit,
      slot,
      index,
      kind: random.weighted(ACTIVITY_KIND_WEIGHTS),
      random,
    };
  });
}

/** A Poisson count with mean `mean` from the uniform `u` (inverse CDF; normal approximation above 100). */
export function poisson(mean: number, u: number, second: () => number): number {
  if (mean <= 0) return 0;
  if (mean > 100) {
    const z = Math.sqrt(-2 * Math.log(1 - u)) * Math.cos(2 * Math.PI * second());
    return Math.max(0, Math.round(mean + Math.sqrt(mean) * z));
  }
  let k = 0;
  let p = Math.exp(-mean);
  let cdf = p;
  const limit = Math.ceil(mean * 10 + 50);
  while (u >= cdf && k < limit) {
    k++;
    p *= mean / k;
    cdf += p;
  }
  return k;
}

// ---------------------------------------------------------------------------------------------------
// Rules: which entities a kind of change fits, and the status transitions. Pure.

const STOPPED: ReadonlySet<string> = new Set(['80', '90', '91']);

type Weighted<T> = readonly (readonly [T, number])[];

/**
 * Where an entity's status may move in the simulation, weighted. Entities the register keeps itself
 * follow the status requests' rule (domain/changes.ts): 50 ↔ 90, either to 91 (final); public sector
 * bodies do not change. Companies: mostly removal, else liquidation, receivership or administration;
 * an insolvency ends back at registered or in liquidation, and liquidation ends in removal. Other
 * registers' entities (societies, trusts, limited partnerships, overseas companies) are removed.
 * Removed (80) is final here.
 */
export function statusTransitions(
  type: EntityTypeCode,
  status: EntityStatusCode,
): Weighted<EntityStatusCode> {
  const info = ENTITY_TYPES[type];
  if (info.publicSector) return [];
  if (info.sourceRegister === 'NZBN') {
    if (status === '50')
      return [
        ['90', 3],
        ['91', 2],
      ];
    if (status === '90')
      return [
        ['50', 1],
        ['91', 2],
      ];
    return [];
  }
  if (STOPPED.has(status)) return [];
  const filters = ENTITY_STATUSES[status].filters;
  if (filters.includes('InLiquidation')) return [['80', 1]];
  if (typeGroup(type) !== 'nzCompany') return status === '50' ? [['80', 1]] : [['50', 1]];
  switch (status) {
    case '50':
      return [
        ['80', 55],
        ['60', 30],
        ['70', 6],
        ['55', 6],
        ['72', 3],
      ];
    case '70':
      return [
        ['50', 2],
        ['61', 1],
      ];
    case '72':
      return [
        ['50', 1],
        ['63', 1],
      ];
    case '55':
      return [
        ['50', 2],
        ['62', 1],
      ];
    default:
      // In receivership and under administration (56, 57, 66): one of the two ends.
      return [
        ['70', 1],
        ['61', 1],
      ];
  }
}

/** Whether a change of `kind` fits an entity of this type and status. */
export function fits(
  kind: Exclude<ActivityKind, 'NEW'>,
  type: EntityTypeCode,
  status: EntityStatusCode,
): boolean {
  const info = ENTITY_TYPES[type];
  switch (kind) {
    case 'ENTITY_STATUS':
      return statusTransitions(type, status).length > 0;
    case 'ADDRESS':
      return !STOPPED.has(status);
    case 'ENTITY_NAME':
      // A sole trader's name is the person's; public bodies are named by statute.
      return !STOPPED.has(status) && type !== 'Sole_Trader' && !info.publicSector;
    case 'ROLES_DIRECTOR':
      return (
        isCompanyType(type) &&
        !STOPPED.has(status) &&
        !ENTITY_STATUSES[status].filters.includes('InLiquidation')
      );
  }
}

// ---------------------------------------------------------------------------------------------------
// Running events.

/** An event that does not fit the entity it drew (or the entity moved on): nothing is written. */
class Skip extends Error {}

interface RegisterState {
  /** Generated entities are indexes 0 … generated − 1 of the sandbox seed. */
  generated: number;
  /** Entities the simulator registered. */
  simulated: number;
  geography: Geography;
}

async function registerState(pool: pg.Pool): Promise<RegisterState> {
  const counts = await pool.query<{ generated: number; simulated: number }>(
    `SELECT (SELECT COALESCE(sum(entities), 0)::int FROM nzbn_seed_chunks WHERE seed = $1) AS generated,
            (SELECT count(*)::int FROM nzbn_sandbox_activity_entities) AS simulated`,
    [SANDBOX_SEED],
  );
  return { ...counts.rows[0]!, geography: sandboxGeography() };
}

async function runEvent(pool: pg.Pool, event: PlannedEvent, state: RegisterState): Promise<boolean> {
  try {
    if (event.kind === 'NEW') return await register(pool, event, state);
    const kind = event.kind;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const nzbn = await drawEntity(pool, event.random, state);
      if (nzbn === undefined) return false;
      const found = await pool.query<{ origin: string; type_code: string; status_code: string }>(
        'SELECT origin, type_code, status_code FROM nzbn_entities WHERE nzbn = $1',
        [nzbn],
      );
      const row = found.rows[0];
      // Never a fixed test case or an entity a client registered (drawEntity cannot give one; belt and braces).
      if (!row || (row.origin !== 'generated' && row.origin !== 'registered')) continue;
      if (!isEntityTypeCode(row.type_code) || !isEntityStatusCode(row.status_code)) continue;
      if (!fits(kind, row.type_code, row.status_code)) continue;
      try {
        const updated = await updateEntity(
          pool,
          nzbn,
          new Date(event.at),
          (stored) => {
            if (stored.lastUpdated.getTime() > event.at) throw new Skip('changed after the event');
          },
          async (entity, tools) => {
            if (
              !isEntityStatusCode(entity.entityStatusCode) ||
              !fits(kind, entity.entityTypeCode, entity.entityStatusCode)
            )
              throw new Skip('no longer fits');
            const change = await makeChange(kind, entity, tools, event.random, state.geography);
            await advanceCursor(tools.client, event.at);
            return change;
          },
        );
        if (updated) return true;
      } catch (error) {
        if (!(error instanceof Skip || error instanceof RuleError)) throw error;
      }
    }
    return false;
  } catch (error) {
    if (error instanceof Skip || error instanceof RuleError) return false;
    throw error;
  }
}

/** A generated entity by index, or now and then one the simulator registered. */
async function drawEntity(pool: pg.Pool, random: Random, state: RegisterState): Promise<string | undefined> {
  const fromSimulated = state.simulated > 0 && (state.generated === 0 || random.chance(SIMULATED_SHARE));
  if (fromSimulated) {
    const offset = random.int(0, state.simulated - 1);
    const rows = await pool.query<{ nzbn: string }>(
      'SELECT nzbn FROM nzbn_sandbox_activity_entities ORDER BY nzbn OFFSET $1 LIMIT 1',
      [offset],
    );
    return rows.rows[0]?.nzbn;
  }
  if (state.generated === 0) return undefined;
  return nzbnForIndex(random.int(0, state.generated - 1));
}

function makeChange(
  kind: Exclude<ActivityKind, 'NEW'>,
  entity: Entity,
  tools: UpdateTools,
  random: Random,
  geography: Geography,
): Promise<Change<unknown>> {
  switch (kind) {
    case 'ADDRESS':
      return addressChange(entity, moveAddress(entity, random, geography), tools);
    case 'ENTITY_NAME':
      return entityNameChange(entity, newName(entity, random, geography), tools);
    case 'ROLES_DIRECTOR':
      return directorChange(entity, tools, random, geography);
    case 'ENTITY_STATUS': {
      const type = entity.entityTypeCode;
      const target = random.weighted(statusTransitions(type, entity.entityStatusCode as EntityStatusCode));
      // Entities the register keeps itself move only as a status request may move them.
      if (ENTITY_TYPES[type].sourceRegister === 'NZBN' && statusChangeProblem(entity, target))
        throw new Skip('not a requestable status change');
      return statusChange(entity, target, undefined, tools);
    }
  }
}

const addressInput = (
  lines: AddressLines,
  addressType: AddressType | null,
  startDate?: string,
): AddressLike => ({
  addressType,
  careOf: lines.careOf,
  address1: lines.address1,
  address2: lines.address2,
  address3: lines.address3,
  address4: lines.address4,
  postCode: lines.postCode,
  countryCode: lines.countryCode,
  pafId: pafIdFor(lines),
  ...(startDate ? { startDate } : {}),
});

/** The business moves one of its New Zealand addresses (or gives one when it has none). */
function moveAddress(entity: Entity, random: Random, geography: Geography): AddressLike {
  const current = entity.addresses.addressList.filter(
    (address) => address.endDate === null && address.countryCode === 'NZ' && address.addressType !== null,
  );
  const group = typeGroup(entity.entityTypeCode);
  const fallback: AddressType = group === 'nzCompany' || group === 'otherRegister' ? 'REGISTERED' : 'OFFICE';
  const type = current.length > 0 ? random.pick(current).addressType! : fallback;
  const kind: AddressKind =
    type === 'POSTAL' || type === 'INVOICE'
      ? random.chance(0.5)
        ? 'postal'
        : 'street'
      : group === 'optIn' && random.chance(0.15)
        ? 'rural'
        : 'street';
  return addressInput(generateNzAddress(random, homeArea(entity, random, geography), kind), type);
}

function nameContext(
  random: Random,
  geography: Geography,
  type: EntityTypeCode,
  people: Person[],
): NameContext {
  const area = pickArea(random, geography);
  return {
    division: random.weighted(divisionWeightsFor(type)),
    place: area.suburb,
    town: area.district.town,
    district: area.district.name,
    region: area.region.shortName,
    people,
  };
}

/** A new legal name in the style of its register, for the entity's people and trade. */
function newName(entity: Entity, random: Random, geography: Geography): string {
  const type = entity.entityTypeCode;
  const people = entity.roles
    .filter((role) => role.roleStatus === 'ACTIVE' && role.rolePerson !== null)
    .map((role): Person => ({ ...role.rolePerson!, gender: 'male', origin: 'european' }));
  const context = nameContext(random, geography, type, people);
  const division = entity.industryClassifications[0]?.classificationCode[0] as DivisionLetter | undefined;
  for (let i = 0; i < 5; i++) {
    const name = generateEntityName(random, type, division ? { ...context, division } : context).legalName;
    if (name !== entity.entityName) return name;
  }
  throw new Skip('no new name');
}

const keepRole = (role: Role): RoleLike => ({
  uniqueIdentifier: role.uniqueIdentifier,
  roleType: role.roleType,
  rolePerson: role.rolePerson,
  roleEntity: role.roleEntity,
});

const personOf = (person: Person): NonNullable<RoleLike['rolePerson']> => ({
  title: person.title,
  firstName: person.firstName,
  middleNames: person.middleNames,
  lastName: person.lastName,
});

/** A person's residential address, mostly in the business's region. */
function homeAddress(entity: Entity, random: Random, geography: Geography): AddressLines {
  return generateNzAddress(
    random,
    homeArea(entity, random, geography),
    random.chance(0.08) ? 'rural' : 'street',
  );
}

/** Mostly an area in the region of the entity's first New Zealand address (its town is the last line). */
function homeArea(entity: Entity, random: Random, geography: Geography): Area {
  const address = entity.addresses.addressList.find((item) => item.countryCode === 'NZ');
  const town = address && [address.address4, address.address3, address.address2].find((line) => line);
  const near = town ? geography.areas.find((area) => area.district.town === town) : undefined;
  return near && random.chance(0.85)
    ? pickArea(random, geography, near.region.code)
    : pickArea(random, geography);
}

/**
 * A company's directors change: a director is appointed (a new person, or a shareholder joining the
 * board), one resigns (while others remain), or one moves house. Through PUT roles' rules.
 */
async function directorChange(
  entity: Entity,
  tools: UpdateTools,
  random: Random,
  geography: Geography,
): Promise<Change<unknown>> {
  const active = entity.roles.filter((role) => role.roleStatus === 'ACTIVE');
  const directors = active.filter((role) => role.roleType === 'Director');
  const choice = random.weighted([
    ['appoint', 5],
    ['resign', directors.length >= 2 ? 3 : 0],
    ['move', directors.length >= 1 ? 2 : 0],
  ] as const);
  let inputs: RoleLike[];
  if (choice === 'resign') {
    const leaving = random.pick(directors);
    inputs = active.filter((role) => role !== leaving).map(keepRole);
  } else if (choice === 'move') {
    const moving = random.pick(directors);
    const address = addressInput(homeAddress(entity, random, geography), null, tools.stamp);
    inputs = active.map((role) =>
      role === moving ? { ...keepRole(role), roleAddress: [address] } : keepRole(role),
    );
  } else {
    const names = new Set(directors.map((role) => JSON.stringify(role.rolePerson)));
    const shareholders = active.filter(
      (role) =>
        role.roleType === 'Shareholder' && role.rolePerson && !names.has(JSON.stringify(role.rolePerson)),
    );
    const joining = shareholders.length > 0 && random.chance(0.3) ? random.pick(shareholders) : undefined;
    const person = joining?.rolePerson ?? personOf(generatePerson(random));
    const known = joining?.roleAddress.find((address) => address.endDate === null);
    const address: AddressLike = known
      ? { ...addressInput({ ...known, careOf: null }, null, tools.stamp), pafId: known.pafId }
      : addressInput(homeAddress(entity, random, geography), null, tools.stamp);
    inputs = [...active.map(keepRole), { roleType: 'Director', rolePerson: person, roleAddress: [address] }];
  }
  const change = await rolesChange(entity, inputs, tools);
  if (!change.events.some((event) => event.changeEventType === 'ROLES_DIRECTOR'))
    throw new Skip('no director changed');
  return change;
}

// ---------------------------------------------------------------------------------------------------
// Registrations.

const REGISTRATION_TYPES: Weighted<EntityTypeCode> = [
  ['Sole_Trader', 8],
  ['Partnership', 2],
  ['Trading_Trust', 2.5],
];

/** A new sole trader, partnership or trust, registered as POST /entities registers one. */
async function register(pool: pg.Pool, event: PlannedEvent, state: RegisterState): Promise<boolean> {
  const input = newRegistration(event.random, state.geography);
  const stamp = formatNzDateTime(event.at);
  await registerEntity(
    pool,
    new Date(event.at),
    registrationIdentifiers(input),
    (nzbn, newId) => newEntity(input, nzbn, stamp, newId),
    async (entity, client) => {
      await client.query('INSERT INTO nzbn_sandbox_activity_entities (nzbn, registered_at) VALUES ($1, $2)', [
        entity.nzbn,
        new Date(event.at),
      ]);
      await advanceCursor(client, event.at);
    },
  );
  state.simulated++;
  return true;
}

/** What an applicant sends to register a small business: its people, addresses, contacts and trade. */
export function newRegistration(random: Random, geography: Geography): RegistrationLike {
  const type = random.weighted(REGISTRATION_TYPES);
  const first = generatePerson(random);
  const people = [first];
  const more =
    type === 'Sole_Trader' ? 0 : type === 'Partnership' ? (random.chance(0.8) ? 1 : 2) : random.int(0, 1);
  for (let i = 0; i < more; i++)
    people.push(random.chance(0.5) ? generateRelative(random, first) : generatePerson(random));
  const area = pickArea(random, geography);
  const division = random.weighted(divisionWeightsFor(type));
  const context: NameContext = {
    division,
    place: area.suburb,
    town: area.district.town,
    district: area.district.name,
    region: area.region.shortName,
    people,
  };
  const name = generateEntityName(random, type, context);
  const rural = random.chance(0.15) ? 'rural' : 'street';
  const addresses: AddressLike[] = [];
  if (random.chance(0.8)) addresses.push(addressInput(generateNzAddress(random, area, rural), 'OFFICE'));
  if (addresses.length === 0 || random.chance(0.5)) {
    addresses.push(
      addressInput(generateNzAddress(random, area, random.chance(0.4) ? 'postal' : rural), 'POSTAL'),
    );
  }
  const domain = domainFor(random, name.stem);
  const phone = random.chance(0.7) ? generateMobile(random) : generateLandline(random, area);
  const roleType = type === 'Partnership' ? 'Partner' : type === 'Trading_Trust' ? 'Trustee' : undefined;
  const home = (): AddressLike =>
    addressInput(
      generateNzAddress(random, random.chance(0.85) ? pickArea(random, geography, area.region.code) : area),
      null,
    );
  const codes = bicCodesInDivision(division);
  return {
    entityTypeCode: type,
    entityName: name.legalName,
    addresses,
    phoneNumbers: random.chance(0.85)
      ? [{ ...phone, phonePurpose: random.chance(0.6) ? 'Primary' : null }]
      : [],
    emailAddresses: random.chance(0.8)
      ? [{ emailAddress: businessEmail(random, domain, first), emailPurpose: 'Primary' }]
      : [],
    tradingNames: random.chance(0.75) ? [{ name: name.stem }] : [],
    industryClassifications:
      codes.length > 0 && random.chance(0.8) ? [{ classificationCode: random.pick(codes).code }] : [],
    gstNumbers: random.chance(0.4) ? [{ gstNumber: generateGstNumber(random) }] : [],
    roles: roleType
      ? people.map((person) => ({ roleType, rolePerson: personOf(person), roleAddress: [home()] }))
      : [],
    privacySettings: {
      phonePrivateInformation: random.chance(0.3),
      emailPrivateInformation: random.chance(0.15),
      gstNumberPrivateInformation: random.chance(0.5),
    },
  };
}
