/**
 * Roles of a generated entity: directors and shareholders of companies, partners, trustees, officers,
 * general and limited partners, overseas directors and authorised persons, and the insolvency
 * practitioners of companies in liquidation, receivership or administration. The people behind the
 * business keep one residential address across their roles, as in the register.
 */
import type { Random } from '../../../platform/random.ts';
import type { EntityStatusCode, RoleType } from '../domain/codes.ts';
import { ENTITY_STATUSES } from '../domain/codes.ts';
import type { Role } from '../domain/schema.ts';
import { type AddressLines, generateOverseasAddress } from './addresses.ts';
import { addressItem, dayInLife, type EntityBuild, residentialAddress } from './build.ts';
import { generatePerson, type Person } from './people.ts';
import { addYears } from './time.ts';

export type Holder =
  | {
      readonly kind: 'person';
      readonly person: Person;
      readonly address: AddressLines;
      readonly since: number;
    }
  | {
      readonly kind: 'entity';
      readonly name: string;
      readonly address: AddressLines;
      readonly since: number;
    };

export interface Allocation {
  readonly shares: number;
  readonly holders: readonly Holder[];
}

export interface RolesResult {
  readonly roles: Role[];
  /** For companies: who holds the shares, which company-details turns into `shareholding`. */
  readonly allocations: readonly Allocation[];
  /** The practitioners appointed to an insolvent company, for `insolvencies`. */
  readonly appointees: readonly Appointee[];
}

export interface Appointee {
  readonly person: Person;
  readonly firm: string;
  readonly roleType: RoleType;
  readonly insolvencyType: string;
  readonly appointed: number;
  readonly address: AddressLines;
}

export function generateRoles(build: EntityBuild, stem: string): RolesResult {
  const { random, people } = build;
  const overseas = build.group === 'overseasCompany';
  const addresses = people.map((_, i) =>
    overseas && i === 0
      ? generateOverseasAddress(random, build.type === 'ASIC' ? 'AU' : random.pick(['US', 'GB', 'SG', 'AU']))
      : residentialAddress(build),
  );
  const roles: Role[] = [];
  const add = (type: RoleType, i: number, start: number, end: number | null = null): void => {
    roles.push(personRole(build, type, people[i]!, addresses[i]!, start, end));
  };

  let allocations: Allocation[] = [];
  switch (build.group) {
    case 'nzCompany':
    case 'overseasCompany': {
      const directorCount = random.chance(0.8) ? people.length : random.int(1, people.length);
      for (let i = 0; i < directorCount; i++) {
        add('Director', i, i === 0 || random.chance(0.6) ? build.registered : dayInLife(build));
      }
      if (random.chance(0.15)) formerDirector(build, roles);
      if (build.type === 'NON_ASIC') roles.push(authorisedPerson(build));
      if (!overseas) {
        allocations = planShareholding(build, addresses, stem);
        for (const holder of uniqueHolders(allocations)) roles.push(shareholderRole(build, holder));
      }
      break;
    }
    case 'optIn':
      if (build.type === 'Partnership')
        for (let i = 0; i < people.length; i++) add('Partner', i, build.registered);
      if (build.type === 'Trading_Trust') {
        for (let i = 0; i < people.length; i++) add('Trustee', i, build.registered);
        if (random.chance(0.25))
          roles.push(entityRole(build, 'Trustee', `${people[0]?.lastName ?? 'Family'} Trustee Limited`));
      }
      break;
    case 'otherRegister':
      if (build.type === 'Y' || build.type === 'Z') {
        roles.push(entityRole(build, 'General Partner', `${stem} GP Limited`.toUpperCase()));
        for (let i = 0; i < people.length; i++) add('Limited Partner', i, build.registered);
      } else {
        const kind: RoleType = build.type === 'T' ? 'Trustee' : 'Officer';
        for (let i = 0; i < people.length; i++) add(kind, i, dayInLife(build));
      }
      break;
    case 'publicSector':
      break;
  }
  const appointees = insolvencyAppointees(build);
  for (const appointee of appointees) {
    roles.push(
      personRole(build, appointee.roleType, appointee.person, appointee.address, appointee.appointed, null),
    );
  }
  return { roles, allocations, appointees };
}

function personRole(
  build: EntityBuild,
  roleType: RoleType,
  person: Person,
  address: AddressLines,
  start: number,
  end: number | null,
): Role {
  // Since 2014 a director may live in Australia if they direct an Australian company there.
  const asic = roleType === 'Director' && address.countryCode === 'AU';
  return {
    uniqueIdentifier: build.nextId(),
    roleType,
    roleStatus: end === null ? 'ACTIVE' : 'INACTIVE',
    startDate: build.stampDay(start),
    endDate: end === null ? null : build.stampDay(end),
    rolePerson: {
      title: person.title,
      firstName: person.firstName,
      middleNames: person.middleNames,
      lastName: person.lastName,
    },
    roleEntity: null,
    roleAddress: [addressItem(build, address, null, start)],
    roleAsicAddress: null,
    asicDirectorshipYn: asic,
    asicName: asic ? `${person.lastName.toUpperCase()} PTY LTD` : null,
    acn: null,
  };
}

function entityRole(
  build: EntityBuild,
  roleType: RoleType,
  entityName: string,
  start = build.registered,
  address: AddressLines = residentialAddress(build),
): Role {
  return {
    uniqueIdentifier: build.nextId(),
    roleType,
    roleStatus: 'ACTIVE',
    startDate: build.stampDay(start),
    endDate: null,
    rolePerson: null,
    roleEntity: { nzbn: null, entityName },
    roleAddress: [addressItem(build, address, null, start)],
    roleAsicAddress: null,
    asicDirectorshipYn: false,
    asicName: null,
    acn: null,
  };
}

function formerDirector(build: EntityBuild, roles: Role[]): void {
  const start = dayInLife(build);
  const end = dayInLife(build, start);
  if (end <= start) return;
  const person = generatePerson(build.random);
  roles.push(personRole(build, 'Director', person, residentialAddress(build), start, end));
}

function authorisedPerson(build: EntityBuild): Role {
  const person = generatePerson(build.random);
  return personRole(build, 'Authorised Person', person, residentialAddress(build), dayInLife(build), null);
}

function shareholderRole(build: EntityBuild, holder: Holder): Role {
  if (holder.kind === 'entity')
    return entityRole(build, 'Shareholder', holder.name, holder.since, holder.address);
  return personRole(build, 'Shareholder', holder.person, holder.address, holder.since, null);
}

function uniqueHolders(allocations: readonly Allocation[]): Holder[] {
  const seen = new Set<Holder>();
  for (const allocation of allocations) for (const holder of allocation.holders) seen.add(holder);
  return [...seen];
}

const SHARE_COUNTS: readonly (readonly [number, number])[] = [
  [100, 40],
  [1000, 25],
  [10_000, 10],
  [120, 5],
  [1_000_000, 5],
  [500, 5],
  [200, 5],
  [50_000, 5],
];

/** Who holds a company's shares: the people, jointly or apart, sometimes with a family trust's trustee company. */
function planShareholding(
  build: EntityBuild,
  addresses: readonly AddressLines[],
  stem: string,
): Allocation[] {
  const { random, people } = build;
  const since = build.registered;
  const holders: Holder[] = people.map((person, i) => ({
    kind: 'person',
    person,
    address: addresses[i]!,
    since,
  }));
  const total = random.weighted(SHARE_COUNTS);
  if (random.chance(0.1)) {
    const trustee: Holder = {
      kind: 'entity',
      name: `${(people[0]?.lastName ?? stem).toUpperCase()} TRUSTEES LIMITED`,
      address: addresses[0] ?? residentialAddress(build),
      since,
    };
    return [{ shares: total, holders: [...holders.slice(0, 2), trustee] }];
  }
  if (holders.length >= 2 && random.chance(0.35)) {
    // Spouses often hold one parcel jointly.
    return [{ shares: total, holders: holders.slice(0, 2) }];
  }
  const parcels = holders.length === 1 ? [total] : splitShares(total, holders.length, random.chance(0.6));
  return parcels.map((shares, i) => ({ shares, holders: [holders[i]!] }));
}

function splitShares(total: number, parts: number, equal: boolean): number[] {
  const shares = Array.from({ length: parts }, (_, i) => (equal ? 1 : parts - i));
  const weight = shares.reduce((sum, value) => sum + value, 0);
  const parcels = shares.map((value) => Math.max(1, Math.floor((total * value) / weight)));
  parcels[0]! += total - parcels.reduce((sum, value) => sum + value, 0);
  return parcels;
}

const FIRM_KINDS = [
  'Insolvency Limited',
  'Restructuring Limited',
  'Chartered Accountants',
  'Recovery Limited',
] as const;

/** The practitioners a company in a status has: each one's role and the insolvency it runs. */
export function insolvencyKinds(status: EntityStatusCode): [RoleType, string][] {
  const filters = ENTITY_STATUSES[status].filters;
  const kinds: [RoleType, string][] = [];
  if (filters.includes('InLiquidation')) kinds.push(['Liquidator', 'Liquidation']);
  if (filters.includes('InReceivership')) kinds.push(['Receiver', 'Receivership']);
  if (filters.includes('VoluntaryAdministration')) kinds.push(['Administrator', 'Voluntary Administration']);
  if (filters.includes('InStatutoryAdministration')) kinds.push(['Administrator', 'Statutory Management']);
  return kinds;
}

/** The insolvency practitioner's firm ("Grant Restructuring Limited"). */
export const practitionerFirm = (random: Random, person: Person): string =>
  `${random.pick(['Grant', 'Waterstone', 'Kerr', 'Harbour', 'Meridian', person.lastName])} ${random.pick(FIRM_KINDS)}`;

function insolvencyAppointees(build: EntityBuild): Appointee[] {
  if (build.group !== 'nzCompany') return [];
  const kinds = insolvencyKinds(build.status);
  if (kinds.length === 0) return [];
  const { random } = build;
  const from = Math.max(build.registered, addYears(build.liveUntil, -2));
  return kinds.map(([roleType, insolvencyType]) => {
    const person = generatePerson(random, 'european');
    return {
      person,
      firm: practitionerFirm(random, person),
      roleType,
      insolvencyType,
      appointed: dayInLife(build, from),
      address: residentialAddress(build),
    };
  });
}
