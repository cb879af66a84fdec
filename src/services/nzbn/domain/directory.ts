/**
 * Users, organisations, organisation users and business authorities in the published shapes, from
 * identity's rows (`ServiceIdentity.directory`), and the profile fields of a body as identity keeps them:
 * an address gets its identifier and start date, a phone and a document every published key. Pure.
 */
import { randomUUID } from 'node:crypto';
import type {
  ContactProfile,
  OrganisationMember,
  OrganisationProfile,
  Phone,
  ProfileAddress,
  RegisterAuthority,
  UserProfile,
} from '../../../identity/domain/register-profiles.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import type { Authority, Organisation, OrganisationUser, User } from '../schemas/directory.ts';
import { readDate } from './items.ts';

const link = (rel: string, href: string, methods: string[] = ['GET']) => ({ rel, href, methods });
const orNull = <T>(value: T | null | undefined): T | null => value ?? null;
const fullName = (names: (string | null)[], fallback: string | null): string | null =>
  names.filter(Boolean).join(' ') || fallback;

type AddressInput = Record<string, string | null | undefined>;
type PhoneInput = { areaCode?: string | null; countryCode?: string | null; number?: string | null };

const ADDRESS_KEYS = [
  'careOf',
  'address1',
  'address2',
  'address3',
  'address4',
  'postCode',
  'countryCode',
  'pafId',
];

/** An address as kept: every published key, an identifier and a start date (now unless given). */
export function profileAddress(input: AddressInput, now: string, field: string): ProfileAddress {
  return {
    uniqueIdentifier: input.uniqueIdentifier || randomUUID(),
    startDate: readDate(input.startDate, now, `${field}.startDate`),
    endDate: input.endDate ? readDate(input.endDate, now, `${field}.endDate`) : null,
    ...Object.fromEntries(ADDRESS_KEYS.map((key) => [key, orNull(input[key])])),
    addressType: orNull(input.addressType),
  };
}

export const profilePhone = (input: PhoneInput): Phone => ({
  areaCode: orNull(input.areaCode),
  countryCode: orNull(input.countryCode),
  number: orNull(input.number),
});

/** The contact fields a body gives (absent: unchanged; null: cleared), as identity keeps them. */
export function contactPatch(
  body: {
    postalAddress?: AddressInput | null;
    physicalAddress?: AddressInput | null;
    phone?: PhoneInput | null;
    fax?: PhoneInput | null;
    mobile?: PhoneInput | null;
  },
  now: string,
): Partial<ContactProfile> {
  const patch: Partial<ContactProfile> = {};
  for (const key of ['postalAddress', 'physicalAddress'] as const) {
    const value = body[key];
    if (value !== undefined) patch[key] = value === null ? null : profileAddress(value, now, key);
  }
  for (const key of ['phone', 'fax', 'mobile'] as const) {
    const value = body[key];
    if (value !== undefined) patch[key] = value === null ? null : profilePhone(value);
  }
  return patch;
}

/** The fields of a body that are given (undefined dropped; null kept, it clears). */
export function given<T extends Record<string, unknown>, K extends keyof T>(
  body: T,
  keys: readonly K[],
): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (body[key] !== undefined) out[key] = body[key];
  return out;
}

type PublishedAddress = User['postalAddress'];
const contact = (profile: ContactProfile) => ({
  // Kept with every published key (profileAddress).
  postalAddress: profile.postalAddress as PublishedAddress,
  physicalAddress: profile.physicalAddress as PublishedAddress,
  phone: profile.phone,
  fax: profile.fax,
  mobile: profile.mobile,
});

export const publishedUser = (user: UserProfile): User => ({
  userId: user.id,
  status: user.status,
  acceptTerms: user.acceptTerms,
  ...contact(user),
  email: user.email,
  firstName: user.firstName,
  middleNames: user.middleNames,
  lastName: user.lastName,
  fullName: user.name,
});

export const publishedOrganisation = (base: string, organisation: OrganisationProfile): Organisation => {
  const id = encodeURIComponent(organisation.identifier);
  return {
    organisationId: organisation.identifier,
    name: organisation.name,
    ...contact(organisation),
    email: organisation.email,
    categoryCode: organisation.categoryCode as Organisation['categoryCode'],
    organisationUsers: [
      link('organisationUsers', `${base}/organisations/${id}/organisationUsers`, ['GET', 'POST']),
    ],
    authorities: [link('authorities', `${base}/authorities?organisation-id=${id}`)],
  };
};

export const publishedOrganisationUser = (base: string, member: OrganisationMember): OrganisationUser => ({
  organisationUserId: member.id,
  organisationId: member.organisationIdentifier,
  role: member.role === 'member' ? 'MEMBER' : 'ADMINISTRATOR',
  status: member.status,
  firstName: member.firstName,
  middleNames: member.middleNames,
  lastName: member.lastName,
  fullName: fullName([member.firstName, member.middleNames, member.lastName], member.name),
  email: {
    uniqueIdentifier: null,
    emailAddress: member.email,
    emailPurpose: null,
    emailPurposeDescription: null,
    startDate: null,
  },
  phone: member.phone,
  organisation: link(
    'organisation',
    `${base}/organisations/${encodeURIComponent(member.organisationIdentifier)}`,
  ),
  user: member.userId ? link('user', `${base}/users/${member.userId}`) : null,
});

type LinkInput = { rel?: string | null; href: string; methods?: string[] } | null | undefined;
const linkOf = (value: LinkInput) =>
  value ? { rel: orNull(value.rel), href: value.href, methods: value.methods ?? ['GET'] } : null;

/** Supporting information and documents as kept: every published key. */
export function evidence(body: {
  supportingInformation?: Record<string, string | null | undefined>[];
  documents?: {
    documentId?: string | null;
    documentType?: string | null;
    url?: LinkInput;
    document?: LinkInput;
  }[];
}): { supportingInformation?: unknown[]; documents?: unknown[] } {
  const METADATA = ['metadataId', 'metadataType', 'Name', 'DateOfBirth', 'Number', 'Version', 'ExpiryDate'];
  return {
    ...(body.supportingInformation
      ? {
          supportingInformation: body.supportingInformation.map((item) =>
            Object.fromEntries(METADATA.map((key) => [key, orNull(item[key])])),
          ),
        }
      : {}),
    ...(body.documents
      ? {
          documents: body.documents.map((document, index) => ({
            documentId: document.documentId || String(index + 1),
            documentType: orNull(document.documentType),
            url: linkOf(document.url),
            document: linkOf(document.document),
          })),
        }
      : {}),
  };
}

/** An authority as published, with the entity's name, status and type when the register has it. */
export const publishedAuthority = (
  authority: RegisterAuthority,
  entity: { entityName: string; entityStatusCode: string; entityTypeCode: string } | undefined,
): Authority => ({
  authorityId: authority.id,
  nzbn: authority.objectId,
  entityName: entity?.entityName ?? null,
  entityStatusCode: entity?.entityStatusCode ?? null,
  entityTypeCode: entity?.entityTypeCode ?? null,
  userId: authority.userId,
  organisationId: authority.organisationIdentifier,
  partyName: authority.organisationName ?? authority.userName,
  authorityStartDate: formatNzDateTime(authority.grantedAt.getTime()),
  AuthorityStatus: authority.status,
  AuthorityType: authority.authorityType,
  approvalType: authority.approvalType,
  supportingInformation: authority.supportingInformation,
  documents: authority.documents,
  reason: authority.reason,
  comment: authority.comment,
});
