/**
 * The schemas of users, organisations, organisation users and business authorities, in the published
 * shapes (User, UserList, Organisation, OrganisationSearchResponse, OrganisationUser,
 * OrganisationUserSearchResponse, Authority, AuthoritiesSearchResponse): the answers (every key present,
 * `null` for an unknown value) and the bodies (every field optional but those named required; unknown
 * fields dropped).
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ADDRESS_TYPES } from '../domain/codes.ts';
import { Link, literals, Nullable, Nzbn, NzDateTime, Strict } from '../domain/schema-parts.ts';
import { PagingQuery } from './operations.ts';

const Text = (maxLength = 200) => Type.String({ maxLength });
const Optional = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));

export const CATEGORY_CODES = [
  'ACC',
  'BAF',
  'BAS',
  'COF',
  'CON',
  'CRA',
  'ELI',
  'GOA',
  'INT',
  'LOA',
  'MAR',
  'NEM',
  'PAA',
  'RET',
  'SEA',
  'OTH',
] as const;
export const APPROVAL_TYPES = [
  'REGISTRAR_LETTER',
  'REGISTRAR_ID_PROOF',
  'USER',
  'PROFESSIONAL_AUTHORITY',
] as const;
export const AUTHORITY_TYPES = ['DELEGATED', 'EXECUTIVE'] as const;
export const AUTHORITY_STATUS_VALUES = [
  'PENDING',
  'ACCEPTED',
  'EXPIRED',
  'REVOKED',
  'SURRENDERED',
  'REJECTED',
  'REMOVED',
] as const;

/** The published Phone. */
export const Phone = Type.Object(
  {
    areaCode: Nullable(Type.String()),
    countryCode: Nullable(Type.String()),
    number: Nullable(Type.String()),
  },
  Strict,
);
export const PhoneInput = Type.Object({
  areaCode: Optional(Text(10)),
  countryCode: Optional(Text(10)),
  number: Type.Optional(Nullable(Type.String({ maxLength: 20, pattern: '^[0-9 ]*$' }))),
});

const ADDRESS_FIELDS = [
  'careOf',
  'address1',
  'address2',
  'address3',
  'address4',
  'postCode',
  'countryCode',
  'pafId',
];

/** The published Address of a profile: its identifier and start date always given. */
export const ProfileAddress = Type.Object(
  {
    uniqueIdentifier: Type.String(),
    startDate: NzDateTime,
    endDate: Nullable(NzDateTime),
    ...Object.fromEntries(ADDRESS_FIELDS.map((field) => [field, Nullable(Type.String())])),
    addressType: Nullable(Type.String()),
  },
  Strict,
);
export const AddressInput = Type.Object({
  uniqueIdentifier: Optional(Text(100)),
  startDate: Optional(Text(40)),
  endDate: Optional(Text(40)),
  ...Object.fromEntries(ADDRESS_FIELDS.map((field) => [field, Optional(Text())])),
  addressType: Optional(literals([...ADDRESS_TYPES, 'ALL'] as const)),
});

const Contact = {
  postalAddress: Nullable(ProfileAddress),
  physicalAddress: Nullable(ProfileAddress),
  phone: Nullable(Phone),
  fax: Nullable(Phone),
  mobile: Nullable(Phone),
};
const ContactInput = {
  postalAddress: Optional(AddressInput),
  physicalAddress: Optional(AddressInput),
  phone: Optional(PhoneInput),
  fax: Optional(PhoneInput),
  mobile: Optional(PhoneInput),
};
const Names = {
  firstName: Nullable(Type.String()),
  middleNames: Nullable(Type.String()),
  lastName: Nullable(Type.String()),
  fullName: Nullable(Type.String()),
};
const NamesInput = {
  firstName: Optional(Text(100)),
  middleNames: Optional(Text(100)),
  lastName: Optional(Text(100)),
};

/** The published User. */
export const User = Type.Object(
  {
    userId: Type.String(),
    status: literals(['ACTIVE', 'INACTIVE'] as const),
    acceptTerms: Type.Boolean(),
    ...Contact,
    email: Type.String(),
    ...Names,
  },
  Strict,
);
export type User = Static<typeof User>;
export const UserList = Type.Object({ users: Type.Array(User) }, Strict);

export const UserInput = Type.Object(
  {
    acceptTerms: Type.Optional(Type.Boolean()),
    status: Type.Optional(literals(['ACTIVE', 'INACTIVE'] as const)),
    email: Type.Optional(Type.String({ minLength: 3, maxLength: 254 })),
    ...NamesInput,
    ...ContactInput,
  },
  {
    examples: [
      {
        acceptTerms: true,
        firstName: 'Aroha',
        lastName: 'Tester',
        phone: { areaCode: '4', number: '4991234' },
      },
    ],
  },
);
export type UserInput = Static<typeof UserInput>;

/** The published Organisation. */
export const Organisation = Type.Object(
  {
    organisationId: Type.String(),
    name: Type.String(),
    ...Contact,
    email: Nullable(Type.String()),
    categoryCode: Nullable(literals(CATEGORY_CODES)),
    organisationUsers: Type.Array(Link),
    authorities: Type.Array(Link),
  },
  Strict,
);
export type Organisation = Static<typeof Organisation>;
export const OrganisationSearchResponse = Type.Object(
  { items: Type.Array(Organisation), links: Type.Array(Link) },
  Strict,
);

const OrganisationFields = {
  email: Optional(Type.String({ maxLength: 254 })),
  categoryCode: Optional(literals(CATEGORY_CODES)),
  ...ContactInput,
};
export const OrganisationInput = Type.Object(
  {
    organisationId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    ...OrganisationFields,
  },
  { examples: [{ name: 'Sandbox Accountants', categoryCode: 'ACC', email: 'office@example.test' }] },
);
export type OrganisationInput = Static<typeof OrganisationInput>;
export const OrganisationChange = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), ...OrganisationFields },
  { examples: [{ name: 'Sandbox Accountants Limited' }] },
);
export type OrganisationChange = Static<typeof OrganisationChange>;
export const OrganisationParams = Type.Object({
  organisationId: Type.String({ minLength: 1, maxLength: 64 }),
});
export const OrganisationUserParams = Type.Object({
  organisationId: OrganisationParams.properties.organisationId,
  organisationUserId: Type.String({ minLength: 1, maxLength: 64 }),
});
export const UserParams = Type.Object({ userId: Type.String({ minLength: 1, maxLength: 64 }) });

/** The published EMail of an organisation user. */
const EMail = Type.Object(
  {
    uniqueIdentifier: Nullable(Type.String()),
    emailAddress: Type.String(),
    emailPurpose: Nullable(Type.String()),
    emailPurposeDescription: Nullable(Type.String()),
    startDate: Nullable(NzDateTime),
  },
  Strict,
);

/** The published OrganisationUser: a membership (ACTIVE) or an invitation not yet activated (INACTIVE). */
export const OrganisationUser = Type.Object(
  {
    organisationUserId: Type.String(),
    organisationId: Type.String(),
    role: literals(['MEMBER', 'ADMINISTRATOR'] as const),
    status: literals(['ACTIVE', 'INACTIVE'] as const),
    ...Names,
    email: EMail,
    phone: Nullable(Phone),
    organisation: Link,
    user: Nullable(Link),
  },
  Strict,
);
export type OrganisationUser = Static<typeof OrganisationUser>;
export const OrganisationUserSearchResponse = Type.Object(
  { items: Type.Array(OrganisationUser), links: Type.Array(Link) },
  Strict,
);

const EMailInput = Type.Object({
  emailAddress: Type.String({ minLength: 3, maxLength: 254 }),
  emailPurpose: Optional(Text(50)),
});
export const OrganisationUserInput = Type.Object(
  {
    role: Type.Optional(literals(['MEMBER', 'ADMINISTRATOR'] as const)),
    ...NamesInput,
    email: EMailInput,
    phone: Optional(PhoneInput),
  },
  {
    examples: [
      {
        role: 'MEMBER',
        firstName: 'Tama',
        lastName: 'Invited',
        email: { emailAddress: 'tama@example.test' },
      },
    ],
  },
);
export type OrganisationUserInput = Static<typeof OrganisationUserInput>;
export const OrganisationUserChange = Type.Object(
  {
    role: Type.Optional(literals(['MEMBER', 'ADMINISTRATOR'] as const)),
    status: Type.Optional(literals(['ACTIVE', 'INACTIVE'] as const)),
    ...NamesInput,
    phone: Optional(PhoneInput),
  },
  { examples: [{ role: 'ADMINISTRATOR' }] },
);
export type OrganisationUserChange = Static<typeof OrganisationUserChange>;
export const ActivationBody = Type.Object(
  { activationCode: Type.String({ minLength: 1, maxLength: 200 }) },
  { examples: [{ activationCode: 'the code the invitation mail gives' }] },
);

/** The published Metadata (supporting information) and Document. */
const Metadata = Type.Object({
  metadataId: Optional(Text(100)),
  metadataType: Optional(Text(100)),
  Name: Optional(Text()),
  DateOfBirth: Optional(Text(40)),
  Number: Optional(Text(100)),
  Version: Optional(Text(40)),
  ExpiryDate: Optional(Text(40)),
});
const LinkInput = Type.Object({
  rel: Optional(Text(100)),
  href: Type.String({ minLength: 1, maxLength: 2000 }),
  methods: Type.Optional(Type.Array(Text(10), { maxItems: 10 })),
});
const Document = Type.Object({
  documentId: Optional(Text(100)),
  documentType: Optional(Text(100)),
  url: Optional(LinkInput),
  document: Optional(LinkInput),
});

/** The published Authority as answered. */
export const Authority = Type.Object(
  {
    authorityId: Type.String(),
    nzbn: Nzbn,
    entityName: Nullable(Type.String()),
    entityStatusCode: Nullable(Type.String()),
    entityTypeCode: Nullable(Type.String()),
    userId: Nullable(Type.String()),
    organisationId: Nullable(Type.String()),
    partyName: Nullable(Type.String()),
    authorityStartDate: NzDateTime,
    AuthorityStatus: literals(AUTHORITY_STATUS_VALUES),
    AuthorityType: literals(AUTHORITY_TYPES),
    approvalType: Nullable(literals(APPROVAL_TYPES)),
    supportingInformation: Type.Array(Type.Unknown()),
    documents: Type.Array(Type.Unknown()),
    reason: Nullable(Type.String()),
    comment: Nullable(Type.String()),
  },
  Strict,
);
export type Authority = Static<typeof Authority>;
export const AuthoritiesSearchResponse = Type.Object(
  {
    pageSize: Type.Integer(),
    page: Type.Integer(),
    totalItems: Type.Integer(),
    sortBy: Nullable(Type.String()),
    sortOrder: Nullable(Type.String()),
    items: Type.Array(Authority),
    links: Type.Array(Link),
  },
  Strict,
);

const AuthorityFields = {
  userId: Optional(Text(64)),
  organisationId: Optional(Text(64)),
  AuthorityStatus: Type.Optional(literals(AUTHORITY_STATUS_VALUES)),
  AuthorityType: Type.Optional(literals(AUTHORITY_TYPES)),
  supportingInformation: Type.Optional(Type.Array(Metadata, { maxItems: 20 })),
  documents: Type.Optional(Type.Array(Document, { maxItems: 20 })),
  reason: Optional(Text(500)),
  comment: Optional(Text(2000)),
};
/** A request for business authority: the entity and how it is to be approved, required. */
export const AuthorityRequestBody = Type.Object(
  {
    nzbn: Type.String({ maxLength: 20 }),
    approvalType: literals(APPROVAL_TYPES),
    ...AuthorityFields,
  },
  {
    examples: [
      {
        nzbn: '9429000003025',
        approvalType: 'REGISTRAR_LETTER',
        AuthorityType: 'DELEGATED',
        documents: [
          { documentType: 'LETTER', url: { rel: 'letter', href: 'https://example.test/letter.pdf' } },
        ],
        comment: 'Our accountant acts for us',
      },
    ],
  },
);
export type AuthorityRequestBody = Static<typeof AuthorityRequestBody>;
/** A change of an authority: its status (approval, decline, withdrawal, surrender, revocation) or evidence. */
export const AuthorityChangeBody = Type.Object(
  {
    nzbn: Type.Optional(Type.String({ maxLength: 20 })),
    approvalType: Type.Optional(literals(APPROVAL_TYPES)),
    ...AuthorityFields,
  },
  { examples: [{ AuthorityStatus: 'SURRENDERED', reason: 'We no longer act for this business' }] },
);
export type AuthorityChangeBody = Static<typeof AuthorityChangeBody>;
export const AuthorityParams = Type.Object({ authorityId: Type.String({ minLength: 1, maxLength: 64 }) });

export const AuthoritySearchQuery = Type.Object({
  nzbn: Type.Optional(Type.String({ maxLength: 20 })),
  'user-id': Type.Optional(Type.String({ maxLength: 64 })),
  'organisation-id': Type.Optional(Type.String({ maxLength: 64 })),
  historic: Type.Optional(Type.Boolean({ description: 'Ended authorities too (false by default)' })),
  'authority-status': Type.Optional(
    Type.Array(Type.String({ maxLength: 200 }), {
      maxItems: 10,
      description: `${AUTHORITY_STATUS_VALUES.join(', ')}; repeated or comma-joined`,
    }),
  ),
  ...PagingQuery,
  'sort-by': Type.Optional(
    Type.String({ maxLength: 40, description: 'authorityStartDate (default), nzbn or authorityStatus' }),
  ),
  sortorder: Type.Optional(literals(['ASC', 'DESC'] as const)),
});
export type AuthoritySearchQuery = Static<typeof AuthoritySearchQuery>;
