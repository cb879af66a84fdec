/**
 * Sandbox people (directors, shareholders, partners, trustees, sole traders) with a realistic New
 * Zealand mix of naming traditions: many Māori and Chinese New Zealanders have an English given name,
 * a middle name is common, two middle names less so, and titles are rare in the register.
 */
import type { Random } from '../../../platform/random.ts';
import { NAMES, type NameOrigin, ORIGIN_WEIGHTS, SIKH_SURNAMES, TITLES } from './people-data.ts';

export type Gender = 'male' | 'female';

export interface Person {
  readonly title: string | null;
  readonly firstName: string;
  readonly middleNames: string | null;
  readonly lastName: string;
  readonly gender: Gender;
  readonly origin: NameOrigin;
}

/** How often each tradition uses a given name from the European list instead of its own. */
const ENGLISH_GIVEN_NAME_SHARE: Readonly<Record<NameOrigin, number>> = {
  european: 1,
  maori: 0.5,
  pacific: 0.3,
  chinese: 0.45,
  indian: 0.05,
  otherAsian: 0.3,
};

/** How often a Māori- or Pacific-named person carries an English family name. */
const ENGLISH_SURNAME_SHARE: Readonly<Record<NameOrigin, number>> = {
  european: 1,
  maori: 0.3,
  pacific: 0.1,
  chinese: 0,
  indian: 0,
  otherAsian: 0,
};

export function generatePerson(random: Random, origin: NameOrigin = random.weighted(ORIGIN_WEIGHTS)): Person {
  const gender: Gender = random.chance(0.5) ? 'male' : 'female';
  const own = NAMES[origin];
  const givenFrom = (list: NameOrigin) => random.pick(NAMES[list][gender]);
  const firstName = random.chance(ENGLISH_GIVEN_NAME_SHARE[origin])
    ? givenFrom('european')
    : random.pick(own[gender]);

  const middleCount = random.weighted([
    [0, 35],
    [1, 55],
    [2, 10],
  ] as const);
  const middles: string[] = [];
  for (let i = 0; i < middleCount; i++) {
    // A Chinese New Zealander with an English given name often keeps a Chinese name as a middle name.
    const name =
      origin === 'chinese' && random.chance(0.6)
        ? random.pick(own[gender])
        : givenFrom(origin === 'maori' && random.chance(0.5) ? 'european' : origin);
    if (name !== firstName && !middles.includes(name)) middles.push(name);
  }

  let lastName: string;
  if (origin === 'indian' && random.chance(0.35)) lastName = SIKH_SURNAMES[gender];
  else if (random.chance(ENGLISH_SURNAME_SHARE[origin]) && origin !== 'european') {
    lastName = random.pick(NAMES.european.surnames);
  } else lastName = random.pick(own.surnames);

  const title = random.chance(0.04) ? titleFor(random, gender) : null;
  return {
    title,
    firstName,
    middleNames: middles.length > 0 ? middles.join(' ') : null,
    lastName,
    gender,
    origin,
  };
}

function titleFor(random: Random, gender: Gender): string {
  if (random.chance(0.2)) return 'Dr';
  return gender === 'male' ? 'Mr' : random.pick(TITLES.filter((title) => title !== 'Mr' && title !== 'Dr'));
}

/** "Aroha Mere Ngata": given, middle and family names as the register writes a full name. */
export function fullName(person: Pick<Person, 'firstName' | 'middleNames' | 'lastName'>): string {
  return [person.firstName, person.middleNames, person.lastName].filter((part) => part).join(' ');
}

/** A second person sharing the first one's family name (a spouse or relative in a family business). */
export function generateRelative(random: Random, person: Person): Person {
  const relative = generatePerson(random, person.origin);
  const sikh = Object.values(SIKH_SURNAMES) as string[];
  // Sikh family names follow gender, so a relative's is recomputed rather than copied.
  const lastName = sikh.includes(person.lastName) ? SIKH_SURNAMES[relative.gender] : person.lastName;
  return { ...relative, lastName };
}
