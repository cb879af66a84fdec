/**
 * Generates one sandbox entity in the exact published shape of GET /entities/{nzbn}. Everything comes
 * from the random stream and the index, so (seed, index) always gives the same entity and chunks of
 * indexes can be generated in parallel: business numbers, company numbers and sub-item identifiers are
 * functions of the index (numbers.ts), never of what other entities drew.
 */

import type { Geography } from '../../../platform/geography.ts';
import { nzLocalToEpoch } from '../../../platform/nz-time.ts';
import type { Random } from '../../../platform/random.ts';
import type { DivisionLetter } from '../domain/bic.ts';
import {
  ENTITY_STATUSES,
  ENTITY_TYPES,
  type EntityStatusCode,
  type EntityTypeCode,
  HIBERNATION_STATUSES,
} from '../domain/codes.ts';
import { abnForAcn, bankAccountFields } from '../domain/identifiers.ts';
import type { Entity } from '../domain/schema.ts';
import { pickArea } from './addresses.ts';
import { createBuild, dayInLife, type EntityBuild } from './build.ts';
import { generateCompanyDetails, generateNonCompanyDetails } from './company-details.ts';
import { domainFor, domainKindFor, generateBankAccount, generateGstNumber } from './contacts.ts';
import {
  generateAddresses,
  generateClassifications,
  generateContacts,
  generateEthnicity,
  generateTradingAreas,
  generateTradingNames,
} from './entity-parts.ts';
import { generateEntityName, type NameContext } from './names.ts';
import { companyNumberForIndex, nzbnForIndex } from './numbers.ts';
import { generatePerson, generateRelative, type Person } from './people.ts';
import { generatePrivacy } from './privacy.ts';
import {
  classificationChance,
  divisionWeightsFor,
  ENTITY_TYPE_WEIGHTS,
  peopleCountWeights,
  primaryBusinessDataChance,
  registrationPeriodsFor,
  STATUS_WEIGHTS,
  typeGroup,
} from './profile.ts';
import { generateRoles } from './roles.ts';
import { entityStream, type RegisterKey, registerKey } from './stream.ts';
import { addDays, addYears, instantByPeriods, randomInstant, randomOfficeTime } from './time.ts';

export interface GeneratorContext {
  readonly geography: Geography;
  /** The instant the generated register describes; nothing is dated later. Defaults to DEFAULT_AS_OF. */
  readonly asOf?: number;
}

/** A fixed "now" for generated data, so a seed gives the same register on any day it is run. */
export const DEFAULT_AS_OF = nzLocalToEpoch(2025, 6, 30, 17, 0, 0);

/** Fixed choices for test cases; anything not given is drawn as usual. */
export interface EntityOverrides {
  readonly entityTypeCode?: EntityTypeCode;
  readonly entityStatusCode?: EntityStatusCode;
  readonly nzbn?: string;
  readonly entityName?: string;
  readonly registrationDate?: number;
  /** Forces private phone, email and GST number, and Primary Business Data to exist. */
  readonly privateData?: boolean;
}

const keys = new Map<string, RegisterKey>();

/**
 * The random stream for one entity of a seeded register (see stream.ts for why it is not a fresh
 * `seeded()` per entity). Register keys are cached per seed.
 */
export function entityRandom(seed: string | number, index: number): Random {
  const name = String(seed);
  let key = keys.get(name);
  if (!key) {
    key = registerKey(seed);
    keys.set(name, key);
  }
  return entityStream(key, index);
}

/** Generates the entity at `index` of the register seeded by `seed`. */
export function generateEntityAt(seed: string | number, index: number, context: GeneratorContext): Entity {
  return generateEntity(entityRandom(seed, index), index, context);
}

export function generateEntity(
  random: Random,
  index: number,
  context: GeneratorContext,
  overrides: EntityOverrides = {},
): Entity {
  const asOf = context.asOf ?? DEFAULT_AS_OF;
  const type = overrides.entityTypeCode ?? random.weighted(ENTITY_TYPE_WEIGHTS);
  const info = ENTITY_TYPES[type];
  const group = typeGroup(type);
  const status = overrides.entityStatusCode ?? random.weighted(STATUS_WEIGHTS[group]);
  const registered = Math.min(
    overrides.registrationDate ?? instantByPeriods(random, registrationPeriodsFor(type), asOf),
    asOf,
  );
  const ended = ENTITY_STATUSES[status].filters.some(
    (filter) => filter === 'RemovedClosed' || filter === 'Inactive',
  );
  // An ended entity stopped changing at least a day before asOf (usually a year or more after registering).
  const lastLiveMoment = Math.max(registered, addDays(asOf, -1));
  const liveUntil = ended
    ? randomOfficeTime(random, Math.min(addYears(registered, 1), lastLiveMoment), lastLiveMoment)
    : asOf;
  const home = pickArea(random, context.geography);
  const division: DivisionLetter = random.weighted(divisionWeightsFor(type));
  const build = createBuild({
    random,
    index,
    geography: context.geography,
    type,
    group,
    status,
    registered,
    liveUntil,
    home,
    people: generatePeople(random, type),
    asOf,
  });

  const nameContext: NameContext = {
    division,
    place: home.suburb,
    town: home.district.town,
    district: home.district.name,
    region: home.region.shortName,
    people: build.people,
  };
  const name = generateEntityName(random, type, nameContext);
  const entityName = overrides.entityName ?? name.legalName;
  const volunteered =
    overrides.privateData === true || random.chance(primaryBusinessDataChance(group, build.live));
  const registrationDate = build.stamp(registered);

  const addressList = generateAddresses(build);
  const roles = generateRoles(build, name.stem);
  const classifications = generateClassifications(
    build,
    division,
    random.chance(classificationChance(group)),
  );
  const tradingNames = generateTradingNames(build, name.stem, nameContext, volunteered);
  // A business's domain follows the name it trades under, else the distinctive part of its legal name.
  const domain = domainFor(random, tradingNames[0]?.name ?? name.stem, domainKindFor(type));
  const contacts = generateContacts(build, domain, volunteered, overrides.privateData === true);
  const tradingAreas = generateTradingAreas(build, volunteered);
  const gstNumbers = generateGst(build, volunteered, overrides.privateData === true);
  const paymentBankAccounts =
    volunteered && (overrides.privateData || random.chance(0.1)) ? [bankAccount(build)] : [];
  const businessEthnicityIdentifiers = generateEthnicity(build);
  const privacySettings = generatePrivacy(build, overrides.privateData === true);
  const companyDetails = info.kind === 'company' ? generateCompanyDetails(build, roles) : null;
  const nonCompanyDetails = info.kind === 'company' ? null : generateNonCompanyDetails(build);
  const hibernation = group === 'optIn' && build.live ? random.weighted(HIBERNATION_WEIGHTS) : null;
  const abn = australianBusinessNumber(build, companyDetails?.australianCompanyNumber ?? null);
  // The last change is at or after every dated item, and never after the entity stopped changing.
  const lastUpdated = Math.min(randomInstant(random, build.latest(), addDays(build.latest(), 60)), liveUntil);
  const lastUpdatedDate = build.stamp(wholeSeconds(Math.max(lastUpdated, build.latest())));

  return {
    entityStatusCode: status,
    entityName,
    nzbn: overrides.nzbn ?? nzbnForIndex(index),
    entityTypeCode: type,
    entityTypeDescription: info.description,
    entityStatusDescription: ENTITY_STATUSES[status].description,
    registrationDate,
    sourceRegister: info.sourceRegister,
    sourceRegisterUniqueIdentifier: info.sourceRegister === 'NZBN' ? null : companyNumberForIndex(index),
    lastUpdatedDate,
    australianBusinessNumber: abn,
    hibernationStatusCode: hibernation,
    hibernationStatusDescription: hibernation ? HIBERNATION_STATUSES[hibernation] : null,
    addresses: { links: [], addressList },
    emailAddresses: contacts.emailAddresses,
    phoneNumbers: contacts.phoneNumbers,
    websites: contacts.websites,
    tradingNames,
    industryClassifications: classifications,
    classifications: classifications.map((item) => ({ ...item })),
    privacySettings,
    'company-details': companyDetails,
    'non-company-details': nonCompanyDetails,
    'supporting-information': null,
    roles: roles.roles,
    tradingAreas,
    gstNumbers,
    paymentBankAccounts,
    businessEthnicityIdentifiers,
  };
}

/** Register timestamps have whole seconds (".000"); rounding up keeps the instant after what it follows. */
const wholeSeconds = (epochMs: number): number => Math.ceil(epochMs / 1000) * 1000;

const HIBERNATION_WEIGHTS = [
  [null, 96],
  ['HIBERNATING', 3],
  ['TRADING', 1],
] as const;

function generatePeople(random: Random, type: EntityTypeCode): Person[] {
  const count = random.weighted(peopleCountWeights(type));
  const people: Person[] = [];
  for (let i = 0; i < count; i++) {
    // Family businesses: the second person is often a spouse or relative sharing the family name.
    const first = people[0];
    people.push(first && random.chance(0.45) ? generateRelative(random, first) : generatePerson(random));
  }
  return people;
}

function generateGst(build: EntityBuild, volunteered: boolean, always: boolean): Entity['gstNumbers'] {
  const { random } = build;
  const chance = build.group === 'publicSector' ? 0.8 : build.group === 'otherRegister' ? 0.3 : 0.6;
  if (!volunteered || !(random.chance(chance) || always)) return [];
  return [
    {
      uniqueIdentifier: build.nextId(),
      gstNumber: generateGstNumber(random),
      purpose: null,
      startDate: build.stamp(dayInLife(build)),
    },
  ];
}

function bankAccount(build: EntityBuild): Entity['paymentBankAccounts'][number] {
  return {
    uniqueIdentifier: build.nextId(),
    accountName: null,
    ...bankAccountFields(generateBankAccount(build.random))!,
    purpose: null,
    // Payment bank accounts joined Primary Business Data in 2021.
    startDate: build.stamp(dayInLife(build, Date.UTC(2021, 2, 1))),
  };
}

function australianBusinessNumber(build: EntityBuild, acn: string | null): string | null {
  if (acn !== null) return build.random.chance(0.6) ? abnForAcn(acn) : null;
  if (build.group === 'nzCompany' && build.random.chance(0.005)) {
    return abnForAcn(String(build.random.int(0, 999_999_999)).padStart(9, '0'));
  }
  return null;
}
