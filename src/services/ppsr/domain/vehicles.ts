/**
 * Motor vehicle identifiers as the secured interests register takes them: the VIN (ISO 3779), the
 * chassis number (vehicles built for markets without VINs, such as used imports from Japan) and the New
 * Zealand registration plate. Values are compared in a canonical form: upper case, no spaces.
 *
 * The VIN's ninth character is the North American check character (weights 8 7 6 5 4 3 2 10 0 9 8 7 6 5
 * 4 3 2 over transliterated characters, remainder of 11, 10 written `X`). Only North American VINs are
 * required to carry it, so the register accepts any well-formed VIN (ours: the published rules name none);
 * the sandbox generates VINs that do carry a valid check character, and `vinCheckCharacter` lets a client
 * test against both kinds.
 */

/** 17 characters of the VIN alphabet: digits and letters except I, O and Q. */
const VIN = /^[A-HJ-NPR-Z0-9]{17}$/;
/** Ours: 4–20 letters, digits and inner hyphens (Japanese chassis numbers read like `NZE121-1234567`). */
const CHASSIS = /^[A-Z0-9](?:[A-Z0-9-]{2,18})[A-Z0-9]$/;
/** New Zealand plates: one to six letters and digits (standard `ABC123`, personalised `KIWI1`). */
const PLATE = /^[A-Z0-9]{1,6}$/;

const WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2] as const;
const LETTER_VALUES: Record<string, number> = {
  A: 1,
  B: 2,
  C: 3,
  D: 4,
  E: 5,
  F: 6,
  G: 7,
  H: 8,
  J: 1,
  K: 2,
  L: 3,
  M: 4,
  N: 5,
  P: 7,
  R: 9,
  S: 2,
  T: 3,
  U: 4,
  V: 5,
  W: 6,
  X: 7,
  Y: 8,
  Z: 9,
};

/** Upper case, spaces and hyphens-as-separators kept out where the identifier has none. */
export const canonicalVin = (value: string): string => value.replace(/\s+/g, '').toUpperCase();
export const canonicalPlate = (value: string): string => value.replace(/[\s-]+/g, '').toUpperCase();
export const canonicalChassis = (value: string): string => value.replace(/\s+/g, '').toUpperCase();

export const isVin = (canonical: string): boolean => VIN.test(canonical);
export const isPlate = (canonical: string): boolean => PLATE.test(canonical);
export const isChassisNumber = (canonical: string): boolean => CHASSIS.test(canonical);

function characterValue(character: string): number {
  const code = character.charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 48;
  const value = LETTER_VALUES[character];
  if (value === undefined) throw new RangeError(`${JSON.stringify(character)} is not a VIN character`);
  return value;
}

/** The check character (`0`–`9` or `X`) a VIN's ninth position should hold. Throws on a malformed VIN. */
export function vinCheckCharacter(vin: string): string {
  if (!isVin(vin)) throw new RangeError(`${JSON.stringify(vin)} is not a 17-character VIN`);
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += characterValue(vin[i]!) * WEIGHTS[i]!;
  const remainder = sum % 11;
  return remainder === 10 ? 'X' : String(remainder);
}

/** Whether a well-formed VIN carries a valid North American check character. */
export const hasValidCheckCharacter = (vin: string): boolean => vin[8] === vinCheckCharacter(vin);

/** A VIN from its other 16 characters (positions 1–8 and 10–17), with the right check character. */
export function withVinCheckCharacter(first8: string, last8: string): string {
  const draft = `${first8}0${last8}`;
  return `${first8}${vinCheckCharacter(draft)}${last8}`;
}
