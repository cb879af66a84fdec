/**
 * The Primary Business Data of a generated entity: addresses by type, phones, emails, websites,
 * trading names, industry classifications, trading areas, GST numbers, payment bank accounts, business
 * ethnicity identifiers and privacy settings. Voluntary items appear only for entities that chose to
 * give them (see profile.ts), and live entities give more than removed ones.
 */
import { bicCodesInDivision, type DivisionLetter } from '../domain/bic.ts';
import {
  type AddressType,
  BUSINESS_ETHNICITIES,
  EMAIL_PURPOSES,
  ETHNICITY_IDENTIFYING_FACTORS,
  PHONE_PURPOSES,
  TRADING_AREAS,
  WEBSITE_PURPOSES,
} from '../domain/codes.ts';
import type {
  Address,
  BusinessEthnicityIdentifier,
  EmailAddress,
  IndustryClassification,
  PhoneNumber,
  TradingName,
  Website,
} from '../domain/schema.ts';
import { generateNzAddress, generateOverseasAddress, pickArea } from './addresses.ts';
import { addressItem, dayInLife, type EntityBuild } from './build.ts';
import { businessEmail, generateLandline, generateMobile, websiteUrl } from './contacts.ts';
import { generateTradingName, type NameContext } from './names.ts';

export function generateAddresses(build: EntityBuild): Address[] {
  const { random, home } = build;
  const list: Address[] = [];
  const add = (type: AddressType, lines = generateNzAddress(random, home), start = build.registered) =>
    list.push(addressItem(build, lines, type, start));
  switch (build.group) {
    case 'nzCompany': {
      const registered = generateNzAddress(random, home);
      const movedIn = random.chance(0.3) ? dayInLife(build) : build.registered;
      add('REGISTERED', registered, movedIn);
      const service = random.chance(0.7)
        ? registered
        : { ...generateNzAddress(random, home), careOf: careOf(build) };
      add('SERVICE', service, movedIn);
      if (random.chance(0.1)) add('RECORDS', registered, movedIn);
      if (random.chance(0.05)) add('SHAREREGISTER', registered, movedIn);
      if (random.chance(0.35))
        add(
          'POSTAL',
          generateNzAddress(random, home, random.chance(0.5) ? 'postal' : 'street'),
          dayInLife(build),
        );
      if (random.chance(0.15)) add('OFFICE', generateNzAddress(random, home), dayInLife(build));
      if (random.chance(0.05)) add('DELIVERY', generateNzAddress(random, home), dayInLife(build));
      if (random.chance(0.05)) add('INVOICE', generateNzAddress(random, home, 'postal'), dayInLife(build));
      break;
    }
    case 'overseasCompany': {
      const country = build.type === 'ASIC' ? 'AU' : build.people.length > 0 ? 'US' : 'GB';
      add('REGISTERED', generateOverseasAddress(random, random.chance(0.7) ? country : 'SG'));
      add('SERVICE', { ...generateNzAddress(random, home), careOf: careOf(build) });
      if (random.chance(0.5)) add('OFFICE', generateNzAddress(random, home));
      break;
    }
    case 'otherRegister':
      add('REGISTERED');
      if (random.chance(0.5)) add('POSTAL', generateNzAddress(random, home, 'postal'));
      break;
    case 'optIn': {
      const rural = random.chance(0.15) ? 'rural' : 'street';
      if (random.chance(0.8)) add('OFFICE', generateNzAddress(random, home, rural));
      if (list.length === 0 || random.chance(0.5))
        add('POSTAL', generateNzAddress(random, home, random.chance(0.4) ? 'postal' : rural));
      break;
    }
    case 'publicSector':
      add('OFFICE');
      add('POSTAL', generateNzAddress(random, pickArea(random, build.geography, home.region.code), 'postal'));
      if (random.chance(0.3)) add('DELIVERY');
      break;
  }
  return list;
}

function careOf(build: EntityBuild): string {
  const surname = build.random.pick([
    'Smith',
    'Harcourt',
    'Ngata',
    'Lee',
    'Fraser',
    'Patel',
    'Morrison',
    'Tipene',
  ]);
  return `${surname} ${build.random.pick(['Chartered Accountants', 'Lawyers', 'Accounting Limited', 'Legal'])}`;
}

export interface Contacts {
  readonly phoneNumbers: PhoneNumber[];
  readonly emailAddresses: EmailAddress[];
  readonly websites: Website[];
}

/** `complete` guarantees at least one phone and one email (for test cases that need them). */
export function generateContacts(
  build: EntityBuild,
  domain: string,
  volunteered: boolean,
  complete = false,
): Contacts {
  const { random } = build;
  if (!volunteered) return { phoneNumbers: [], emailAddresses: [], websites: [] };
  const phoneCount = Math.max(
    complete ? 1 : 0,
    random.weighted([
      [0, 15],
      [1, 65],
      [2, 20],
    ] as const),
  );
  const phoneNumbers = Array.from({ length: phoneCount }, (_, i): PhoneNumber => {
    const purpose = random.chance(0.4) ? null : i === 0 ? PHONE_PURPOSES[0]! : random.pick(PHONE_PURPOSES);
    const mobile = build.group === 'optIn' ? random.chance(0.7) : random.chance(0.4);
    return {
      uniqueIdentifier: build.nextId(),
      phonePurpose: purpose?.code ?? null,
      phonePurposeDescription: purpose?.description ?? null,
      ...(mobile ? generateMobile(random) : generateLandline(random, build.home)),
      startDate: build.stamp(dayInLife(build)),
    };
  });
  const emailCount = Math.max(
    complete ? 1 : 0,
    random.weighted([
      [0, 10],
      [1, 75],
      [2, 15],
    ] as const),
  );
  const emailAddresses = Array.from({ length: emailCount }, (_, i): EmailAddress => {
    const purpose = i === 0 ? EMAIL_PURPOSES[0]! : random.pick(EMAIL_PURPOSES.slice(1));
    return {
      uniqueIdentifier: build.nextId(),
      emailAddress: businessEmail(random, domain, build.people[0]),
      emailPurpose: purpose.code,
      emailPurposeDescription: purpose.description,
      startDate: build.stamp(dayInLife(build)),
    };
  });
  const websites: Website[] = random.chance(0.45)
    ? [
        {
          uniqueIdentifier: build.nextId(),
          url: websiteUrl(random, domain),
          websitePurpose: WEBSITE_PURPOSES[0]!.code,
          websitePurposeDescription: WEBSITE_PURPOSES[0]!.description,
          startDate: build.stamp(dayInLife(build)),
        },
      ]
    : [];
  return { phoneNumbers, emailAddresses, websites };
}

export function generateTradingNames(
  build: EntityBuild,
  stem: string,
  context: NameContext,
  volunteered: boolean,
): TradingName[] {
  const { random } = build;
  const optIn = build.group === 'optIn';
  const chance = optIn ? 0.75 : build.group === 'publicSector' ? 0 : 0.35;
  if (!volunteered || !random.chance(chance)) return [];
  const names: TradingName[] = [];
  const add = (name: string, start: number, end: number | null): void => {
    if (names.some((existing) => existing.name === name)) return;
    const endDate = end === null ? null : build.stampDay(end);
    names.push({ uniqueIdentifier: build.nextId(), name, startDate: build.stampDay(start), endDate });
  };
  // A sole trader, partnership or trust registers mainly to put the name it trades under on record.
  add(
    optIn ? stem : generateTradingName(random, stem, context),
    optIn ? build.registered : dayInLife(build),
    null,
  );
  if (random.chance(0.15)) add(generateTradingName(random, stem, context), dayInLife(build), null);
  if (random.chance(0.08)) {
    const start = dayInLife(build);
    const end = dayInLife(build, start);
    if (end > start) add(generateTradingName(random, stem, context), start, end);
  }
  return names;
}

export function generateClassifications(
  build: EntityBuild,
  division: DivisionLetter,
  has: boolean,
): IndustryClassification[] {
  if (!has) return [];
  const codes = bicCodesInDivision(division);
  const first = build.random.pick(codes);
  const picks = build.random.chance(0.05) ? [first, build.random.pick(codes)] : [first];
  return picks
    .filter((bic, i) => i === 0 || bic.code !== first.code)
    .map((bic) => ({
      uniqueIdentifier: build.nextId(),
      classificationCode: bic.code,
      classificationDescription: bic.description,
    }));
}

export function generateTradingAreas(build: EntityBuild, volunteered: boolean) {
  const { random } = build;
  if (!volunteered || !random.chance(0.25)) return [];
  const areas = new Set<string>([random.chance(0.3) ? 'Nationwide' : build.home.region.shortName]);
  if (random.chance(0.3)) areas.add(random.pick(TRADING_AREAS));
  return [...areas].map((tradingArea) => ({
    uniqueIdentifier: build.nextId(),
    tradingArea,
    startDate: build.stamp(dayInLife(build)),
    endDate: null,
  }));
}

export function generateEthnicity(build: EntityBuild): BusinessEthnicityIdentifier[] {
  const { random } = build;
  const origin = build.people[0]?.origin;
  const maori = origin === 'maori' ? 0.35 : 0.01;
  const pasifika = origin === 'pacific' ? 0.25 : 0.002;
  const ethnicity = random.chance(maori)
    ? BUSINESS_ETHNICITIES[0]
    : random.chance(pasifika)
      ? BUSINESS_ETHNICITIES[1]
      : null;
  if (ethnicity === null || build.group === 'publicSector' || !build.live) return [];
  // The draws of the factors the generator once listed are kept (one each), so every later draw of the
  // entity, and so the sandbox, stays as it was; how many there were names the ownership band.
  const drawn = random.int(0, 3);
  for (let i = drawn; i > 0; i--) random.next();
  const band = drawn < 2 ? 0 : drawn === 2 ? 1 : 2;
  return [
    {
      uniqueIdentifier: build.nextId(),
      ethnicity,
      identifyingFactors: [
        { identifyingFactor: ETHNICITY_IDENTIFYING_FACTORS[band]!, identifyingFactorOtherDescription: null },
      ],
      // Ethnicity identifiers were added to the register in 2021.
      startDate: build.stamp(dayInLife(build, Date.UTC(2021, 5, 1))),
    },
  ];
}
