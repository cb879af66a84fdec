/**
 * Sandbox business names: company, society, trust, partnership and public sector names in the styles
 * of the New Zealand registers, and the trading names businesses use beside them.
 *
 * A name has a legal form (what `entityName` holds, capitalised where the source register capitalises)
 * and a stem (the distinctive part, e.g. "Kowhai Ridge Plumbing") that trading names, email domains
 * and websites are derived from.
 */
import type { Random } from '../../../platform/random.ts';
import type { DivisionLetter } from '../domain/bic.ts';
import { ENTITY_TYPES, type EntityTypeCode } from '../domain/codes.ts';
import {
  ADJECTIVES,
  CLUB_KINDS,
  GENERIC_WORDS,
  GOVERNMENT_KINDS,
  GOVERNMENT_TOPICS,
  INDUSTRY_WORDS,
  LANDFORMS,
  MAORI_WORDS,
  NOUNS,
  OVERSEAS_SUFFIXES,
  SCHOOL_KINDS,
  TRUST_KINDS,
} from './names-data.ts';
import type { Person } from './people.ts';

export interface NameContext {
  /** ANZSIC division of the main activity, so "Plumbing" goes with construction. */
  readonly division: DivisionLetter;
  /** A suburb or town the business is in. */
  readonly place: string;
  /** The district's main town and the region's short name, for councils and regional bodies. */
  readonly town: string;
  readonly district: string;
  readonly region: string;
  /** People behind the business (first is the principal); surnames feed family-business names. */
  readonly people: readonly Person[];
}

export interface GeneratedName {
  readonly legalName: string;
  readonly stem: string;
}

export function generateEntityName(
  random: Random,
  type: EntityTypeCode,
  context: NameContext,
): GeneratedName {
  const { stem, legalName } = nameFor(random, type, context);
  return { stem, legalName: ENTITY_TYPES[type].upperCaseName ? legalName.toUpperCase() : legalName };
}

function nameFor(random: Random, type: EntityTypeCode, context: NameContext): GeneratedName {
  const surname = context.people[0]?.lastName ?? random.pick(['Smith', 'Wilson', 'Ngata']);
  switch (type) {
    case 'LTD':
      return withSuffix(companyStem(random, context), 'Limited');
    case 'ULTD':
      return withSuffix(companyStem(random, context), 'Unlimited');
    case 'COOP': {
      const stem = `${random.pick([context.region, context.town, random.pick(MAORI_WORDS)])} ${random.pick(['Farmers', 'Growers', 'Dairy', 'Hardware', 'Pharmacy', 'Grocers'])}`;
      return withSuffix(
        stem,
        random.pick(['Co-operative Limited', 'Co-operative Company Limited', 'Co-operative Society Limited']),
      );
    }
    case 'ASIC':
      return withSuffix(companyStem(random, context), random.pick(['Pty Limited', 'Pty Ltd', 'Limited']));
    case 'NON_ASIC':
      return withSuffix(
        `${random.pick(NOUNS)} ${random.pick(GENERIC_WORDS)}`,
        random.pick(OVERSEAS_SUFFIXES),
      );
    case 'I':
      return withSuffix(`${clubPlace(random, context)} ${random.pick(CLUB_KINDS)}`, 'Incorporated');
    case 'T': {
      const stem = random.chance(0.3) ? `${surname} Family` : clubPlace(random, context);
      return withSuffix(stem, random.pick(TRUST_KINDS));
    }
    case 'B':
      return withSuffix(context.region, 'Building Society');
    case 'D':
      return withSuffix(
        random.chance(0.5) ? context.region : `${random.pick(ADJECTIVES)} ${random.pick(NOUNS)}`,
        'Credit Union',
      );
    case 'F':
      return withSuffix(
        random.chance(0.5) ? `${context.town} Oddfellows` : `${context.town}`,
        'Friendly Society',
      );
    case 'N':
      return withSuffix(
        `${context.town} ${random.pick(['Farmers', 'Growers', 'Workers', 'Fishermen'])}`,
        'Society Limited',
      );
    case 'S':
      return random.chance(0.5)
        ? withSuffix(context.town, 'Licensing Trust')
        : withSuffix(`Te ${random.pick(MAORI_WORDS)}`, 'Maori Trust Board');
    case 'Y':
      return withSuffix(companyStem(random, context), random.pick(['Limited Partnership', 'LP']));
    case 'Z':
      return withSuffix(
        `${random.pick(NOUNS)} ${random.pick(['Capital', 'Fund', 'Partners', 'Ventures'])}`,
        random.pick(['L.P.', 'LP', 'Limited Partnership']),
      );
    case 'Sole_Trader': {
      const person = context.people[0];
      const legalName = person ? `${person.firstName} ${person.lastName}` : surname;
      return { legalName, stem: tradingStem(random, context) };
    }
    case 'Partnership':
      return partnershipName(random, context);
    case 'Trading_Trust': {
      const legalName = random.weighted([
        [`${surname} Family Trust`, 5],
        [`The ${surname} Family Trust`, 2],
        [`${surname} Trading Trust`, 1],
        [`${random.pick(MAORI_WORDS)} ${random.pick(LANDFORMS)} Trust`, 2],
      ] as const);
      return { legalName, stem: tradingStem(random, context) };
    }
    case 'GovtCentral': {
      const topic = random.pick(GOVERNMENT_TOPICS);
      const legalName = random.chance(0.3)
        ? `Office of ${topic}`
        : `${topic} ${random.pick(GOVERNMENT_KINDS)}`;
      return { legalName, stem: topic };
    }
    case 'GovtLocal':
      return random.weighted([
        [{ legalName: `${context.district} Council`, stem: context.district }, 5],
        [{ legalName: `${context.region} Regional Council`, stem: context.region }, 1],
        [{ legalName: `${context.place} Community Board`, stem: context.place }, 2],
      ] as const);
    case 'GovtEdu': {
      const kind = random.pick(SCHOOL_KINDS);
      if (random.chance(0.08))
        return { legalName: `Te Kura Kaupapa Maori o ${context.place}`, stem: context.place };
      return {
        legalName: `${kind === 'College' || kind === 'High School' ? context.town : context.place} ${kind}`,
        stem: context.place,
      };
    }
    case 'GovtOther':
      return random.pick([
        { legalName: `${context.region} Fish and Game Council`, stem: context.region },
        { legalName: `${context.town} Reserve Board`, stem: context.town },
        { legalName: `${context.town} Airport Authority`, stem: context.town },
        { legalName: `${context.region} Conservation Board`, stem: context.region },
      ]);
  }
}

const withSuffix = (stem: string, suffix: string): GeneratedName => ({
  stem,
  legalName: `${stem} ${suffix}`,
});

/** The distinctive part of a company name, in the patterns the Companies Register is full of. */
function companyStem(random: Random, context: NameContext): string {
  const surname = context.people[0]?.lastName ?? 'Smith';
  const industry = () => random.pick(INDUSTRY_WORDS[context.division]);
  const pattern = random.weighted([
    ['family', 24],
    ['maori-land', 20],
    ['place', 14],
    ['adjective', 12],
    ['initials', 8],
    ['two-surnames', 7],
    ['address', 5],
    ['acronym', 5],
    ['english-land', 5],
  ] as const);
  switch (pattern) {
    case 'family':
      return `${surname} ${random.chance(0.5) ? industry() : random.pick(['Holdings', 'Investments', 'Family Holdings', 'Enterprises', 'Group', 'Properties'])}`;
    case 'maori-land':
      return `${random.pick(MAORI_WORDS)} ${random.pick(LANDFORMS)} ${random.chance(0.5) ? industry() : random.pick(GENERIC_WORDS)}`;
    case 'place':
      return `${random.chance(0.5) ? context.town : context.place} ${industry()}`;
    case 'adjective':
      return `${random.pick(ADJECTIVES)} ${random.pick(NOUNS)} ${industry()}`;
    case 'initials': {
      const first = context.people[0]?.firstName ?? 'J';
      const second = context.people[1]?.firstName;
      const initials = second
        ? `${first[0]} & ${second[0]}`
        : `${first[0]}${random.pick(['A', 'B', 'C', 'D', 'J', 'K', 'M', 'R', 'S', 'T'])}`;
      return `${initials} ${surname} ${industry()}`;
    }
    case 'two-surnames': {
      const other = context.people[1]?.lastName;
      return other && other !== surname ? `${surname} & ${other}` : `${surname} & Sons`;
    }
    case 'address':
      return `${random.int(1, 400)} ${random.pick(MAORI_WORDS)} ${random.pick(['Road', 'Street', 'Avenue', 'Drive'])}`;
    case 'acronym':
      return `${letters(random, random.int(2, 4))} ${industry()}`;
    case 'english-land':
      return `${random.pick(ADJECTIVES)} ${random.pick(LANDFORMS)} ${random.pick(GENERIC_WORDS)}`;
  }
}

function letters(random: Random, count: number): string {
  let text = '';
  for (let i = 0; i < count; i++) text += String.fromCharCode(65 + random.int(0, 25));
  return text;
}

function clubPlace(random: Random, context: NameContext): string {
  return random.chance(0.7) ? context.place : random.chance(0.5) ? context.town : random.pick(MAORI_WORDS);
}

function partnershipName(random: Random, context: NameContext): GeneratedName {
  const [first, second] = context.people;
  const surname = first?.lastName ?? 'Smith';
  const legalName =
    second && second.lastName !== surname
      ? `${surname} & ${second.lastName}`
      : second
        ? `${first?.firstName} & ${second.firstName} ${surname}`
        : `${surname} Partnership`;
  return {
    legalName: random.chance(0.2) ? `${surname} Family Partnership` : legalName,
    stem: tradingStem(random, context),
  };
}

/** The name a sole trader, partnership or trust trades under: "Ngata Plumbing", "Tui Bay Cafe". */
function tradingStem(random: Random, context: NameContext): string {
  const industry = random.pick(INDUSTRY_WORDS[context.division]);
  const surname = context.people[0]?.lastName ?? 'Smith';
  return random.weighted([
    [`${surname} ${industry}`, 4],
    [`${context.place} ${industry}`, 2],
    [`${random.pick(MAORI_WORDS)} ${industry}`, 2],
    [`${random.pick(ADJECTIVES)} ${random.pick(NOUNS)} ${industry}`, 2],
  ] as const);
}

/**
 * A trading name beside a legal name: most often the stem itself (the name without "Limited"), else a
 * shorter brand in the same trade.
 */
export function generateTradingName(random: Random, stem: string, context: NameContext): string {
  const industry = random.pick(INDUSTRY_WORDS[context.division]);
  return random.weighted([
    [stem, 5],
    [`${context.place} ${industry}`, 2],
    [`${random.pick(MAORI_WORDS)} ${industry}`, 2],
    [`The ${random.pick(NOUNS)} ${industry}`, 1],
  ] as const);
}
