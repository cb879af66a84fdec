/**
 * The published JSON shape of a business number register entity (GET /entities/{nzbn}) as TypeBox
 * schemas: the contract that routes, OpenAPI and the sandbox generator share. Field names are the
 * published ones (`reference/nzbn.md` and live client models); every key is always present, with
 * `null` for an unknown value, because clients index keys without checking.
 *
 * TypeBox is plain data (no Fastify), so this is a domain file.
 */
import { type Static, Type } from '@sinclair/typebox';
import { ENTITY_STATUS_CODES, ENTITY_TYPE_CODES } from './codes.ts';
import {
  Address,
  Addresses,
  BusinessEthnicityIdentifier,
  EmailAddress,
  GstNumber,
  IndustryClassification,
  literals,
  Nullable,
  Nzbn,
  NzDateTime,
  PaymentBankAccount,
  PersonName,
  PhoneNumber,
  PrivacySettings,
  Role,
  Strict,
  TradingArea,
  TradingName,
  Website,
} from './schema-parts.ts';

export * from './schema-parts.ts';

export const IndividualShareholder = Type.Object({ ...PersonName, fullName: Type.String() }, Strict);
export const OtherShareholder = Type.Object(
  {
    currentEntityName: Type.String(),
    nzbn: Nullable(Nzbn),
    companyNumber: Nullable(Type.String()),
    entityType: Nullable(Type.String()),
  },
  Strict,
);

export const Shareholder = Type.Object(
  {
    type: literals(['Individual', 'Other'] as const),
    appointmentDate: NzDateTime,
    vacationDate: Nullable(NzDateTime),
    individualShareholder: Nullable(IndividualShareholder),
    otherShareholder: Nullable(OtherShareholder),
    shareholderAddress: Address,
  },
  Strict,
);

export const HistoricShareholder = Type.Object(
  {
    type: literals(['Individual', 'Other'] as const),
    appointmentDate: NzDateTime,
    vacationDate: Nullable(NzDateTime),
    historicShareholderAddress: Address,
    historicIndividualShareholder: Nullable(IndividualShareholder),
    historicOtherShareholder: Nullable(OtherShareholder),
  },
  Strict,
);

export const Shareholding = Type.Object(
  {
    numberOfShares: Type.Integer({ minimum: 1 }),
    shareAllocation: Type.Array(
      Type.Object({ allocation: Type.Integer({ minimum: 1 }), shareholder: Type.Array(Shareholder) }, Strict),
    ),
    historicShareholder: Type.Array(HistoricShareholder),
  },
  Strict,
);

export const UltimateHoldingCompany = Type.Object(
  {
    yn: Type.Boolean(),
    name: Nullable(Type.String()),
    type: Nullable(Type.String()),
    number: Nullable(Type.String()),
    nzbn: Nullable(Nzbn),
    country: Nullable(Type.String()),
    effectiveDate: Nullable(NzDateTime),
    ultimateHoldingCompanyAddress: Type.Array(Address),
  },
  Strict,
);

export const InsolvencyAppointee = Type.Object(
  {
    ...PersonName,
    fullName: Type.String(),
    organisationName: Nullable(Type.String()),
    appointmentDate: NzDateTime,
    vacationDate: Nullable(NzDateTime),
    email: Nullable(Type.String()),
    insolvencyAppointeePhoneNumber: Type.Array(PhoneNumber),
    insolvencyAppointeeAddress: Nullable(Address),
  },
  Strict,
);

export const Insolvency = Type.Object(
  {
    commenced: NzDateTime,
    insolvencyType: Type.String(),
    insolvencyReport: Type.Array(
      Type.Object({ name: Type.String(), filed: Type.Boolean(), date: Nullable(NzDateTime) }, Strict),
    ),
    insolvencyAppointee: Type.Array(InsolvencyAppointee),
  },
  Strict,
);

export const CompanyDetails = Type.Object(
  {
    annualReturnFilingMonth: Nullable(Type.Integer({ minimum: 1, maximum: 12 })),
    financialReportFilingMonth: Nullable(Type.Integer({ minimum: 1, maximum: 12 })),
    nzsxCode: Nullable(Type.String()),
    annualReturnLastFiled: Nullable(NzDateTime),
    hasConstitutionFiled: Type.Boolean(),
    countryOfOrigin: Type.String(),
    overseasCompany: literals(['Y', 'N'] as const),
    extensiveShareholding: Type.Boolean(),
    stockExchangeListed: Type.Boolean(),
    shareholding: Nullable(Shareholding),
    ultimateHoldingCompany: UltimateHoldingCompany,
    australianCompanyNumber: Nullable(Type.String()),
    insolvencies: Type.Array(Insolvency),
    removalCommenced: Type.Boolean(),
  },
  Strict,
);

export const NonCompanyDetails = Type.Object(
  {
    annualReturnFilingMonth: Nullable(Type.Integer({ minimum: 1, maximum: 12 })),
    countryOfOrigin: Nullable(Type.String()),
    registeredUnionStatus: Nullable(Type.String()),
    charitiesNumber: Nullable(Type.String()),
    balanceDate: Nullable(NzDateTime),
  },
  Strict,
);

export const Entity = Type.Object(
  {
    entityStatusCode: literals(ENTITY_STATUS_CODES),
    entityName: Type.String(),
    nzbn: Nzbn,
    entityTypeCode: literals(ENTITY_TYPE_CODES),
    entityTypeDescription: Type.String(),
    entityStatusDescription: Type.String(),
    registrationDate: NzDateTime,
    sourceRegister: Type.String(),
    sourceRegisterUniqueIdentifier: Nullable(Type.String()),
    lastUpdatedDate: NzDateTime,
    australianBusinessNumber: Nullable(Type.String()),
    hibernationStatusCode: Nullable(Type.String()),
    hibernationStatusDescription: Nullable(Type.String()),
    addresses: Addresses,
    emailAddresses: Type.Array(EmailAddress),
    phoneNumbers: Type.Array(PhoneNumber),
    websites: Type.Array(Website),
    tradingNames: Type.Array(TradingName),
    industryClassifications: Type.Array(IndustryClassification),
    classifications: Type.Array(IndustryClassification),
    privacySettings: PrivacySettings,
    'company-details': Nullable(CompanyDetails),
    'non-company-details': Nullable(NonCompanyDetails),
    'supporting-information': Nullable(Type.Object({})),
    roles: Type.Array(Role),
    tradingAreas: Type.Array(TradingArea),
    gstNumbers: Type.Array(GstNumber),
    paymentBankAccounts: Type.Array(PaymentBankAccount),
    businessEthnicityIdentifiers: Type.Array(BusinessEthnicityIdentifier),
  },
  Strict,
);

export type Entity = Static<typeof Entity>;
export type CompanyDetails = Static<typeof CompanyDetails>;
export type NonCompanyDetails = Static<typeof NonCompanyDetails>;
export type Shareholder = Static<typeof Shareholder>;
export type Shareholding = Static<typeof Shareholding>;
export type HistoricShareholder = Static<typeof HistoricShareholder>;
export type Insolvency = Static<typeof Insolvency>;
