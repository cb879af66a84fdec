/**
 * Identifiers of the IP office: case numbers of patents, trade marks and designs, PCT application and
 * publication numbers, client ids and document identifiers.
 *
 * Published (the data dictionaries, see reference/iponz.md):
 * - Trade mark `ApplicationNumber` / `RegistrationNumber` and design `DesignIdentifier` /
 *   `RegistrationNumber` are positive integers; a trade mark's registration number is its application
 *   number, a design's identifier its registration number.
 * - `InternationalApplicationNumber` is `PCT/CCYYYY/NNNNNN` (receiving office, year, six digits) and
 *   `InternationalPublicationNumber` is `WO/YYYY/NNNNNN`.
 * - Document identifiers (`ObjectIdentifier`) are 16 hexadecimal digits, like `090000018087a2ea`.
 *
 * Ours (not published):
 * - A patent number is a positive integer too. Case numbers and client ids are written in decimal without
 *   sign or leading zeros, at most 9 digits.
 * - Ranges the sandbox allocates in (each kind its own, so a number names one kind): patents 500000–999999,
 *   trade marks 1000000–1999999, designs 400000–499999, clients 100000–999999999. Numbers outside them
 *   are still valid (production data is not ours to shape).
 * - A PCT number's year is 1978 or later (the PCT's first year); letters are read in either case and
 *   written in upper case.
 * - Document identifiers are read in either case and written in lower case; ours start with `09` (the
 *   published example's type prefix) followed by 14 random hex digits.
 */
import { RuleError } from '../../../platform/errors.ts';
import type { CaseKind } from './renewals.ts';

const DECIMAL = /^[1-9][0-9]{0,8}$/;

export interface NumberRange {
  first: number;
  last: number;
}

export const CASE_NUMBER_RANGES: Record<CaseKind, NumberRange> = {
  patent: { first: 500_000, last: 999_999 },
  trademark: { first: 1_000_000, last: 1_999_999 },
  design: { first: 400_000, last: 499_999 },
};
export const CLIENT_ID_RANGE: NumberRange = { first: 100_000, last: 999_999_999 };

/** The path parameter each kind's number is given in (published paths). */
export const CASE_NUMBER_PARAMETERS: Record<CaseKind, string> = {
  patent: 'patent-number',
  trademark: 'trademark-number',
  design: 'design-number',
};

export const isCaseNumber = (text: string): boolean => DECIMAL.test(text);

/** A case number from its text, or RuleError naming `field` (by default the kind's path parameter). */
export function parseCaseNumber(kind: CaseKind, text: string, field = CASE_NUMBER_PARAMETERS[kind]): number {
  if (!DECIMAL.test(text))
    throw new RuleError(field, 'must be a positive whole number of at most 9 digits, without leading zeros');
  return Number(text);
}

/** A client id from its text, or RuleError naming `field`. */
export function parseClientId(text: string, field = 'client-id'): number {
  if (!DECIMAL.test(text))
    throw new RuleError(field, 'must be a positive whole number of at most 9 digits, without leading zeros');
  return Number(text);
}

/** A whole number in a range from random bytes (6 bytes: the bias is below 1e-6 for these ranges). */
function inRange(range: NumberRange, bytes: Uint8Array, what: string): number {
  if (bytes.length < 6) throw new RangeError(`${what} needs 6 random bytes`);
  let value = 0;
  for (let i = 0; i < 6; i++) value = value * 256 + bytes[i]!;
  return range.first + (value % (range.last - range.first + 1));
}

/** A case number of a kind from random bytes, in the kind's sandbox range. */
export const caseNumberFrom = (kind: CaseKind, bytes: Uint8Array): number =>
  inRange(CASE_NUMBER_RANGES[kind], bytes, 'a case number');

/** The `index`-th case number of a kind in its sandbox range (sequential allocation), or RangeError past it. */
export function caseNumberAt(kind: CaseKind, index: number): number {
  const { first, last } = CASE_NUMBER_RANGES[kind];
  if (!Number.isInteger(index) || index < 0 || first + index > last)
    throw new RangeError(`no ${kind} number at index ${index}`);
  return first + index;
}

/** A client id from random bytes, in the sandbox range. */
export const clientIdFrom = (bytes: Uint8Array): number => inRange(CLIENT_ID_RANGE, bytes, 'a client id');

/** The kind a number belongs to by the sandbox ranges, or null outside them. */
export function caseKindOf(number: number): CaseKind | null {
  for (const kind of Object.keys(CASE_NUMBER_RANGES) as CaseKind[]) {
    const { first, last } = CASE_NUMBER_RANGES[kind];
    if (number >= first && number <= last) return kind;
  }
  return null;
}

const PCT_APPLICATION = /^PCT\/([A-Z]{2})(\d{4})\/(\d{6})$/i;
const PCT_PUBLICATION = /^WO\/(\d{4})\/(\d{6})$/i;
export const FIRST_PCT_YEAR = 1978;

export interface PctApplicationNumber {
  /** The receiving office's two-letter code. */
  office: string;
  year: number;
  serial: string;
  /** The canonical form, `PCT/CCYYYY/NNNNNN`. */
  text: string;
}

/** An international application number, or RuleError naming `field`. */
export function parsePctApplicationNumber(
  text: string,
  field = 'InternationalApplicationNumber',
): PctApplicationNumber {
  const match = PCT_APPLICATION.exec(text);
  if (!match) throw new RuleError(field, 'must be PCT/CCYYYY/NNNNNN (office, year, six digits)');
  const year = Number(match[2]);
  if (year < FIRST_PCT_YEAR) throw new RuleError(field, `must have a year from ${FIRST_PCT_YEAR}`);
  const office = match[1]!.toUpperCase();
  return { office, year, serial: match[3]!, text: `PCT/${office}${match[2]}/${match[3]}` };
}

/** An international publication number in canonical form, `WO/YYYY/NNNNNN`, or RuleError naming `field`. */
export function parsePctPublicationNumber(text: string, field = 'InternationalPublicationNumber'): string {
  const match = PCT_PUBLICATION.exec(text);
  if (!match) throw new RuleError(field, 'must be WO/YYYY/NNNNNN (year, six digits)');
  if (Number(match[1]) < FIRST_PCT_YEAR)
    throw new RuleError(field, `must have a year from ${FIRST_PCT_YEAR}`);
  return `WO/${match[1]}/${match[2]}`;
}

/** The canonical PCT application number of an office, year and serial (the sandbox's). */
export function pctApplicationNumber(office: string, year: number, serial: number): string {
  return `PCT/${office.toUpperCase()}${String(year).padStart(4, '0')}/${String(serial).padStart(6, '0')}`;
}

/** The canonical PCT publication number of a year and serial. */
export function pctPublicationNumber(year: number, serial: number): string {
  return `WO/${String(year).padStart(4, '0')}/${String(serial).padStart(6, '0')}`;
}

const DOCUMENT_IDENTIFIER = /^[0-9a-f]{16}$/i;
export const DOCUMENT_IDENTIFIER_PREFIX = '09';

export const isDocumentIdentifier = (text: string): boolean => DOCUMENT_IDENTIFIER.test(text);

/** A document identifier in canonical (lower-case) form, or RuleError naming `field`. */
export function parseDocumentIdentifier(text: string, field = 'ObjectIdentifier'): string {
  if (!DOCUMENT_IDENTIFIER.test(text)) throw new RuleError(field, 'must be 16 hexadecimal digits');
  return text.toLowerCase();
}

/** A document identifier from 7 random bytes: `09` and 14 hex digits. */
export function documentIdentifierFrom(bytes: Uint8Array): string {
  if (bytes.length < 7) throw new RangeError('a document identifier needs 7 random bytes');
  let hex = DOCUMENT_IDENTIFIER_PREFIX;
  for (let i = 0; i < 7; i++) hex += bytes[i]!.toString(16).padStart(2, '0');
  return hex;
}
