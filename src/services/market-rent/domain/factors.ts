/**
 * The report factors other than area: dwelling type and number of bedrooms, with the spellings the
 * published service uses in its rows.
 */

export const DWELLING_TYPES = ['Apartment', 'Boarding House', 'Flat', 'House', 'Room'] as const;
export type DwellingType = (typeof DWELLING_TYPES)[number];

export const BEDROOM_VALUES = ['1', '2', '3', '4', '5+', 'NA'] as const;
export type Bedrooms = (typeof BEDROOM_VALUES)[number];

/** The label of aggregate rows, for every factor. */
export const ALL = 'ALL';

const dwellingByLowerCase = new Map<string, DwellingType>(DWELLING_TYPES.map((d) => [d.toLowerCase(), d]));

/**
 * Case-insensitive match to the canonical spelling; inner runs of whitespace count as one space so that
 * `boarding  house` still matches. Undefined when the text is not a dwelling type.
 */
export function canonicalDwelling(text: string): DwellingType | undefined {
  return dwellingByLowerCase.get(text.trim().replace(/\s+/g, ' ').toLowerCase());
}

/**
 * Canonical bedroom value. A bare `5` is read as `5+`: in a query string an unencoded `+` decodes to a
 * space, so `num-bedrooms=5+` reaches us as `5 `, and `5` has no other meaning here.
 */
export function canonicalBedrooms(text: string): Bedrooms | undefined {
  const t = text.trim().toUpperCase();
  if (t === '5') return '5+';
  return (BEDROOM_VALUES as readonly string[]).includes(t) ? (t as Bedrooms) : undefined;
}

/** Bedroom count of a bond as recorded (missing or unusable → NA, 5 or more → 5+). */
export function bedroomsOf(count: number | null | undefined): Bedrooms {
  if (count === null || count === undefined || !Number.isInteger(count) || count < 1) return 'NA';
  return count >= 5 ? '5+' : (String(count) as Bedrooms);
}

/** Dwelling type of a bond as recorded; the spec says a bond without one is in most cases a House. */
export function dwellingOf(text: string | null | undefined): DwellingType | undefined {
  if (text === null || text === undefined || text.trim() === '') return 'House';
  return canonicalDwelling(text);
}
