/**
 * Primary Business Data items made from what a client sends: the rules beyond the shape (a GST number
 * passes the IRD check, a bank account its bank's check, a BIC code is on the list, a purpose is known,
 * a date parses) and the fields the register sets (identifier, descriptions, start date). A broken rule
 * is a RuleError naming the field and the rule. Pure.
 */
import { RuleError } from '../../../platform/errors.ts';
import { formatNzDateTime, NZ_DATE_TIME_RULE, parseNzDateTime } from '../../../platform/nz-time.ts';
import { findBic } from './bic.ts';
import {
  EMAIL_PURPOSES,
  PHONE_PURPOSES,
  type PurposeInfo,
  purposeDescription,
  TRADING_AREAS,
  WEBSITE_PURPOSES,
} from './codes.ts';
import { bankAccountFields, bankAccountProblem, irdNumberProblem } from './identifiers.ts';
import type {
  Address,
  BusinessEthnicityIdentifier,
  EmailAddress,
  GstNumber,
  IndustryClassification,
  PaymentBankAccount,
  PhoneNumber,
  TradingArea,
  TradingName,
  Website,
} from './schema.ts';

/** What every builder needs: a new identifier, the default start date, and where the item sits in the body. */
export interface ItemContext {
  id: string;
  now: string;
  /** Prefix of field names in problems, e.g. `addresses.0.` */
  at?: string;
}

const field = (context: ItemContext, name: string) => `${context.at ?? ''}${name}`;

/** A register date-time from a client's date (ISO 8601, New Zealand time when no offset). */
export function readDate(value: string | null | undefined, fallback: string, name: string): string {
  if (value === undefined || value === null || value === '') return fallback;
  const epoch = parseNzDateTime(value);
  if (epoch === null) throw new RuleError(name, NZ_DATE_TIME_RULE);
  return formatNzDateTime(epoch);
}

function purpose(list: readonly PurposeInfo[], value: string | null | undefined, name: string) {
  // Blank is none (a JSON null a union with a string coerces to "").
  if (value === undefined || value === null || value === '') return { code: null, description: null };
  const description = purposeDescription(list, value);
  if (description === undefined) {
    throw new RuleError(name, `must be one of ${list.map((p) => p.code).join(', ')}`);
  }
  return { code: value, description };
}

const orNull = <T>(value: T | undefined): T | null => (value === undefined ? null : value);

export function addressItem(input: AddressLike, context: ItemContext): Address {
  return {
    uniqueIdentifier: context.id,
    startDate: readDate(input.startDate, context.now, field(context, 'startDate')),
    endDate: null,
    careOf: orNull(input.careOf),
    address1: input.address1,
    address2: orNull(input.address2),
    address3: orNull(input.address3),
    address4: orNull(input.address4),
    postCode: orNull(input.postCode),
    countryCode: input.countryCode ?? 'NZ',
    addressType: input.addressType as Address['addressType'],
    pafId: orNull(input.pafId),
  };
}

export interface AddressLike {
  /** Null for a person's address on a role (as the register holds residential addresses). */
  addressType: string | null;
  careOf?: string | null;
  address1: string;
  address2?: string | null;
  address3?: string | null;
  address4?: string | null;
  postCode?: string | null;
  countryCode?: string;
  pafId?: string | null;
  startDate?: string;
}

export function phoneItem(
  input: {
    phonePurpose?: string | null;
    phoneCountryCode?: string;
    phoneAreaCode?: string | null;
    phoneNumber: string;
    startDate?: string;
  },
  context: ItemContext,
): PhoneNumber {
  const chosen = purpose(PHONE_PURPOSES, input.phonePurpose, field(context, 'phonePurpose'));
  return {
    uniqueIdentifier: context.id,
    phonePurpose: chosen.code,
    phonePurposeDescription: chosen.description,
    phoneCountryCode: input.phoneCountryCode ?? '64',
    phoneAreaCode: orNull(input.phoneAreaCode),
    phoneNumber: input.phoneNumber,
    startDate: readDate(input.startDate, context.now, field(context, 'startDate')),
  };
}

export function emailItem(
  input: { emailAddress: string; emailPurpose?: string | null; startDate?: string },
  context: ItemContext,
): EmailAddress {
  const chosen = purpose(EMAIL_PURPOSES, input.emailPurpose, field(context, 'emailPurpose'));
  return {
    uniqueIdentifier: context.id,
    emailAddress: input.emailAddress,
    emailPurpose: chosen.code,
    emailPurposeDescription: chosen.description,
    startDate: readDate(input.startDate, context.now, field(context, 'startDate')),
  };
}

export function websiteItem(
  input: { url: string; websitePurpose?: string | null; startDate?: string },
  context: ItemContext,
): Website {
  const chosen = purpose(WEBSITE_PURPOSES, input.websitePurpose, field(context, 'websitePurpose'));
  return {
    uniqueIdentifier: context.id,
    url: input.url,
    websitePurpose: chosen.code,
    websitePurposeDescription: chosen.description,
    startDate: readDate(input.startDate, context.now, field(context, 'startDate')),
  };
}

export function tradingNameItem(
  input: { name: string; startDate?: string },
  context: ItemContext,
): TradingName {
  const name = input.name.trim();
  if (name === '') throw new RuleError(field(context, 'name'), 'must not be blank');
  return {
    uniqueIdentifier: context.id,
    name,
    startDate: readDate(input.startDate, context.now, field(context, 'startDate')),
    endDate: null,
  };
}

export function classificationItem(
  input: { classificationCode: string },
  context: ItemContext,
): IndustryClassification {
  const bic = findBic(input.classificationCode.toUpperCase());
  if (!bic) throw new RuleError(field(context, 'classificationCode'), 'is not on the BIC list');
  return {
    uniqueIdentifier: context.id,
    classificationCode: bic.code,
    classificationDescription: bic.description,
  };
}

export function gstItem(
  input: { gstNumber: string; purpose?: string | null; startDate?: string },
  context: ItemContext,
): GstNumber {
  const digits = input.gstNumber.replace(/[\s-]/g, '');
  const problem = irdNumberProblem(digits);
  if (problem) throw new RuleError(field(context, 'gstNumber'), problem);
  return {
    uniqueIdentifier: context.id,
    gstNumber: digits.padStart(9, '0'),
    purpose: orNull(input.purpose),
    startDate: readDate(input.startDate, context.now, field(context, 'startDate')),
  };
}

export function tradingAreaItem(
  input: { tradingArea: string; startDate?: string },
  context: ItemContext,
): TradingArea {
  const area = TRADING_AREAS.find((known) => known.toLowerCase() === input.tradingArea.trim().toLowerCase());
  if (!area) throw new RuleError(field(context, 'tradingArea'), `must be one of ${TRADING_AREAS.join(', ')}`);
  return {
    uniqueIdentifier: context.id,
    tradingArea: area,
    startDate: readDate(input.startDate, context.now, field(context, 'startDate')),
    endDate: null,
  };
}

/** What a client sends of a payment bank account (the published PaymentBankAccountNumber's own fields). */
export interface BankAccountLike {
  accountName?: string | null;
  bankId: string;
  bankBranch: string;
  accountBase: string;
  accountSuffix: string;
  purpose?: string | null;
  startDate?: string;
}

/** A payment bank account that passes its bank's check, in the usual written widths. */
export function bankAccountItem(input: BankAccountLike, context: ItemContext): PaymentBankAccount {
  const written = [input.bankId, input.bankBranch, input.accountBase, input.accountSuffix]
    .map((part) => part.trim())
    .join('-');
  const problem = bankAccountProblem(written);
  if (problem === 'unknown bank') throw new RuleError(field(context, 'bankId'), problem);
  if (problem) throw new RuleError(field(context, 'accountBase'), `${problem} (bank account ${written})`);
  return {
    uniqueIdentifier: context.id,
    accountName: input.accountName?.trim() || null,
    ...bankAccountFields(written)!,
    purpose: input.purpose?.trim() || null,
    startDate: readDate(input.startDate, context.now, field(context, 'startDate')),
  };
}

export function ethnicityItem(
  input: {
    ethnicity: string;
    identifyingFactors: { identifyingFactor: string; identifyingFactorOtherDescription?: string | null }[];
    startDate?: string;
  },
  context: ItemContext,
): BusinessEthnicityIdentifier {
  const factors = input.identifyingFactors.map((factor) => ({
    identifyingFactor: factor.identifyingFactor,
    identifyingFactorOtherDescription: factor.identifyingFactorOtherDescription?.trim() || null,
  }));
  return {
    uniqueIdentifier: context.id,
    ethnicity: input.ethnicity,
    identifyingFactors: factors,
    startDate: readDate(input.startDate, context.now, field(context, 'startDate')),
  };
}
