/**
 * Organisation parts: physical, functional or digital locations of a business, each numbered with a
 * 13-digit GLN (the organisation part number, OPN), in the published shape (OrganisationPart):
 * purposes, addresses and email addresses with the published purposes and types, `custom-data` (key and
 * value pairs) and `nzbn-list` (the entities a shared part is shared with, `{nzbn}` each: the
 * definition names only "object", the field is ours), the published status, function and privacy
 * values.
 *
 * Visibility: a `PUBLIC` part is seen by everyone; a `PRIVATE` part only by callers with business
 * authority over its parent entity; a `SHARED` part also by callers with authority over any entity in
 * its `nzbn-list`; a part that is not public also by callers with authority over an entity its owner
 * approved an access request of. Only the parent's authorised callers see `nzbn-list` itself (others
 * get `[]`).
 */
import { type Static, Type } from '@sinclair/typebox';
import { literals, Nullable, Nzbn, NzDateTime, PhoneNumber, Strict } from './schema-parts.ts';

export const ORGANISATION_PART_STATUSES = ['ACTIVE', 'INACTIVE'] as const;
export type OrganisationPartStatus = (typeof ORGANISATION_PART_STATUSES)[number];
export const ORGANISATION_PART_PRIVACY = ['PUBLIC', 'SHARED', 'PRIVATE'] as const;
export type OrganisationPartPrivacy = (typeof ORGANISATION_PART_PRIVACY)[number];
export const ORGANISATION_PART_FUNCTIONS = ['FUNCTION', 'PHYSICAL_LOCATION', 'DIGITAL_LOCATION'] as const;
export type OrganisationPartFunction = (typeof ORGANISATION_PART_FUNCTIONS)[number];
export const ORGANISATION_PART_PURPOSES = ['E_INVOICING', 'OTHER', 'LOCATIONARRIVAL'] as const;
export type OrganisationPartPurposeType = (typeof ORGANISATION_PART_PURPOSES)[number];
export const ORGANISATION_PART_ADDRESS_TYPES = ['POSTAL', 'PHYSICAL', 'DELIVERY', 'INVOICE'] as const;
export const ORGANISATION_PART_EMAIL_PURPOSES = ['INVOICE_ADDRESS', 'OTHER'] as const;

export const OrganisationPartPurpose = Type.Object(
  {
    uniqueIdentifier: Type.String(),
    purpose: literals(ORGANISATION_PART_PURPOSES),
    purposeDescription: Nullable(Type.String()),
  },
  Strict,
);

export const OrganisationPartAddress = Type.Object(
  {
    uniqueIdentifier: Type.String(),
    startDate: NzDateTime,
    careOf: Nullable(Type.String()),
    address1: Type.String(),
    address2: Nullable(Type.String()),
    address3: Nullable(Type.String()),
    address4: Nullable(Type.String()),
    postCode: Nullable(Type.String()),
    countryCode: Type.String({ pattern: '^[A-Z]{2}$' }),
    addressType: literals(ORGANISATION_PART_ADDRESS_TYPES),
    pafId: Nullable(Type.String()),
  },
  Strict,
);

export const OrganisationPartEmail = Type.Object(
  {
    uniqueIdentifier: Type.String(),
    emailAddress: Type.String(),
    emailPurpose: Nullable(literals(ORGANISATION_PART_EMAIL_PURPOSES)),
    emailPurposeDescription: Nullable(Type.String()),
    startDate: NzDateTime,
  },
  Strict,
);

export const OrganisationPartMetadata = Type.Object(
  { uniqueIdentifier: Type.String(), key: Type.String(), value: Type.String(), startDate: NzDateTime },
  Strict,
);

export const SharedWith = Type.Object({ nzbn: Nzbn }, Strict);

export const OrganisationPart = Type.Object(
  {
    opn: Nzbn,
    parentNzbn: Nzbn,
    parentNzbnName: Type.String(),
    parentGln: Nzbn,
    name: Type.String(),
    purposes: Type.Array(OrganisationPartPurpose),
    function: Nullable(literals(ORGANISATION_PART_FUNCTIONS)),
    organisationPartStatus: literals(ORGANISATION_PART_STATUSES),
    addresses: Type.Array(OrganisationPartAddress),
    phoneNumbers: Type.Array(PhoneNumber),
    emailAddresses: Type.Array(OrganisationPartEmail),
    gstNumber: Nullable(Type.String()),
    paymentBankAccountNumber: Nullable(Type.String()),
    'custom-data': Type.Array(OrganisationPartMetadata),
    privacy: literals(ORGANISATION_PART_PRIVACY),
    'nzbn-list': Type.Array(SharedWith),
    startDate: NzDateTime,
    statusDate: NzDateTime,
  },
  Strict,
);
export type OrganisationPart = Static<typeof OrganisationPart>;

/** The published GlnAllocationSummary: the part numbers an entity holds, and how many more are free. */
export const GlnAllocationSummary = Type.Object(
  { nzbnGlnsAllocated: Type.Integer({ minimum: 0 }), nzbnGlnsRemaining: Type.Integer({ minimum: 0 }) },
  Strict,
);

/** The published value `value` names, in any case (clients send `Active`, `active`, `ACTIVE` …). */
export function publishedValue<T extends string>(value: string, allowed: readonly T[]): T | undefined {
  const wanted = value.trim().toUpperCase();
  return allowed.find((item) => item === wanted);
}

export const readStatus = (value: string) => publishedValue(value, ORGANISATION_PART_STATUSES);
export const readPrivacy = (value: string) => publishedValue(value, ORGANISATION_PART_PRIVACY);

/** The business numbers a part is shared with. */
export const sharedWith = (part: Pick<OrganisationPart, 'nzbn-list'>): string[] =>
  part['nzbn-list'].map((item) => item.nzbn);

/**
 * Whether a caller acting for the entities `mine` may see the part; `granted`, the parts an entity of
 * theirs was given access to (an approved access request, domain/organisation-part-access.ts).
 */
export function partVisibleTo(
  part: Pick<OrganisationPart, 'parentNzbn' | 'privacy' | 'nzbn-list'> & { opn?: string },
  mine: ReadonlySet<string>,
  granted?: { has(opn: string): boolean },
): boolean {
  if (part.privacy === 'PUBLIC' || mine.has(part.parentNzbn)) return true;
  if (part.opn !== undefined && granted?.has(part.opn)) return true;
  return part.privacy === 'SHARED' && sharedWith(part).some((nzbn) => mine.has(nzbn));
}

/** The part as that caller sees it: the share list is the owner's business. */
export function partViewFor(part: OrganisationPart, mine: ReadonlySet<string>): OrganisationPart {
  return mine.has(part.parentNzbn) || part['nzbn-list'].length === 0 ? part : { ...part, 'nzbn-list': [] };
}
