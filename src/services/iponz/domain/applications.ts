/**
 * Applications filed through the SOAP operations: a PCT national phase patent application (`/patent`) and
 * a trade mark application (`/trademark`), checked before anything is written, and the fees they carry.
 * Pure rules: the route parses the XML into these inputs, the store writes what they allow.
 *
 * Published (reference/iponz.md): `TransactionCode` is `Patent E-Filing` / `Trade Mark E-Filing`; the
 * references (`PatentApplicationReference`, `ApplicationReference`) are required, at most 255 characters,
 * echoed on success; `ApplicationContact` is Representative or Applicant; a trade mark names
 * `RegistrationOfficeCode` `NZ` and `IntendedUseCode` YAPP or NAPP; a patent needs the number of a
 * published international application, New Zealand applicant details or a client id, and
 * `ExaminationRequested` (true adds the examination fee).
 *
 * Ours (not published):
 * - "An existing international application" is one in the register's table of published international
 *   applications (migration 002), not already entered in New Zealand (no patent case carries its number),
 *   entered within 31 months of its priority date (Patents Regulations 2014 reg 36: the national phase
 *   deadline), the day of entry the sandbox clock's New Zealand date.
 * - Applicant details: a name and an address (one to three lines, a city, an optional postcode, a
 *   `CountryCode`); the applicant becomes a new client of the register. A trade mark's applicant may be
 *   overseas; a PCT national phase request needs "New Zealand applicant details" (`CountryCode` NZ, a
 *   client named by id with a New Zealand address). A New Zealand postcode is four digits; another
 *   country's 1–12 letters, digits, spaces or hyphens. An agent may be named by client id.
 * - A trade mark names its `MarkTitle` (1–255 characters) and one to 45 classes, each a Nice class 1–45
 *   given once with a description of its goods or services (1–2,000 characters).
 * - Fees: trade mark application per class; patent application, plus examination when requested
 *   (billing/domain/fee-schedule.ts amounts).
 */

import { addMonths } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import { type PctApplicationNumber, parsePctApplicationNumber } from './identifiers.ts';

export const PATENT_TRANSACTION_CODE = 'Patent E-Filing';
export const TRADE_MARK_TRANSACTION_CODE = 'Trade Mark E-Filing';
export const APPLICATION_CONTACTS = ['Representative', 'Applicant'] as const;
export const INTENDED_USE_CODES = ['YAPP', 'NAPP'] as const;
export const NATIONAL_PHASE_MONTHS = 31;
export const REFERENCE_MAX = 255;
export const TITLE_MAX = 255;
export const DESCRIPTION_MAX = 2_000;
export const NAME_MAX = 200;
export const ADDRESS_LINE_MAX = 100;
export const TRANSACTION_IDENTIFIER_MAX = 100;

export type ApplicationContact = (typeof APPLICATION_CONTACTS)[number];

export interface ApplicantDetails {
  name: string;
  clientType: 'Organisation' | 'Person';
  line1: string;
  line2?: string | undefined;
  line3?: string | undefined;
  city: string;
  postcode?: string | undefined;
  countryCode: string;
}

/** The applicant: an existing client by id, or details (a new client). */
export type Applicant = { clientId: number } | { details: ApplicantDetails };

interface Common {
  transactionIdentifier?: string | undefined;
  transactionCode: string;
  reference: string;
  applicationContact: string;
  applicant: Applicant;
  agentClientId?: number | undefined;
}

export interface PatentApplicationInput extends Common {
  internationalApplicationNumber: string;
  examinationRequested: boolean;
  /** The title; by default the international application's. */
  title?: string | undefined;
  /** Attachments already streamed to the document store: their names and formats. */
  attachments: { role: 'amended-specification' | 'translation'; name: string }[];
}

export interface TradeMarkApplicationInput extends Common {
  registrationOfficeCode: string;
  intendedUseCode: string;
  markTitle: string;
  classes: { classNumber: number; description: string }[];
}

/** What the register holds of a published international application. */
export interface InternationalApplication {
  internationalApplicationNumber: string;
  internationalPublicationNumber: string;
  internationalFilingDate: string;
  priorityDate: string;
  priorityCountryCode: string;
  title: string;
}

export interface FeeLine {
  feeCode: string;
  quantity: number;
}

const text = (field: string, value: string, max: number, min = 1): string => {
  const trimmed = value.trim();
  if (trimmed.length < min) throw new RuleError(field, 'must not be blank');
  if (trimmed.length > max) throw new RuleError(field, `must be at most ${max} characters`);
  return trimmed;
};

function checkCommon(input: Common, code: string, referenceField: string): void {
  if (input.transactionIdentifier !== undefined)
    text('TransactionIdentifier', input.transactionIdentifier, TRANSACTION_IDENTIFIER_MAX);
  if (input.transactionCode !== code) throw new RuleError('TransactionCode', `must be "${code}"`);
  text(referenceField, input.reference, REFERENCE_MAX);
  if (!(APPLICATION_CONTACTS as readonly string[]).includes(input.applicationContact))
    throw new RuleError('ApplicationContact', `must be one of ${APPLICATION_CONTACTS.join(', ')}`);
  if ('details' in input.applicant) checkApplicantDetails(input.applicant.details);
  if (input.applicationContact === 'Representative' && input.agentClientId === undefined)
    throw new RuleError('AgentClientIdentifier', 'is required when ApplicationContact is Representative');
}

/** Applicant details (any country), or RuleError naming the field under `Applicant`. */
export function checkApplicantDetails(details: ApplicantDetails): void {
  text('Applicant.Name', details.name, NAME_MAX);
  if (details.clientType !== 'Organisation' && details.clientType !== 'Person')
    throw new RuleError('Applicant.ClientType', 'must be Organisation or Person');
  text('Applicant.Address.AddressLine1', details.line1, ADDRESS_LINE_MAX);
  if (details.line2 !== undefined) text('Applicant.Address.AddressLine2', details.line2, ADDRESS_LINE_MAX, 0);
  if (details.line3 !== undefined) text('Applicant.Address.AddressLine3', details.line3, ADDRESS_LINE_MAX, 0);
  text('Applicant.Address.City', details.city, ADDRESS_LINE_MAX);
  if (!/^[A-Z]{2}$/.test(details.countryCode))
    throw new RuleError('Applicant.Address.CountryCode', 'must be a two-letter ISO 3166-1 country code');
  if (details.postcode !== undefined) checkPostcode(details.postcode.trim(), details.countryCode);
}

/** A postcode of the country: four digits in New Zealand, else 1–12 letters, digits, spaces or hyphens. */
export function checkPostcode(postcode: string, countryCode: string): void {
  const field = 'Applicant.Address.Postcode';
  if (countryCode === 'NZ') {
    if (!/^[0-9]{4}$/.test(postcode))
      throw new RuleError(field, 'must be four digits for a New Zealand address');
  } else if (!/^[A-Za-z0-9][A-Za-z0-9 -]{0,11}$/.test(postcode))
    throw new RuleError(
      field,
      'must be 1 to 12 letters, digits, spaces or hyphens, starting with a letter or digit',
    );
}

/** The PCT national phase's rule: New Zealand applicant details (a client's country is checked by its caller). */
export function checkNewZealandApplicant(applicant: Applicant, clientCountry?: string): void {
  if ('details' in applicant && applicant.details.countryCode !== 'NZ')
    throw new RuleError(
      'Applicant.Address.CountryCode',
      'must be NZ: a PCT national phase request needs New Zealand applicant details',
    );
  if ('clientId' in applicant && clientCountry !== undefined && clientCountry !== 'NZ')
    throw new RuleError(
      'Applicant.ClientIdentifier',
      'must name a client with a New Zealand address: a PCT national phase request needs a New Zealand applicant',
    );
}

/** The trade mark application checked; RuleError naming the first field that breaks a rule. */
export function checkTradeMarkApplication(input: TradeMarkApplicationInput): void {
  checkCommon(input, TRADE_MARK_TRANSACTION_CODE, 'ApplicationReference');
  if (input.registrationOfficeCode !== 'NZ') throw new RuleError('RegistrationOfficeCode', 'must be NZ');
  if (!(INTENDED_USE_CODES as readonly string[]).includes(input.intendedUseCode))
    throw new RuleError('IntendedUseCode', `must be one of ${INTENDED_USE_CODES.join(', ')}`);
  text('MarkTitle', input.markTitle, TITLE_MAX);
  if (input.classes.length === 0) throw new RuleError('GoodsAndServices', 'must name at least one class');
  const seen = new Set<number>();
  for (const [i, entry] of input.classes.entries()) {
    const field = `GoodsAndServices.ClassDescription.${i}`;
    if (!Number.isInteger(entry.classNumber) || entry.classNumber < 1 || entry.classNumber > 45)
      throw new RuleError(`${field}.ClassNumber`, 'must be a Nice class from 1 to 45');
    if (seen.has(entry.classNumber))
      throw new RuleError(`${field}.ClassNumber`, `names class ${entry.classNumber} a second time`);
    seen.add(entry.classNumber);
    text(`${field}.Description`, entry.description, DESCRIPTION_MAX);
  }
}

/**
 * The PCT national phase application checked against the international application it names (undefined:
 * not in the register) and whether it has entered New Zealand already, on the day of entry `today`.
 */
export function checkPatentApplication(
  input: PatentApplicationInput,
  international: InternationalApplication | undefined,
  alreadyEntered: boolean,
  today: string,
): PctApplicationNumber {
  checkCommon(input, PATENT_TRANSACTION_CODE, 'PatentApplicationReference');
  checkNewZealandApplicant(input.applicant);
  const number = parsePctApplicationNumber(input.internationalApplicationNumber);
  if (input.title !== undefined) text('PatentTitle', input.title, TITLE_MAX);
  if (!international)
    throw new RuleError(
      'InternationalApplicationNumber',
      'must be the number of a published international application',
    );
  if (alreadyEntered)
    throw new RuleError(
      'InternationalApplicationNumber',
      'has already entered the New Zealand national phase',
    );
  const deadline = nationalPhaseDeadline(international.priorityDate);
  if (today > deadline)
    throw new RuleError(
      'InternationalApplicationNumber',
      `is past its national phase deadline (${NATIONAL_PHASE_MONTHS} months from the priority date: ${deadline})`,
    );
  return number;
}

/** The last day a PCT application may enter the national phase. */
export const nationalPhaseDeadline = (priorityDate: string): string =>
  addMonths(priorityDate, NATIONAL_PHASE_MONTHS);

/** The fees of a patent application: the application, and examination when requested. */
export function patentFees(examinationRequested: boolean): FeeLine[] {
  const lines: FeeLine[] = [{ feeCode: 'IPONZ_PATENT_APPLICATION', quantity: 1 }];
  if (examinationRequested) lines.push({ feeCode: 'IPONZ_PATENT_EXAMINATION', quantity: 1 });
  return lines;
}

/** The fee of a trade mark application: per class. */
export const tradeMarkFees = (classes: number): FeeLine[] => [
  { feeCode: 'IPONZ_TRADE_MARK_APPLICATION', quantity: classes },
];
