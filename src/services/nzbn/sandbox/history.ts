/**
 * Previous names of generated entities: search matches them (`previousEntityNames` of a search item)
 * and the name history lists them. They come from a stream of their own (the register key of
 * "<seed>/history"), so adding or changing history never changes the entities themselves.
 */

import type { Geography } from '../../../platform/geography.ts';
import { formatNzDateTime, parseNzDateTime } from '../../../platform/nz-time.ts';
import type { DivisionLetter } from '../domain/bic.ts';
import { ENTITY_TYPES } from '../domain/codes.ts';
import type { Entity } from '../domain/schema.ts';
import { pickArea } from './addresses.ts';
import { generateEntityName } from './names.ts';
import type { Person } from './people.ts';
import { entityStream, type RegisterKey, registerKey } from './stream.ts';
import { randomDay } from './time.ts';

export interface PreviousName {
  readonly name: string;
  /** When the entity took the name, and when it gave it up (the next name's start). */
  readonly startDate: string;
  readonly endDate: string;
}

const keys = new Map<string, RegisterKey>();

/** Names an entity was registered under before its current one, oldest first (most have none). */
export function generatePreviousNames(
  seed: string | number,
  index: number,
  entity: Entity,
  geography: Geography,
): PreviousName[] {
  const info = ENTITY_TYPES[entity.entityTypeCode];
  // NZBN-only and public sector entities were never on a register that records name changes.
  if (info.sourceRegister === 'NZBN') return [];
  const name = `${seed}/history`;
  let key = keys.get(name);
  if (!key) {
    key = registerKey(name);
    keys.set(name, key);
  }
  const random = entityStream(key, index);
  if (!random.chance(0.12)) return [];

  const registered = parseNzDateTime(entity.registrationDate)!;
  const lastUpdated = parseNzDateTime(entity.lastUpdatedDate)!;
  const count = random.chance(0.8) ? 1 : 2;
  const changes: number[] = [];
  for (let i = 0; i < count; i++) changes.push(randomDay(random, registered, lastUpdated));
  changes.sort((a, b) => a - b);
  if (changes.some((change, i) => change <= (i === 0 ? registered : changes[i - 1]!))) return [];

  const home = pickArea(random, geography);
  const people = entity.roles
    .map((role) => role.rolePerson)
    .filter((person) => person !== null)
    .map((person): Person => ({ ...person, gender: 'male', origin: 'european' }));
  const division = (entity.industryClassifications[0]?.classificationCode[0] ?? 'L') as DivisionLetter;
  const context = {
    division,
    place: home.suburb,
    town: home.district.town,
    district: home.district.name,
    region: home.region.shortName,
    people,
  };
  const names = changes.map((change, i) => ({
    name: generateEntityName(random, entity.entityTypeCode, context).legalName,
    startDate: formatNzDateTime(i === 0 ? registered : changes[i - 1]!),
    endDate: formatNzDateTime(change),
  }));
  // A change of name is to another name: a draw that repeats the next name makes no history.
  const repeats = names.some((n, i) => n.name === (names[i + 1]?.name ?? entity.entityName));
  return repeats ? [] : names;
}
