/**
 * Bodies of the Primary Business Data updates, POST /entities and organisation parts. Identifiers,
 * descriptions and (by default) start dates are the register's to set; the schemas take what a client
 * supplies. Values with rules beyond their shape (GST numbers, bank accounts, BIC codes, purposes,
 * dates) are checked in domain/items.ts, which names the field and the rule.
 */
import { type Static, Type } from '@sinclair/typebox';
import {
  ADDRESS_TYPES,
  BUSINESS_ETHNICITIES,
  ETHNICITY_IDENTIFYING_FACTORS,
  PRIVACY_FLAGS,
  ROLE_STATUSES,
  ROLE_TYPES,
} from '../domain/codes.ts';
import { literals, Strict } from '../domain/schema.ts';

const Text = (maxLength: number, minLength = 1) => Type.String({ minLength, maxLength });
const OptionalText = (maxLength: number) =>
  Type.Optional(Type.Union([Type.String({ maxLength }), Type.Null()]));
const StartDate = Type.Optional(
  Type.String({ maxLength: 40, description: 'ISO 8601; New Zealand time when no offset is given' }),
);

export const AddressInput = Type.Object(
  {
    addressType: literals(ADDRESS_TYPES),
    careOf: OptionalText(100),
    address1: Text(100),
    address2: OptionalText(100),
    address3: OptionalText(100),
    address4: OptionalText(100),
    postCode: Type.Optional(Type.Union([Type.String({ pattern: '^[0-9A-Za-z -]{1,10}$' }), Type.Null()])),
    countryCode: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$', default: 'NZ' })),
    pafId: OptionalText(20),
    startDate: StartDate,
  },
  {
    ...Strict,
    examples: [
      {
        addressType: 'POSTAL',
        address1: 'PO Box 1234',
        address3: 'Auckland',
        postCode: '1140',
        countryCode: 'NZ',
      },
    ],
  },
);

export const PhoneInput = Type.Object(
  {
    phonePurpose: OptionalText(40),
    phoneCountryCode: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', default: '64' })),
    phoneAreaCode: Type.Optional(Type.Union([Type.String({ pattern: '^[0-9]{1,4}$' }), Type.Null()])),
    phoneNumber: Type.String({ pattern: '^[0-9]{5,12}$' }),
    startDate: StartDate,
  },
  { ...Strict, examples: [{ phonePurpose: 'Primary', phoneAreaCode: '9', phoneNumber: '3771234' }] },
);

export const EmailInput = Type.Object(
  {
    emailAddress: Type.String({ pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', maxLength: 254 }),
    emailPurpose: OptionalText(40),
    startDate: StartDate,
  },
  { ...Strict, examples: [{ emailAddress: 'office@example.test', emailPurpose: 'Primary' }] },
);

export const WebsiteInput = Type.Object(
  {
    url: Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 500 }),
    websitePurpose: OptionalText(40),
    startDate: StartDate,
  },
  { ...Strict, examples: [{ url: 'https://www.example.test', websitePurpose: 'Primary' }] },
);

export const TradingNameInput = Type.Object(
  { name: Text(200), startDate: StartDate },
  { ...Strict, examples: [{ name: 'Sandbox Test Trading' }] },
);
export const ClassificationInput = Type.Object(
  { classificationCode: Type.String({ pattern: '^[A-Za-z][0-9]{6}$' }) },
  { ...Strict, examples: [{ classificationCode: 'F332310' }] },
);
export const GstInput = Type.Object(
  { gstNumber: Text(20), purpose: OptionalText(40), startDate: StartDate },
  // Inland Revenue's published example of a valid IRD number.
  { ...Strict, examples: [{ gstNumber: '49-091-850' }] },
);
export const TradingAreaInput = Type.Object(
  { tradingArea: Text(60), startDate: StartDate },
  { ...Strict, examples: [{ tradingArea: 'Auckland' }] },
);
/** The published PaymentBankAccountNumber as a request: the register sets its identifier. */
export const BankAccountInput = Type.Object(
  {
    accountName: OptionalText(200),
    bankId: Type.String({ pattern: '^[0-9]{2}$', description: 'The bank: 2 digits' }),
    bankBranch: Type.String({ pattern: '^[0-9]{4}$', description: 'The branch: 4 digits' }),
    accountBase: Type.String({ pattern: '^[0-9]{7,8}$', description: 'The account: 7 digits' }),
    accountSuffix: Type.String({ pattern: '^[0-9]{2,4}$', description: 'The suffix: 2 or 3 digits' }),
    purpose: OptionalText(40),
    startDate: StartDate,
  },
  // The bank account validation rules' published example (bank 01, branch 0902).
  {
    ...Strict,
    examples: [{ bankId: '01', bankBranch: '0902', accountBase: '0068389', accountSuffix: '00' }],
  },
);
export const EthnicityInput = Type.Object(
  {
    ethnicity: literals(BUSINESS_ETHNICITIES),
    identifyingFactors: Type.Array(
      Type.Object(
        {
          identifyingFactor: literals(ETHNICITY_IDENTIFYING_FACTORS),
          identifyingFactorOtherDescription: OptionalText(200),
        },
        Strict,
      ),
      { minItems: 1, maxItems: ETHNICITY_IDENTIFYING_FACTORS.length },
    ),
    startDate: StartDate,
  },
  {
    ...Strict,
    examples: [
      { ethnicity: 'MAORI', identifyingFactors: [{ identifyingFactor: 'OWNERSHIP_50_PERCENT_OR_MORE' }] },
    ],
  },
);

export const PrivacyInput = Type.Partial(
  Type.Object(
    Object.fromEntries([...PRIVACY_FLAGS, 'publicSuggestChangesYn'].map((flag) => [flag, Type.Boolean()])),
  ),
  { ...Strict, minProperties: 1, examples: [{ phonePrivateInformation: true }] },
);

export const RoleInput = Type.Object(
  {
    uniqueIdentifier: Type.Optional(Type.String({ pattern: '^[0-9]{1,20}$' })),
    roleType: literals(ROLE_TYPES),
    roleStatus: Type.Optional(literals(ROLE_STATUSES)),
    startDate: StartDate,
    endDate: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()])),
    rolePerson: Type.Optional(
      Type.Union([
        Type.Object(
          {
            title: OptionalText(20),
            firstName: Text(100),
            middleNames: OptionalText(100),
            lastName: Text(100),
          },
          Strict,
        ),
        Type.Null(),
      ]),
    ),
    roleEntity: Type.Optional(
      Type.Union([
        Type.Object(
          {
            nzbn: Type.Optional(Type.Union([Type.String({ pattern: '^[0-9]{13}$' }), Type.Null()])),
            entityName: Text(200),
          },
          Strict,
        ),
        Type.Null(),
      ]),
    ),
    roleAddress: Type.Optional(Type.Array(AddressInput, { maxItems: 5 })),
  },
  Strict,
);

export const AbnInput = Type.Object(
  { australianBusinessNumber: Type.Union([Type.String({ maxLength: 20 }), Type.Null()]) },
  // A number that passes the ATO's check (the README's example).
  { ...Strict, examples: [{ australianBusinessNumber: '51824753556' }] },
);

/** The published EntityStatus as a request: the register sets the description and the end. */
export const StatusRequest = Type.Object(
  {
    entityStatusCode: Type.String({
      maxLength: 40,
      description: '50, 90 or 91 (or Registered, Inactive, …)',
    }),
    startDate: StartDate,
    endDate: Type.Optional(Type.Null({ description: 'A new status has no end: null or left out' })),
    statusReasonCode: OptionalText(40),
    entityStatusDescription: OptionalText(100),
    comment: OptionalText(1000),
  },
  // Inactive: for an entity the register keeps itself (a sole trader, partnership or trust).
  {
    ...Strict,
    examples: [{ entityStatusCode: '90', statusReasonCode: 'CEASED', comment: 'Stopped trading' }],
  },
);

export type AddressInput = Static<typeof AddressInput>;
export type PhoneInput = Static<typeof PhoneInput>;
export type EmailInput = Static<typeof EmailInput>;
export type WebsiteInput = Static<typeof WebsiteInput>;
export type TradingNameInput = Static<typeof TradingNameInput>;
export type ClassificationInput = Static<typeof ClassificationInput>;
export type GstInput = Static<typeof GstInput>;
export type TradingAreaInput = Static<typeof TradingAreaInput>;
export type BankAccountInput = Static<typeof BankAccountInput>;
export type EthnicityInput = Static<typeof EthnicityInput>;
export type PrivacyInput = Static<typeof PrivacyInput>;
export type RoleInput = Static<typeof RoleInput>;
export type AbnInput = Static<typeof AbnInput>;
export type StatusRequest = Static<typeof StatusRequest>;
