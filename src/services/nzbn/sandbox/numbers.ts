/**
 * The sandbox number plan. Every number is derived from the entity's index alone, so generator chunks
 * can run in parallel and still never collide, and fixtures and later registrations have ranges of
 * their own. A business number is 9429 (GS1 New Zealand) + an eight-digit body + a GS1 check digit.
 *
 * | body range              | used for                                         |
 * |-------------------------|--------------------------------------------------|
 * | 00 000 100 – 00 000 999 | fixed test-case entities (fixtures.ts)           |
 * | 10 000 000 – 69 999 999 | generated entities, a permutation of the index   |
 * | 70 000 000 – 79 999 999 | entities registered through POST /entities       |
 * | 80 000 000 – 89 999 999 | organisation part numbers (OPNs): the fixtures',  |
 * |                         | then the register's (from 80 001 000)            |
 * | 90 000 000 – 99 999 999 | the generated entities' organisation parts       |
 */
import { withCheckDigit } from '../../../platform/gs1.ts';

export const NZBN_PREFIX = '9429';
export const FIXTURE_BODY_START = 100;
export const GENERATED_BODY_START = 10_000_000;
export const GENERATED_BODY_COUNT = 60_000_000;
export const REGISTRATION_BODY_START = 70_000_000;
export const ORGANISATION_PART_BODY_START = 80_000_000;

/** Generator indexes at and above this are reserved for fixtures (their sub-item identifiers). */
export const FIXTURE_INDEX_START = GENERATED_BODY_COUNT - 1_000;
/** The largest index the generator accepts for ordinary entities. */
export const MAX_GENERATED_INDEX = FIXTURE_INDEX_START - 1;

// index → body is i·A + B mod M with A coprime to M (M = 2^8·3·5^7), a bijection that scatters
// neighbouring indexes so business numbers do not look sequential.
const MULTIPLIER = 7_919_077;
const OFFSET = 1_234_567;
const INVERSE = modularInverse(MULTIPLIER, GENERATED_BODY_COUNT);

export function nzbnFromBody(body: number): string {
  if (!Number.isInteger(body) || body < 0 || body > 99_999_999) throw new RangeError(`no NZBN body ${body}`);
  return withCheckDigit(NZBN_PREFIX + String(body).padStart(8, '0'));
}

export function nzbnForIndex(index: number): string {
  assertIndex(index);
  return nzbnFromBody(GENERATED_BODY_START + mulMod(index, MULTIPLIER, GENERATED_BODY_COUNT, OFFSET));
}

/** The generator index behind a generated business number, or undefined for any other number. */
export function indexForNzbn(nzbn: string): number | undefined {
  if (!/^9429\d{9}$/.test(nzbn)) return undefined;
  const body = Number(nzbn.slice(4, 12));
  if (body < GENERATED_BODY_START || body >= GENERATED_BODY_START + GENERATED_BODY_COUNT) return undefined;
  const shifted = (body - GENERATED_BODY_START - OFFSET + GENERATED_BODY_COUNT) % GENERATED_BODY_COUNT;
  const index = mulMod(shifted, INVERSE, GENERATED_BODY_COUNT, 0);
  return nzbnForIndex(index) === nzbn ? index : undefined;
}

export function fixtureNzbn(fixtureNumber: number): string {
  if (!Number.isInteger(fixtureNumber) || fixtureNumber < 0 || fixtureNumber > 899) {
    throw new RangeError(`fixture numbers run 0–899, got ${fixtureNumber}`);
  }
  return nzbnFromBody(FIXTURE_BODY_START + fixtureNumber);
}

/** Company numbers: seven digits, unique per index (another permutation, so they do not track NZBNs). */
export function companyNumberForIndex(index: number): string {
  assertIndex(index);
  return String(1_000_000 + mulMod(index, 4_561_019, 9_000_000, 765_431));
}

/**
 * The `uniqueIdentifier` of the slot-th sub-item (address, role, phone …) of an entity. Unique over
 * the whole register; the store allocates identifiers from FIRST_STORE_UNIQUE_IDENTIFIER upwards.
 */
export const SLOTS_PER_ENTITY = 100;
export const FIRST_STORE_UNIQUE_IDENTIFIER = 10_000_000_000;

export function uniqueIdentifier(index: number, slot: number): string {
  if (slot < 0 || slot >= SLOTS_PER_ENTITY) throw new RangeError(`sub-item slot ${slot} out of 0–99`);
  return String(1_000_000 + index * SLOTS_PER_ENTITY + slot);
}

/** Generated organisation parts: at most four an entity, numbered by its index (90,000,000 up). */
export const GENERATED_PART_BODY_START = 90_000_000;
export const PARTS_PER_ENTITY = 4;
/** The largest index whose entity may have parts: the part numbers' range holds no more. */
export const MAX_INDEX_WITH_PARTS = (100_000_000 - GENERATED_PART_BODY_START) / PARTS_PER_ENTITY - 1;
/** Sub-items of generated parts: 20 a part, from 7,000,000,000 (entities' are below 6,001,000,000). */
const GENERATED_PART_ITEMS_START = 7_000_000_000;
const SLOTS_PER_PART = 20;

/** The number of the k-th generated organisation part of entity `index`. */
export function generatedPartNumber(index: number, k: number): string {
  if (index > MAX_INDEX_WITH_PARTS || k < 0 || k >= PARTS_PER_ENTITY) {
    throw new RangeError(`no organisation part ${k} of entity ${index}`);
  }
  return nzbnFromBody(GENERATED_PART_BODY_START + index * PARTS_PER_ENTITY + k);
}

/** The `uniqueIdentifier` of the slot-th sub-item of the k-th generated part of entity `index`. */
export function generatedPartItemId(index: number, k: number, slot: number): string {
  if (slot < 0 || slot >= SLOTS_PER_PART) throw new RangeError(`part sub-item slot ${slot} out of 0–19`);
  return String(GENERATED_PART_ITEMS_START + (index * PARTS_PER_ENTITY + k) * SLOTS_PER_PART + slot);
}

function assertIndex(index: number): void {
  if (!Number.isInteger(index) || index < 0 || index >= GENERATED_BODY_COUNT) {
    throw new RangeError(`entity index must be an integer in 0–${GENERATED_BODY_COUNT - 1}, got ${index}`);
  }
}

/** (a·b + c) mod m without losing precision: a, b < m ≤ 6·10^7 keeps the product below 2^53. */
function mulMod(a: number, b: number, m: number, c: number): number {
  return ((((a % m) * (b % m)) % m) + c) % m;
}

function modularInverse(a: number, m: number): number {
  let [oldR, r] = [a, m];
  let [oldS, s] = [1, 0];
  while (r !== 0) {
    const q = Math.floor(oldR / r);
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  if (oldR !== 1) throw new Error(`${a} has no inverse modulo ${m}`);
  return ((oldS % m) + m) % m;
}
