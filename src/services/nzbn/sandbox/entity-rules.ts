/**
 * The rules one entity of the generated register keeps, as someone who knows the register reads them:
 * each returns what breaks it (empty: the entity keeps it). Pure: sandbox/invariants.ts runs them over
 * the register. The rules follow the register's law and practice, and the generator's profile where the
 * law leaves a choice (profile.ts: which statuses each kind of entity passes through).
 */

import { type Places, placeProblem } from '../../../platform/geography.ts';
import { parseNzDateTime } from '../../../platform/nz-time.ts';
import { divisionOfAnzsicClass, findBic } from '../domain/bic.ts';
import {
  ENTITY_STATUSES,
  ENTITY_TYPES,
  type EntityStatusCode,
  type EntityTypeCode,
} from '../domain/codes.ts';
import { isValidAbn, isValidIrdNumber } from '../domain/identifiers.ts';
import type { Entity } from '../domain/schema.ts';
import { divisionWeightsFor, STATUS_WEIGHTS, typeGroup } from './profile.ts';

export interface NamePeriod {
  name: string;
  startDate: string | null;
  endDate: string;
}

/** What a rule is judged on: the entity, its columns beside the document, its ended names. */
export interface EntityFacts {
  entity: Entity;
  statusCode: string;
  typeCode: string;
  sourceRegisterUniqueId: string | null;
  endedNames: readonly NamePeriod[];
}

export type EntityRule = (facts: EntityFacts, world: RuleWorld) => string[];

/** What the rules compare with: the sandbox's today and the geography of its addresses. */
export interface RuleWorld {
  todayMs: number;
  places: Places;
}

const at = (text: string | null | undefined): number =>
  text ? (parseNzDateTime(text) ?? Number.NaN) : Number.NaN;
const day = (text: string | null | undefined): string => (text ?? '').slice(0, 10);

/** The entity type's source register and number, and the columns that repeat the document's. */
export const sourceRegisterFollowsType: EntityRule = ({ entity, ...columns }) => {
  const problems: string[] = [];
  const type = ENTITY_TYPES[entity.entityTypeCode as EntityTypeCode];
  if (!type) return [`entity type ${entity.entityTypeCode} is no type of the register`];
  if (entity.entityTypeDescription !== type.description)
    problems.push(`type ${entity.entityTypeCode} described "${entity.entityTypeDescription}"`);
  if (entity.sourceRegister !== type.sourceRegister)
    problems.push(`a ${type.description} from source register ${entity.sourceRegister}`);
  const numbered = entity.sourceRegisterUniqueIdentifier !== null;
  if (numbered !== (type.sourceRegister !== 'NZBN'))
    problems.push(
      numbered
        ? `a ${type.description} with a source register number (${entity.sourceRegisterUniqueIdentifier})`
        : `a ${type.description} without its ${type.sourceRegister} number`,
    );
  if ((entity['company-details'] !== null) !== (type.kind === 'company'))
    problems.push(`a ${type.description} ${type.kind === 'company' ? 'without' : 'with'} company details`);
  if (columns.typeCode !== entity.entityTypeCode || columns.statusCode !== entity.entityStatusCode)
    problems.push(
      `columns say type ${columns.typeCode} status ${columns.statusCode}, the document otherwise`,
    );
  if (columns.sourceRegisterUniqueId !== entity.sourceRegisterUniqueIdentifier)
    problems.push('the source register number column differs from the document');
  return problems;
};

/** Statuses each kind of entity has: insolvency only for New Zealand companies, Inactive only off-register. */
export const statusFollowsType: EntityRule = ({ entity }) => {
  const code = entity.entityStatusCode as EntityStatusCode;
  const info = ENTITY_STATUSES[code];
  if (!info) return [`status ${code} is no status of the register`];
  const problems: string[] = [];
  if (entity.entityStatusDescription !== info.description)
    problems.push(`status ${code} described "${entity.entityStatusDescription}"`);
  const type = entity.entityTypeCode as EntityTypeCode;
  const allowed = STATUS_WEIGHTS[typeGroup(type)].map(([status]) => status);
  if (!allowed.includes(code))
    problems.push(`a ${ENTITY_TYPES[type].description} ${info.description} (${code})`);
  const live = !info.filters.some((f) => f === 'RemovedClosed' || f === 'Inactive');
  if (entity.hibernationStatusCode !== null && !(live && typeGroup(type) === 'optIn'))
    problems.push(
      `hibernation status ${entity.hibernationStatusCode} on a ${info.description} ${ENTITY_TYPES[type].description}`,
    );
  return problems;
};

const PERSON_ROLES = new Set(['Director', 'Partner', 'Limited Partner', 'Officer', 'Authorised Person']);
const INSOLVENCY_ROLES: Readonly<Record<string, string>> = {
  Liquidator: 'InLiquidation',
  Receiver: 'InReceivership',
  Administrator: 'Administration',
};
/** The roles each entity type has (insolvency practitioners aside). */
const ROLES_OF: Readonly<Record<string, readonly string[]>> = {
  nzCompany: ['Director', 'Shareholder'],
  ASIC: ['Director'],
  NON_ASIC: ['Director', 'Authorised Person'],
  Sole_Trader: [],
  Partnership: ['Partner'],
  Trading_Trust: ['Trustee'],
  Y: ['General Partner', 'Limited Partner'],
  Z: ['General Partner', 'Limited Partner'],
  T: ['Trustee'],
  otherRegister: ['Officer'],
  publicSector: [],
};
/** Roles a live entity of a type must have at least one of, active. */
const REQUIRED: Readonly<Record<string, readonly string[]>> = {
  nzCompany: ['Director', 'Shareholder'],
  ASIC: ['Director'],
  NON_ASIC: ['Director'],
  Partnership: ['Partner'],
  Trading_Trust: ['Trustee'],
  Y: ['General Partner'],
  Z: ['General Partner'],
};

/**
 * A party's kind matches its role: a sole trader and a public sector body have no roles, a company
 * directors and shareholders, a partnership partners, a trust trustees; persons as directors and
 * partners; insolvency practitioners only for a company in that insolvency, which has them.
 */
export const rolesFollowType: EntityRule = ({ entity }) => {
  const type = entity.entityTypeCode as EntityTypeCode;
  const group = typeGroup(type);
  const key = group === 'nzCompany' || group === 'publicSector' ? group : ROLES_OF[type] ? type : group;
  const allowed = new Set(ROLES_OF[key] ?? []);
  const filters: readonly string[] =
    ENTITY_STATUSES[entity.entityStatusCode as EntityStatusCode]?.filters ?? [];
  const problems: string[] = [];
  const description = ENTITY_TYPES[type]?.description ?? type;
  for (const role of entity.roles) {
    const insolvency = INSOLVENCY_ROLES[role.roleType];
    // A practitioner whose appointment ended (the company left the insolvency) is history.
    if (insolvency && role.roleStatus === 'ACTIVE') {
      const applies =
        group === 'nzCompany' &&
        filters.some(
          (f) => f === insolvency || (insolvency === 'Administration' && f.endsWith('Administration')),
        );
      if (!applies) problems.push(`a ${role.roleType} of a ${description} ${entity.entityStatusDescription}`);
    } else if (!insolvency && !allowed.has(role.roleType))
      problems.push(`a ${role.roleType} of a ${description}`);
    if (PERSON_ROLES.has(role.roleType) && role.rolePerson === null)
      problems.push(
        `${role.roleType} ${role.roleEntity?.entityName ?? role.uniqueIdentifier} is not a person`,
      );
    if ((role.roleStatus === 'ACTIVE') !== (role.endDate === null))
      problems.push(
        `${role.roleType} ${role.uniqueIdentifier} ${role.roleStatus} with end date ${role.endDate}`,
      );
  }
  const live = !filters.some((f) => f === 'RemovedClosed' || f === 'Inactive');
  for (const needed of REQUIRED[key] ?? [])
    if (live && !entity.roles.some((r) => r.roleType === needed && r.roleStatus === 'ACTIVE'))
      problems.push(`a ${entity.entityStatusDescription} ${description} without an active ${needed}`);
  if (group === 'nzCompany')
    for (const [role, filter] of Object.entries(INSOLVENCY_ROLES))
      if (
        role !== 'Administrator' &&
        filters.includes(filter) &&
        !entity.roles.some((r) => r.roleType === role)
      )
        problems.push(`${entity.entityStatusDescription} without a ${role}`);
  return problems;
};

/** Industry codes are BIC codes with their published descriptions, in a division the entity type works in. */
export const industryFollowsType: EntityRule = ({ entity }) => {
  const type = entity.entityTypeCode as EntityTypeCode;
  const divisions = new Set(divisionWeightsFor(type).map(([letter]) => letter));
  const problems: string[] = [];
  for (const item of entity.industryClassifications) {
    const bic = findBic(item.classificationCode);
    if (!bic) problems.push(`industry code ${item.classificationCode} is no BIC code`);
    else if (bic.description !== item.classificationDescription)
      problems.push(`${bic.code} described "${item.classificationDescription}"`);
    else if (divisionOfAnzsicClass(bic.anzsicClass) !== bic.division)
      problems.push(`${bic.code}: ANZSIC class ${bic.anzsicClass} is not of division ${bic.division}`);
    else if (!divisions.has(bic.division))
      problems.push(
        `a ${ENTITY_TYPES[type]?.description ?? type} in ANZSIC division ${bic.division} (${bic.description})`,
      );
  }
  return problems;
};

/**
 * Registration ≤ every dated item (roles, addresses, trading names and areas, GST numbers, bank
 * accounts) ≤ its end ≤ the last update ≤ today; earlier names in order from the registration, the last
 * ending no later than the last update.
 */
export const datesInOrder: EntityRule = ({ entity, endedNames }, { todayMs }) => {
  const registered = at(entity.registrationDate);
  const updated = at(entity.lastUpdatedDate);
  const problems: string[] = [];
  if (!(registered <= updated))
    problems.push(`registered ${day(entity.registrationDate)}, last updated ${day(entity.lastUpdatedDate)}`);
  if (!(updated <= todayMs)) problems.push(`last updated ${day(entity.lastUpdatedDate)}, after today`);
  const items: [string, string, string | null | undefined][] = [
    ...entity.roles.flatMap((r): [string, string, string | null][] => [
      [`${r.roleType} ${r.uniqueIdentifier}`, r.startDate, r.endDate],
      ...r.roleAddress.map((a): [string, string, string | null] => [
        `${r.roleType}'s address ${a.uniqueIdentifier}`,
        a.startDate,
        a.endDate,
      ]),
    ]),
    ...entity.addresses.addressList.map((a): [string, string, string | null] => [
      `address ${a.uniqueIdentifier}`,
      a.startDate,
      a.endDate,
    ]),
    ...entity.tradingNames.map((t): [string, string, string | null] => [
      `trading name ${t.name}`,
      t.startDate,
      t.endDate,
    ]),
    ...entity.tradingAreas.map((t): [string, string, string | null] => [
      `trading area ${t.tradingArea}`,
      t.startDate,
      t.endDate,
    ]),
    ...entity.gstNumbers.map((g): [string, string, null] => [`GST number ${g.gstNumber}`, g.startDate, null]),
    ...entity.paymentBankAccounts.map((b): [string, string, null] => [
      `bank account ${b.uniqueIdentifier}`,
      b.startDate,
      null,
    ]),
  ];
  for (const [what, start, end] of items) {
    const from = at(start);
    // A role starts on its New Zealand day: the registration's day counts.
    if (from < registered - 86_400_000 || (from < registered && day(start) !== day(entity.registrationDate)))
      problems.push(`${what} from ${day(start)}, before the registration ${day(entity.registrationDate)}`);
    if (end && at(end) < from) problems.push(`${what} ends ${day(end)}, before it starts ${day(start)}`);
    if (Math.max(from, end ? at(end) : from) > updated)
      problems.push(`${what} dated after the last update ${day(entity.lastUpdatedDate)}`);
  }
  let previous = entity.registrationDate;
  for (const name of endedNames) {
    if (name.startDate !== null && at(name.startDate) !== at(previous))
      problems.push(
        `name "${name.name}" from ${day(name.startDate)}, its predecessor ended ${day(previous)}`,
      );
    if (name.startDate !== null && at(name.endDate) <= at(name.startDate))
      problems.push(`name "${name.name}" ends ${day(name.endDate)}, no later than it starts`);
    previous = name.endDate;
  }
  if (endedNames.length > 0 && at(previous) > updated)
    problems.push(`an earlier name ended ${day(previous)}, after the last update`);
  endedNames.forEach((n, i) => {
    if (n.name === (endedNames[i + 1]?.name ?? entity.entityName))
      problems.push(`name "${n.name}" changed to itself`);
  });
  return problems;
};

/** GST numbers pass the IRD check; an Australian business number is a company's, an ASIC company's from its ACN. */
export const numbersPlausible: EntityRule = ({ entity }) => {
  const problems: string[] = [];
  for (const gst of entity.gstNumbers)
    if (!isValidIrdNumber(gst.gstNumber)) problems.push(`GST number ${gst.gstNumber} fails the IRD check`);
  const abn = entity.australianBusinessNumber;
  if (abn !== null) {
    if (!isValidAbn(abn)) problems.push(`ABN ${abn} fails its check`);
    if (ENTITY_TYPES[entity.entityTypeCode as EntityTypeCode]?.kind !== 'company')
      problems.push(`a ${entity.entityTypeDescription} with an Australian business number`);
    const acn = entity['company-details']?.australianCompanyNumber;
    if (acn && abn.slice(2) !== acn) problems.push(`ABN ${abn} is not its ACN ${acn}'s`);
  }
  return problems;
};

type AddressLike = Entity['addresses']['addressList'][number];

/** What is wrong with a New Zealand address's suburb, town and postcode (nothing: undefined). */
export function addressProblem(address: AddressLike, places: Places): string | undefined {
  if (address.countryCode !== 'NZ') return undefined;
  const lines = [address.address1, address.address2, address.address3, address.address4].filter(
    (line): line is string => line !== null && line !== '',
  );
  return placeProblem(lines, address.postCode ?? null, places);
}

/**
 * Every New Zealand address (the entity's and its roles') names a suburb of its town, and the postcode
 * of that suburb, as the 2019 statistical geography has them; a New Zealand company's registered office
 * is in New Zealand.
 */
export const addressesReal: EntityRule = ({ entity }, { places }) => {
  const problems: string[] = [];
  const all = [
    ...entity.addresses.addressList.map((a) => ['address', a] as const),
    ...entity.roles.flatMap((r) => r.roleAddress.map((a) => [`${r.roleType}'s address`, a] as const)),
  ];
  for (const [what, address] of all) {
    const problem = addressProblem(address, places);
    if (problem) problems.push(`${what} ${address.uniqueIdentifier}: ${problem}`);
  }
  if (typeGroup(entity.entityTypeCode as EntityTypeCode) === 'nzCompany')
    for (const a of entity.addresses.addressList)
      if (a.addressType === 'REGISTERED' && a.endDate === null && a.countryCode !== 'NZ')
        problems.push(`registered office in ${a.countryCode}`);
  return problems;
};
