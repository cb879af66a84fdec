/**
 * Building blocks of the entity schema (schema.ts): dates, addresses, contacts, names, roles and the
 * smaller Primary Business Data items, with the helpers the schemas share.
 */
import { type Static, type TLiteral, type TSchema, type TUnion, Type } from '@sinclair/typebox';
import { ADDRESS_TYPES, PRIVACY_FLAGS, ROLE_STATUSES } from './codes.ts';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const Strict = { additionalProperties: false } as const;
type Literals<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };
/** A union of string literals that keeps each literal in the static type (so codes stay typed). */
export const literals = <const T extends readonly string[]>(values: T): TUnion<Literals<T>> =>
  Type.Union(values.map((value) => Type.Literal(value))) as unknown as TUnion<Literals<T>>;

/** Every date field: New Zealand wall time with milliseconds and offset, e.g. 2009-03-24T00:00:00.000+1300. */
export const NzDateTime = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}[+-]\\d{4}$',
  examples: ['2009-03-24T00:00:00.000+1300'],
});
export const Nzbn = Type.String({ pattern: '^\\d{13}$', examples: ['9429041925676'] });

export const Link = Type.Object(
  { rel: Type.String(), href: Type.String(), methods: Type.Array(Type.String()) },
  Strict,
);

export const Address = Type.Object(
  {
    uniqueIdentifier: Type.String(),
    startDate: NzDateTime,
    endDate: Nullable(NzDateTime),
    careOf: Nullable(Type.String()),
    address1: Type.String(),
    address2: Nullable(Type.String()),
    address3: Nullable(Type.String()),
    address4: Nullable(Type.String()),
    postCode: Nullable(Type.String()),
    countryCode: Type.String({ pattern: '^[A-Z]{2}$' }),
    addressType: Nullable(literals(ADDRESS_TYPES)),
    pafId: Nullable(Type.String()),
  },
  Strict,
);

export const Addresses = Type.Object({ links: Type.Array(Link), addressList: Type.Array(Address) }, Strict);

export const EmailAddress = Type.Object(
  {
    uniqueIdentifier: Type.String(),
    emailAddress: Type.String(),
    emailPurpose: Nullable(Type.String()),
    emailPurposeDescription: Nullable(Type.String()),
    startDate: NzDateTime,
  },
  Strict,
);

export const PhoneNumber = Type.Object(
  {
    uniqueIdentifier: Type.String(),
    phonePurpose: Nullable(Type.String()),
    phonePurposeDescription: Nullable(Type.String()),
    phoneCountryCode: Type.String(),
    phoneAreaCode: Nullable(Type.String()),
    phoneNumber: Type.String(),
    startDate: NzDateTime,
  },
  Strict,
);

export const Website = Type.Object(
  {
    uniqueIdentifier: Type.String(),
    url: Type.String(),
    websitePurpose: Nullable(Type.String()),
    websitePurposeDescription: Nullable(Type.String()),
    startDate: NzDateTime,
  },
  Strict,
);

export const TradingName = Type.Object(
  {
    uniqueIdentifier: Type.String(),
    name: Type.String(),
    startDate: NzDateTime,
    endDate: Nullable(NzDateTime),
  },
  Strict,
);

export const IndustryClassification = Type.Object(
  {
    uniqueIdentifier: Type.String(),
    classificationCode: Type.String(),
    classificationDescription: Type.String(),
  },
  Strict,
);

export const PrivacySettings = Type.Object(
  {
    ...Object.fromEntries(PRIVACY_FLAGS.map((flag) => [flag, Type.Boolean()])),
    publicSuggestChangesYn: Type.Boolean(),
  } as Record<(typeof PRIVACY_FLAGS)[number] | 'publicSuggestChangesYn', ReturnType<typeof Type.Boolean>>,
  Strict,
);

export const PersonName = {
  firstName: Type.String(),
  middleNames: Nullable(Type.String()),
  lastName: Type.String(),
};

export const RolePerson = Type.Object({ title: Nullable(Type.String()), ...PersonName }, Strict);
export const RoleEntity = Type.Object({ nzbn: Nullable(Nzbn), entityName: Type.String() }, Strict);

export const Role = Type.Object(
  {
    uniqueIdentifier: Type.String(),
    roleType: Type.String(),
    roleStatus: literals(ROLE_STATUSES),
    startDate: NzDateTime,
    endDate: Nullable(NzDateTime),
    rolePerson: Nullable(RolePerson),
    roleEntity: Nullable(RoleEntity),
    roleAddress: Type.Array(Address),
    roleAsicAddress: Nullable(Address),
    asicDirectorshipYn: Type.Boolean(),
    asicName: Nullable(Type.String()),
    acn: Nullable(Type.String()),
  },
  Strict,
);

export const TradingArea = Type.Object(
  {
    uniqueIdentifier: Type.String(),
    tradingArea: Type.String(),
    startDate: NzDateTime,
    endDate: Nullable(NzDateTime),
  },
  Strict,
);

export const GstNumber = Type.Object(
  {
    uniqueIdentifier: Type.String(),
    gstNumber: Type.String(),
    purpose: Nullable(Type.String()),
    startDate: NzDateTime,
  },
  Strict,
);

/** The published PaymentBankAccountNumber: a New Zealand bank account in its four parts. */
export const PaymentBankAccount = Type.Object(
  {
    uniqueIdentifier: Type.String(),
    accountName: Nullable(Type.String()),
    bankId: Type.String({ pattern: '^[0-9]{2}$' }),
    bankBranch: Type.String({ pattern: '^[0-9]{4}$' }),
    accountBase: Type.String({ pattern: '^[0-9]{7,8}$' }),
    accountSuffix: Type.String({ pattern: '^[0-9]{2,4}$' }),
    purpose: Nullable(Type.String()),
    startDate: NzDateTime,
  },
  Strict,
);

export const BusinessEthnicityIdentifier = Type.Object(
  {
    uniqueIdentifier: Type.String(),
    ethnicity: Type.String(),
    identifyingFactors: Type.Array(
      Type.Object(
        { identifyingFactor: Type.String(), identifyingFactorOtherDescription: Nullable(Type.String()) },
        Strict,
      ),
    ),
    startDate: NzDateTime,
  },
  Strict,
);

export type Address = Static<typeof Address>;
export type Role = Static<typeof Role>;
export type RolePerson = Static<typeof RolePerson>;
export type PhoneNumber = Static<typeof PhoneNumber>;
export type EmailAddress = Static<typeof EmailAddress>;
export type Website = Static<typeof Website>;
export type TradingName = Static<typeof TradingName>;
export type IndustryClassification = Static<typeof IndustryClassification>;
export type PrivacySettings = Static<typeof PrivacySettings>;
export type TradingArea = Static<typeof TradingArea>;
export type GstNumber = Static<typeof GstNumber>;
export type PaymentBankAccount = Static<typeof PaymentBankAccount>;
export type BusinessEthnicityIdentifier = Static<typeof BusinessEthnicityIdentifier>;
