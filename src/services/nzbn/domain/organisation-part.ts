/**
 * Organisation parts: physical, functional or digital locations of a business, each numbered with a
 * 13-digit GLN (the organisation part number, OPN). Field names are the published client library's
 * (`reference/nzbn.md`); inside the open fields the choices are ours: `purposes` are free-text names,
 * `customData` is a flat object of text values.
 *
 * Visibility: a `public` part is seen by everyone; a `private` part only by callers with business
 * authority over its parent entity; a `shared` part also by callers with authority over any entity in
 * its `nzbnList`. Only the parent's authorised callers see `nzbnList` itself (others get `[]`).
 */
import { type Static, Type } from '@sinclair/typebox';
import {
  Address,
  EmailAddress,
  literals,
  Nullable,
  Nzbn,
  NzDateTime,
  PhoneNumber,
  Strict,
} from './schema-parts.ts';

export const ORGANISATION_PART_STATUSES = ['Active', 'Inactive'] as const;
export type OrganisationPartStatus = (typeof ORGANISATION_PART_STATUSES)[number];
export const ORGANISATION_PART_PRIVACY = ['public', 'private', 'shared'] as const;
export type OrganisationPartPrivacy = (typeof ORGANISATION_PART_PRIVACY)[number];

export const OrganisationPart = Type.Object(
  {
    opn: Nzbn,
    parentNzbn: Nzbn,
    parentNzbnName: Type.String(),
    parentGln: Nzbn,
    name: Type.String(),
    purposes: Type.Array(Type.String()),
    function: Nullable(Type.String()),
    organisationPartStatus: literals(ORGANISATION_PART_STATUSES),
    addresses: Type.Array(Address),
    phoneNumbers: Type.Array(PhoneNumber),
    emailAddresses: Type.Array(EmailAddress),
    gstNumber: Nullable(Type.String()),
    paymentBankAccountNumber: Nullable(Type.String()),
    customData: Nullable(Type.Record(Type.String(), Type.String())),
    privacy: literals(ORGANISATION_PART_PRIVACY),
    nzbnList: Type.Array(Nzbn),
    startDate: NzDateTime,
    statusDate: NzDateTime,
  },
  Strict,
);
export type OrganisationPart = Static<typeof OrganisationPart>;

/** Reads a status or privacy value whatever its case (clients send `ACTIVE`, `Active`, `PUBLIC` …). */
export function readStatus(value: string): OrganisationPartStatus | undefined {
  return ORGANISATION_PART_STATUSES.find((status) => status.toLowerCase() === value.toLowerCase());
}

export function readPrivacy(value: string): OrganisationPartPrivacy | undefined {
  return ORGANISATION_PART_PRIVACY.find((privacy) => privacy === value.toLowerCase());
}

/** Whether a caller acting for the entities `mine` may see the part. */
export function partVisibleTo(
  part: { parentNzbn: string; privacy: OrganisationPartPrivacy; nzbnList: readonly string[] },
  mine: ReadonlySet<string>,
): boolean {
  if (part.privacy === 'public' || mine.has(part.parentNzbn)) return true;
  return part.privacy === 'shared' && part.nzbnList.some((nzbn) => mine.has(nzbn));
}

/** The part as that caller sees it: the share list is the owner's business. */
export function partViewFor(part: OrganisationPart, mine: ReadonlySet<string>): OrganisationPart {
  return mine.has(part.parentNzbn) || part.nzbnList.length === 0 ? part : { ...part, nzbnList: [] };
}
