import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { declaredHeader } from '../../platform/http/declared-headers.ts';
import { pagingProperties } from '../../platform/http/pagination.ts';
import { Problem } from '../../platform/http/problem-schema.ts';
import type { Environment } from '../contract.ts';
import { COLLATERAL_TYPE_CODES, MAX_DESCRIPTION } from './domain/collateral.ts';
import { ORGANISATION_TYPES } from './domain/parties.ts';
import { MAX_PAGE_SIZE, SEARCH_KINDS } from './domain/search.ts';

/**
 * The contract of the secured interests register API (version 2). Published names where they are known
 * (this service's README says which are published and which are ours): `searchBy`, `legitimateSearchReason`,
 * `searchByMotorVehicle` `{ registrationPlate | vin }`, `page`, `pageSize`, `searchId`,
 * `searchCertificateNumber`, the transaction record's fields and `statusCode`. The schemas check types and
 * shapes; the register's rules (lengths, formats, combinations, dates) live in domain/, which names the
 * field and the rule in every 400. The request headers are the exception: their schemas hold their
 * whole rule (`HEADERS`, `transactionHeaders`).
 */

const text = (description: string, options: Record<string, unknown> = {}) =>
  Type.String({ description, ...options });
const optional = <T extends TSchema>(schema: T) => Type.Optional(schema);
const nzDate = (description: string) =>
  Type.String({ description: `${description} (YYYY-MM-DD, New Zealand)` });
const nzDateTime = (description: string) =>
  Type.String({ description: `${description} (New Zealand time, ISO 8601 with offset)` });

export const MotorVehicle = Type.Object({
  make: text('Make, e.g. Toyota'),
  model: text('Model, e.g. Hilux'),
  year: Type.Integer({ description: 'Model year' }),
  vin: optional(text('Vehicle identification number: 17 letters and digits, no I, O or Q')),
  chassisNumber: optional(text('Chassis number, for vehicles without a VIN')),
  registrationPlate: optional(text('New Zealand registration plate')),
});

export const Aircraft = Type.Object({
  manufacturer: text('Manufacturer'),
  model: text('Model'),
  serialNumber: text('Manufacturer’s serial number'),
});

export const Collateral = Type.Object({
  collateralType: Type.String({ enum: COLLATERAL_TYPE_CODES, description: 'One of the 13 collateral types' }),
  description: optional(text(`Free text, at most ${MAX_DESCRIPTION} characters`)),
  motorVehicles: optional(
    Type.Array(MotorVehicle, { description: 'For GOODS_MOTOR_VEHICLES: 1–100 vehicles' }),
  ),
  aircraft: optional(Type.Array(Aircraft, { description: 'For GOODS_AIRCRAFT: 1–100 aircraft' })),
});

export const Debtor = Type.Object({
  debtorType: Type.String({ enum: ['organisation', 'person'] }),
  organisationName: optional(text('Organisation debtor: its name')),
  organisationType: optional(
    Type.String({ enum: [...ORGANISATION_TYPES], description: 'Organisation debtor: COMPANY unless given' }),
  ),
  nzbn: optional(
    text('Organisation debtor: its business number (not for trusts, partnerships, sole traders)'),
  ),
  incorporationNumber: optional(text('Organisation debtor: its incorporation number')),
  firstName: optional(text('Person debtor: first name')),
  middleNames: optional(text('Person debtor: middle names')),
  lastName: optional(text('Person debtor: last name')),
  dateOfBirth: optional(nzDate('Person debtor: date of birth')),
});

export const SecuredParty = Type.Object({
  name: text('Name of the secured party'),
  email: text('Where the verification statement is sent'),
});

/**
 * The documents' example bodies use the sandbox's fixed test cases (README, "Sandbox data"): the fixture
 * vehicle (VIN 1FTFW1E52AFA12345) and person debtor; the secured party is made up (example.test).
 */
const EXAMPLE_SECURED_PARTY = { name: 'Example Finance Limited', email: 'securities@example.test' };
const EXAMPLE_VIN = '1FTFW1E52AFA12345';

export const RegistrationRequest = Type.Object(
  {
    debtors: Type.Array(Debtor),
    securedParties: optional(Type.Array(SecuredParty)),
    securedPartyGroupId: optional(
      text('Register under this secured party group instead of listing secured parties'),
    ),
    collaterals: Type.Array(Collateral),
    expiryDate: optional(nzDate('At most five years from today; five years from today if left out')),
  },
  {
    examples: [
      {
        debtors: [
          { debtorType: 'person', firstName: 'Aroha', lastName: 'Fixture', dateOfBirth: '1984-02-29' },
        ],
        securedParties: [EXAMPLE_SECURED_PARTY],
        collaterals: [
          {
            collateralType: 'GOODS_MOTOR_VEHICLES',
            motorVehicles: [{ make: 'Ford', model: 'F-150', year: 2010, vin: EXAMPLE_VIN }],
          },
        ],
        // Shorter than the default five years, so the statement can be renewed at once (the renewal's
        // example: five years from the day it is sent). A date, so it holds until then: after 30 June
        // 2029 the register refuses it as in the past, naming the field.
        expiryDate: '2029-06-30',
      },
    ],
  },
);
export type RegistrationRequest = Static<typeof RegistrationRequest>;

export const AmendmentRequest = Type.Object(
  {
    debtors: Type.Array(Debtor),
    securedParties: optional(Type.Array(SecuredParty)),
    collaterals: Type.Array(Collateral),
  },
  {
    // The registration's example with the fixture vehicle's plate added.
    examples: [
      {
        debtors: [
          { debtorType: 'person', firstName: 'Aroha', lastName: 'Fixture', dateOfBirth: '1984-02-29' },
        ],
        securedParties: [EXAMPLE_SECURED_PARTY],
        collaterals: [
          {
            collateralType: 'GOODS_MOTOR_VEHICLES',
            motorVehicles: [
              { make: 'Ford', model: 'F-150', year: 2010, vin: EXAMPLE_VIN, registrationPlate: 'FIX123' },
            ],
          },
        ],
      },
    ],
  },
);
export type AmendmentRequest = Static<typeof AmendmentRequest>;

export const RenewalRequest = Type.Object(
  {
    expiryDate: optional(nzDate('The new expiry: later than the current one, at most five years from today')),
  },
  // Five years from today, the default: later than the registration example's expiry (30 June 2029).
  { examples: [{}] },
);

export const FinancingStatement = Type.Object({
  registrationNumber: text('16 letters and digits, e.g. FH04R729A8ND9224'),
  version: Type.Integer(),
  status: Type.String({ enum: ['Registered', 'Discharged', 'Expired'] }),
  registrationDate: nzDateTime('When it was registered'),
  expiryDate: nzDate('In force to the end of this date'),
  dischargeDate: optional(nzDateTime('When it was discharged')),
  securedPartyGroupId: optional(text('The secured party group it is registered under')),
  debtors: Type.Array(Debtor),
  securedParties: Type.Array(SecuredParty),
  collaterals: Type.Array(Collateral),
});

export const RegistrationAnswer = Type.Intersect([
  FinancingStatement,
  Type.Object({
    financingStatementPin: text('Shown once: needed to act on the statement on the website'),
    debtorPin: text('Shown once: the debtor’s PIN'),
  }),
]);

export const VersionList = Type.Object({
  registrationNumber: Type.String(),
  versions: Type.Array(
    Type.Intersect([
      FinancingStatement,
      Type.Object({ change: Type.String({ enum: ['Registered', 'Amended', 'Renewed', 'Discharged'] }) }),
    ]),
  ),
});

export const VerificationStatementList = Type.Object({
  registrationNumber: Type.String(),
  verificationStatements: Type.Array(
    Type.Object({
      verificationStatementId: Type.String(),
      version: Type.Integer({ description: 'The version it confirms' }),
      change: Type.String({ enum: ['Registered', 'Amended', 'Renewed', 'Discharged'] }),
      to: Type.String({ description: 'Where it was mailed: the group’s email, or a secured party’s' }),
      subject: Type.String(),
      text: Type.String({ description: 'As mailed: collateral under the published type names' }),
      createdDate: nzDateTime('When it was made (with its change)'),
      sentDate: Type.Union([nzDateTime('When it was mailed'), Type.Null()]),
    }),
  ),
});

export const SearchRequest = Type.Object(
  {
    searchBy: optional(Type.String({ enum: [...SEARCH_KINDS] })),
    legitimateSearchReason: optional(Type.Union([Type.String(), Type.Boolean()], { description: '"yes"' })),
    searchId: optional(text('Pages an earlier search without a second fee')),
    page: optional(Type.Integer({ description: '1-based' })),
    pageSize: optional(Type.Integer({ description: `1–${MAX_PAGE_SIZE}, default 20` })),
    searchByDebtorOrganisation: optional(
      Type.Object({
        organisationName: optional(Type.String()),
        exactMatch: optional(Type.Boolean()),
        incorporationNumber: optional(Type.String()),
        nzbn: optional(Type.String()),
      }),
    ),
    searchByDebtorPerson: optional(
      Type.Object({
        firstName: optional(Type.String()),
        middleNames: optional(Type.String()),
        lastName: optional(Type.String()),
        dateOfBirth: optional(Type.String()),
      }),
    ),
    searchByMotorVehicle: optional(
      Type.Object({
        vin: optional(Type.String()),
        chassisNumber: optional(Type.String()),
        registrationPlate: optional(Type.String()),
      }),
    ),
    searchByAircraft: optional(Type.Object({ serialNumber: optional(Type.String()) })),
    searchByRegistrationNumber: optional(Type.Object({ registrationNumber: optional(Type.String()) })),
  },
  {
    examples: [
      { searchBy: 'motorVehicle', legitimateSearchReason: 'yes', searchByMotorVehicle: { vin: EXAMPLE_VIN } },
    ],
  },
);

export const SearchAnswer = Type.Object({
  searchId: text('Pass it back with page to read later pages free of charge'),
  searchCertificateNumber: text('The search certificate of this search'),
  totalResults: Type.Integer({ description: 'At most 300' }),
  page: Type.Integer(),
  pageSize: Type.Integer(),
  financingStatements: Type.Array(FinancingStatement),
});

export const CertificateParams = Type.Object({
  certificateNumber: Type.String({ description: 'SC and 10 digits, as the search answered it' }),
});

export const SearchCertificate = Type.Object({
  searchCertificateNumber: text('SC and 10 digits'),
  searchId: Type.String(),
  searchedDate: nzDateTime('When the search was made'),
  searchedUtcDate: Type.String({ description: 'The same instant in UTC' }),
  searcher: Type.Object({ organisationId: Type.String(), name: Type.String() }),
  criteria: Type.Object(
    { searchBy: Type.String({ enum: [...SEARCH_KINDS] }), criterion: Type.String() },
    { additionalProperties: true, description: 'What was searched for' },
  ),
  totalResults: Type.Integer({ description: 'At most 300' }),
  financingStatements: Type.Array(FinancingStatement, {
    description: 'Every statement found, as it stood at the search',
  }),
});

export const Transaction = Type.Object({
  requestId: Type.String(),
  billingReference: Type.Union([Type.String(), Type.Null()]),
  channel: Type.String({ enum: ['API', 'Web'] }),
  correlationId: Type.String(),
  paymentSessionId: Type.Union([Type.String(), Type.Null()], {
    description: 'Fee-bearing transactions only',
  }),
  receivedDate: nzDateTime('When the register received it'),
  receivedUtcDate: Type.String({ description: 'The same instant in UTC' }),
  registrationNumber: Type.Union([Type.String(), Type.Null()]),
  spgId: Type.Union([Type.String(), Type.Null()]),
  statusCode: Type.Integer({
    enum: [200, 400, 500],
    description: '200 completed, 400 failed (fix and resubmit), 500 failed (resubmit)',
  }),
  response: Type.Unknown({ description: 'The transaction’s own answer' }),
});

export const CustomerOrganisation = Type.Object({
  organisationId: Type.String(),
  name: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  version: Type.Integer(),
});

export const SecuredPartyGroup = Type.Object({
  securedPartyGroupId: Type.String(),
  name: Type.String(),
  email: Type.String(),
  securedParties: Type.Array(SecuredParty),
  version: Type.Integer(),
});

export const RegistrationNumberParams = Type.Object({
  registrationNumber: Type.String({
    description: '16 letters and digits',
    // A fixed test case of the sandbox (README, "Sandbox data"): the motor vehicle statement.
    examples: ['FIXC120000000000'],
  }),
});

export const GroupParams = Type.Object({
  securedPartyGroupId: Type.String({ description: 'SPG and 8 digits' }),
});

export const SecuredPartyGroupRequest = Type.Object(
  {
    name: text('The group’s name'),
    email: text('Where the group’s verification statements go'),
    securedParties: Type.Array(SecuredParty),
  },
  {
    examples: [
      {
        name: 'Example Finance',
        email: EXAMPLE_SECURED_PARTY.email,
        securedParties: [EXAMPLE_SECURED_PARTY],
      },
    ],
  },
);

export const CustomerOrganisationUpdate = Type.Object(
  { email: Type.Union([Type.String(), Type.Null()], { description: 'The organisation’s email address' }) },
  { examples: [{ email: 'accounts@example.test' }] },
);

/** The paging of the register's lists: `page` from 1, `page-size` with each list's default and maximum. */
export const STATEMENT_PAGING = { defaultSize: 20, maxSize: MAX_PAGE_SIZE, firstPage: 1 } as const;
/** Published: PPSR_38 pages hold at most 100. */
export const DISCHARGED_PAGING = { defaultSize: 100, maxSize: 100, firstPage: 1 } as const;
export const FEE_PAGING = { defaultSize: 50, maxSize: 500, firstPage: 1 } as const;

export const StatementListQuery = Type.Object({
  'search-id': optional(text('The searchId of an earlier search')),
  'secured-party-group-id': optional(text('A secured party group of the caller’s organisation')),
  ...pagingProperties(STATEMENT_PAGING),
});

export const DischargedQuery = Type.Object({
  'start-date': Type.String({ description: 'First day, YYYY-MM-DD (New Zealand)', examples: ['2026-06-01'] }),
  'end-date': Type.String({
    description: 'Last day, YYYY-MM-DD (New Zealand), inclusive',
    examples: ['2026-06-07'],
  }),
  ...pagingProperties(DISCHARGED_PAGING),
});

/**
 * The register's request headers beside the gateway's own, keyed by their spelling in the register's
 * documents (Fastify validates them lower-cased: read them so). An empty value is no value.
 */
export const HEADERS = {
  /** Published (version 1): the request id's alias. */
  requestIdAlias: 'NZRIS-org-nz-Request-Id',
  /** Ours: the caller's billing reference of a transaction. */
  billingReference: 'Billing-Reference',
  /** Ours, sandbox only: seconds to hold a transaction's work. */
  sandboxDelay: 'Sandbox-Processing-Delay',
  /** Ours: the statement's PIN, for a change or a read by another organisation. */
  pin: 'Financing-Statement-PIN',
  /** Ours: the debtor PIN, for a debtor reading the statement that names them. */
  debtorPin: 'Debtor-PIN',
} as const;

export const MAX_REQUEST_ID_ALIAS = 100;

/**
 * Published (version 1): every answer carries `Service-Version` and a `NZRIS-org-nz-Correlation-Id` made
 * for the request (the transaction record's `correlationId`), and echoes `NZRIS-org-nz-Request-Id`.
 */
export const RESPONSE_HEADERS = {
  correlationId: 'NZRIS-org-nz-Correlation-Id',
  serviceVersion: 'Service-Version',
} as const;
/** The `Service-Version` this register answers: its API's version. */
export const SERVICE_VERSION = '2';
export const MAX_BILLING_REFERENCE = 100;
export const MAX_SANDBOX_DELAY_SECONDS = 900;

/**
 * 0 to 900 seconds, at most three decimals, written as digits (leading zeros allowed): the range in the
 * pattern, since a header declared a number would also take `1e2`, `0x10` or `.5` (Ajv coerces them).
 */
const SANDBOX_DELAY_PATTERN = '^0*(?:(?:[0-9]{1,2}|[1-8][0-9]{2})(?:\\.[0-9]{1,3})?|900(?:\\.0{1,3})?)$';

/** Published (version 1): the request id's alias, read (and echoed) on every operation. */
const REQUEST_ID_HEADERS = {
  [HEADERS.requestIdAlias]: optional(
    declaredHeader(
      Type.String({
        maxLength: MAX_REQUEST_ID_ALIAS,
        pattern: '^[A-Za-z0-9._:-]*$',
        description:
          'Published (version 1): the caller’s request id, when api-business-govt-nz-Request-Id is not sent (that one wins); echoed back on every operation. On a transaction a repeat with the same body answers the first outcome; another body is 409. 1 to 100 letters, digits, ".", "_", ":" or "-".',
      }),
      `must be 1 to ${MAX_REQUEST_ID_ALIAS} letters, digits, ".", "_", ":" or "-"`,
    ),
  ),
};

/** The headers of an operation that is no transaction: the request id's alias alone. */
export const readHeaders = () => Type.Object({ ...REQUEST_ID_HEADERS });

const TRANSACTION_HEADERS = {
  ...REQUEST_ID_HEADERS,
  [HEADERS.billingReference]: optional(
    declaredHeader(
      Type.String({
        maxLength: MAX_BILLING_REFERENCE,
        pattern: '^[^\\u0000-\\u001F\\u007F-\\u009F]*$',
        description:
          'A reference your own accounts know the transaction by, kept with it and its fee (SEC_56 and SEC_43 find them by it): at most 100 characters, no control characters.',
      }),
      `must be at most ${MAX_BILLING_REFERENCE} characters, without control characters`,
    ),
  ),
};

const SANDBOX_HEADERS = {
  [HEADERS.sandboxDelay]: optional(
    declaredHeader(
      Type.String({
        pattern: SANDBOX_DELAY_PATTERN,
        description: `Sandbox only: seconds (0 to ${MAX_SANDBOX_DELAY_SECONDS}, at most three decimals) to hold the work before it runs, to rehearse the platform’s timeout.`,
      }),
      `must be a number of seconds from 0 to ${MAX_SANDBOX_DELAY_SECONDS}, with at most three decimals`,
    ),
  ),
};

const CHANGE_HEADERS = {
  [HEADERS.pin]: optional(
    declaredHeader(
      Type.String({
        pattern: '^(?:[0-9]{8})?$',
        description:
          'The statement’s financing statement PIN (8 digits), needed when another organisation registered it: without it, or with another, 403 pin-required.',
      }),
      'must be 8 digits, the financing statement PIN',
    ),
  ),
};

/**
 * The headers of a read of a whole statement (PPSR_01, PPSR_55) by anyone but the organisation that
 * registered it: its financing statement PIN, or its debtor PIN (ours). Without either, or with another,
 * the statement is answered as one that does not exist.
 */
const READ_HEADERS = {
  [HEADERS.pin]: optional(
    declaredHeader(
      Type.String({
        pattern: '^(?:[0-9]{8})?$',
        description:
          'The statement’s financing statement PIN (8 digits): opens the whole statement to an organisation that did not register it. Without it (or the debtor PIN), or with another, 404 as for a statement that does not exist.',
        examples: ['20221101'],
      }),
      'must be 8 digits, the financing statement PIN',
    ),
  ),
  [HEADERS.debtorPin]: optional(
    declaredHeader(
      Type.String({
        pattern: '^(?:[0-9]{8})?$',
        description:
          'Ours: the statement’s debtor PIN (8 digits), issued at registration for the debtor: opens the whole statement for reading (never a change).',
      }),
      'must be 8 digits, the debtor PIN',
    ),
  ),
};

/** The headers of a read of a whole statement: its PIN or its debtor PIN (`READ_HEADERS`). */
export const statementReadHeaders = () => Type.Object({ ...REQUEST_ID_HEADERS, ...READ_HEADERS });

/**
 * The headers of an operation that is a transaction (every write, a new search): the request id's
 * alias and the billing reference, in the sandbox the processing delay, and for a change of a statement
 * its PIN.
 */
export const transactionHeaders = (environment: Environment, options: { change?: boolean } = {}) =>
  Type.Object({
    ...TRANSACTION_HEADERS,
    ...(environment === 'sandbox' ? SANDBOX_HEADERS : {}),
    ...(options.change ? CHANGE_HEADERS : {}),
  });

export const StatementList = Type.Object({
  totalResults: Type.Integer(),
  page: Type.Integer(),
  pageSize: Type.Integer(),
  financingStatements: Type.Array(FinancingStatement),
});

export const TransactionQuery = Type.Object({
  'request-id': optional(text('The request id the transaction was sent with')),
  'billing-reference': optional(text('The billing reference it was sent with')),
});

export const TransactionList = Type.Object({ transactions: Type.Array(Transaction) });

export const FeeQuery = Type.Object({
  'fee-status': optional(Type.String({ enum: ['Unbilled', 'Invoiced'] })),
  'request-id': optional(Type.String()),
  'billing-reference': optional(Type.String()),
  ...pagingProperties(FEE_PAGING),
});

export const FeeRecord = Type.Object({
  transactionType: Type.String({ description: 'The operation, e.g. PPSR_17' }),
  description: Type.String(),
  amount: Type.Number({ description: 'NZ$, GST exclusive' }),
  gst: Type.Number({ description: 'NZ$' }),
  currency: Type.Literal('NZD'),
  feeStatus: Type.String({ enum: ['Unbilled', 'Invoiced'] }),
  invoiceNumber: Type.Union([Type.String(), Type.Null()], {
    description:
      'Ours: the invoice the fee went to (`INV-000042`) once its month is invoiced, null while Unbilled. Its CSV with `transactions` breaks each line down by request id and billing reference.',
  }),
  paymentSessionId: Type.String(),
  requestId: Type.Union([Type.String(), Type.Null()]),
  billingReference: Type.Union([Type.String(), Type.Null()]),
  registrationNumber: Type.Union([Type.String(), Type.Null()]),
  chargedDate: Type.String({ description: 'New Zealand time' }),
});

export const FeeList = Type.Object({
  totalResults: Type.Integer(),
  page: Type.Integer(),
  pageSize: Type.Integer(),
  fees: Type.Array(FeeRecord),
});

export const GroupList = Type.Object({ securedPartyGroups: Type.Array(SecuredPartyGroup) });

const GatewayError = Type.Object(
  { statusCode: Type.Integer(), message: Type.String() },
  { description: 'API Management’s body (the gateway’s own answer)' },
);

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: Problem } },
});

/**
 * The answers of an operation: its successes (JSON) and the errors it meets. Every operation produces
 * JSON only (published): any other `Accept` is 406. `conditional` is a read with validators (304),
 * `update` a write of an existing item (412).
 */
export function responses(
  ok: Record<number, TSchema>,
  options: { transaction?: boolean; conditional?: boolean; update?: boolean } = {},
) {
  const answers: Record<number, unknown> = {};
  for (const [status, schema] of Object.entries(ok)) {
    answers[Number(status)] = { description: 'OK', content: { 'application/json': { schema } } };
  }
  return {
    ...answers,
    ...(options.conditional
      ? {
          304: {
            description:
              'Not modified: If-None-Match names the current ETag, or If-Modified-Since is not before its Last-Modified',
          },
        }
      : {}),
    400: problem('A field breaks a register rule: `errors` names the field and the rule'),
    403: problem('The organisation may not do this (no authority, another organisation’s object)'),
    404: problem('No such item'),
    406: problem('Accept admits no JSON: this register answers application/json only'),
    ...(options.update
      ? { 412: problem('If-Match or If-Unmodified-Since does not hold: the item has changed') }
      : {}),
    ...(options.transaction
      ? {
          409: problem('The request id was used for a different request, or the statement is not in force'),
          504: {
            description:
              'The platform’s timeout (180 s) passed; the transaction may still complete: look it up with SEC_56',
            content: { 'application/json': { schema: GatewayError } },
          },
        }
      : {}),
  };
}
