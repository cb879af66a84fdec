/**
 * The change makers of the simulated activity (activity.ts): for an entity an event drew, the change
 * of its kind (an address moves, a new name, a director appointed, resigning or moving house, a status
 * transition), built with the change builders the API's operations use (store/edits.ts). An event that
 * does not fit after all throws `Skip` and nothing is written.
 */

import type { Area, Geography } from '../../../platform/geography.ts';
import type { Random } from '../../../platform/random.ts';
import type { DivisionLetter } from '../domain/bic.ts';
import { statusChangeProblem } from '../domain/changes.ts';
import {
  type AddressType,
  ENTITY_STATUSES,
  ENTITY_TYPES,
  type EntityStatusCode,
  type EntityTypeCode,
} from '../domain/codes.ts';
import { type AddressLike, addressItem } from '../domain/items.ts';
import type { RoleLike } from '../domain/roles.ts';
import type { Entity, Insolvency, Role } from '../domain/schema.ts';
import { addressChange, entityNameChange, rolesChange, statusChange } from '../store/edits.ts';
import type { Change, UpdateTools } from '../store/update.ts';
import type { ActivityKind } from './activity-plan.ts';
import { statusTransitions } from './activity-rules.ts';
import { type AddressKind, type AddressLines, generateNzAddress, pickArea } from './addresses.ts';
import { pafIdFor } from './build.ts';
import { insolvencyEntry } from './company-details.ts';
import { generateEntityName, type NameContext } from './names.ts';
import { generatePerson, type Person } from './people.ts';
import { divisionWeightsFor, typeGroup } from './profile.ts';
import { insolvencyKinds, practitionerFirm } from './roles.ts';

/** An event that does not fit the entity it drew (or the entity moved on): nothing is written. */
export class Skip extends Error {}

export function makeChange(
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
      return statusMove(entity, target, tools, random, geography);
    }
  }
}

/** The practitioner each insolvency of a status has (its filter), by role. */
const PRACTITIONERS: readonly (readonly [Role['roleType'], (filter: string) => boolean])[] = [
  ['Liquidator', (filter) => filter === 'InLiquidation'],
  ['Receiver', (filter) => filter === 'InReceivership'],
  ['Administrator', (filter) => filter.endsWith('Administration')],
];

/**
 * A status transition, and what comes with it in the register, as one change with its one
 * `ENTITY_STATUS` event: a company entering an insolvency has its liquidator, receiver or administrator
 * appointed that day; one leaving it (back to registered, on to another, removed) has the practitioner's
 * appointment ended, and the company details' insolvencies follow them; a sole trader, partnership or
 * trust that closes or goes inactive stops hibernating
 * (as it does through the API: store/edits.ts `statusChange`).
 */
async function statusMove(
  entity: Entity,
  target: EntityStatusCode,
  tools: UpdateTools,
  random: Random,
  geography: Geography,
): Promise<Change<unknown>> {
  // A sole trader, partnership or trust that closes or goes inactive stops hibernating (statusChange).
  const change = await statusChange(entity, target, undefined, tools);
  const filters: readonly string[] = ENTITY_STATUSES[target].filters;
  const company = typeGroup(entity.entityTypeCode) === 'nzCompany';
  const active = entity.roles.filter((role) => role.roleStatus === 'ACTIVE');
  const applies = (roleType: string) =>
    company && PRACTITIONERS.some(([type, of]) => type === roleType && filters.some(of));
  const isPractitioner = (roleType: string) => PRACTITIONERS.some(([type]) => type === roleType);
  const kept = active.filter((role) => !isPractitioner(role.roleType) || applies(role.roleType));
  const appointees = PRACTITIONERS.filter(
    ([type]) => applies(type) && !kept.some((role) => role.roleType === type),
  ).map(([roleType]) => {
    const person = generatePerson(random, 'european');
    return { roleType, person, home: homeAddress(entity, random, geography) };
  });
  const appointed = appointees.map(
    ({ roleType, person, home }): RoleLike => ({
      roleType,
      rolePerson: personOf(person),
      roleAddress: [addressInput(home, null, tools.stamp)],
    }),
  );
  if (kept.length < active.length || appointed.length > 0)
    // The roles' own events are left out: the appointment or its end is the status change's.
    await rolesChange(entity, [...kept.map(keepRole), ...appointed], tools);
  await followInsolvencies(entity, target, {
    ended: new Set(active.filter((role) => !kept.includes(role)).map((role) => role.roleType)),
    appointees,
    tools,
    random,
  });
  return change;
}

/** The practitioner of each insolvency type (company details) by role. */
const PRACTITIONER_OF: Readonly<Record<string, string>> = {
  Liquidation: 'Liquidator',
  Receivership: 'Receiver',
  'Voluntary Administration': 'Administrator',
  'Statutory Management': 'Administrator',
};

/**
 * A company's insolvencies (its company details) follow its practitioners: one whose practitioner's
 * appointment ended has the appointee vacated that day; a practitioner appointed commences a new one,
 * its first report still to come.
 */
async function followInsolvencies(
  entity: Entity,
  target: EntityStatusCode,
  change: {
    ended: ReadonlySet<string>;
    appointees: readonly { roleType: string; person: Person; home: AddressLines }[];
    tools: UpdateTools;
    random: Random;
  },
): Promise<void> {
  const details = entity['company-details'];
  if (!details) return;
  const { tools } = change;
  const vacated = details.insolvencies.map((insolvency) =>
    change.ended.has(PRACTITIONER_OF[insolvency.insolvencyType] ?? '')
      ? {
          ...insolvency,
          insolvencyAppointee: insolvency.insolvencyAppointee.map((appointee) =>
            appointee.vacationDate === null ? { ...appointee, vacationDate: tools.stamp } : appointee,
          ),
        }
      : insolvency,
  );
  const commenced: Insolvency[] = [];
  for (const { roleType, person, home } of change.appointees) {
    for (const [kind, insolvencyType] of insolvencyKinds(target)) {
      if (kind !== roleType) continue;
      commenced.push(
        insolvencyEntry({
          person,
          firm: practitionerFirm(change.random, person),
          insolvencyType,
          appointed: tools.stamp,
          vacated: null,
          firstReport: { filed: false, date: null },
          address: addressItem(addressInput(home, null, tools.stamp), {
            id: await tools.nextItemId(),
            now: tools.stamp,
          }),
        }),
      );
    }
  }
  details.insolvencies = [...vacated, ...commenced];
}

export const addressInput = (
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

export const personOf = (person: Person): NonNullable<RoleLike['rolePerson']> => ({
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
