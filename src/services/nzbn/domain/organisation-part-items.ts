/**
 * The items of an organisation part (its purposes, addresses, phone numbers, email addresses and
 * `custom-data`) made from what a client sends, in the published shapes (OrganisationPartPurpose,
 * OrganisationPartAddress, OrganisationPartPhoneNumber, OrganisationPartEmail, OrganisationPartMetadata),
 * with the published values read whatever their case; and the rules of the part's share list
 * (`nzbn-list`). A create or replace of the whole part (organisation-part-build.ts) and the operations on
 * one item use the same builders. A broken rule is a RuleError naming the field and the rule. Pure.
 */
import type { Static } from '@sinclair/typebox';
import { RuleError } from '../../../platform/errors.ts';
import { type ItemContext, phoneItem, readDate } from './items.ts';
import {
  ORGANISATION_PART_ADDRESS_TYPES,
  ORGANISATION_PART_EMAIL_PURPOSES,
  ORGANISATION_PART_PURPOSES,
  type OrganisationPart,
  type OrganisationPartAddress,
  type OrganisationPartEmail,
  type OrganisationPartMetadata,
  type OrganisationPartPurpose,
  publishedValue,
} from './organisation-part.ts';

type Identified = { uniqueIdentifier?: string | null | undefined };

export type PurposeLike = Identified & { purpose: string; purposeDescription?: string | null | undefined };
export type PartAddressLike = Identified & {
  addressType: string;
  careOf?: string | null | undefined;
  address1: string;
  address2?: string | null | undefined;
  address3?: string | null | undefined;
  address4?: string | null | undefined;
  postCode?: string | null | undefined;
  countryCode?: string | undefined;
  pafId?: string | null | undefined;
  startDate?: string | undefined;
};
export type PartPhoneLike = Identified & Parameters<typeof phoneItem>[0];
export type PartEmailLike = Identified & {
  emailAddress: string;
  emailPurpose?: string | null | undefined;
  emailPurposeDescription?: string | null | undefined;
  startDate?: string | undefined;
};
export type MetadataLike = Identified & { key: string; value: string; startDate?: string | undefined };

/** The published value of a field, in any case; 400 naming the field and the values otherwise. */
export function oneOf<T extends string>(value: string, allowed: readonly T[], field: string): T {
  const found = publishedValue(value, allowed);
  if (!found) throw new RuleError(field, `must be one of ${allowed.join(', ')}`);
  return found;
}

export const orNull = (value: string | null | undefined): string | null => value?.trim() || null;

const at = (context: ItemContext, name: string) => `${context.at ?? ''}${name}`;

export function partPurpose(
  input: PurposeLike,
  context: ItemContext,
): Static<typeof OrganisationPartPurpose> {
  return {
    uniqueIdentifier: context.id,
    purpose: oneOf(input.purpose, ORGANISATION_PART_PURPOSES, at(context, 'purpose')),
    purposeDescription: orNull(input.purposeDescription),
  };
}

export function partAddress(
  input: PartAddressLike,
  context: ItemContext,
): Static<typeof OrganisationPartAddress> {
  return {
    uniqueIdentifier: context.id,
    startDate: readDate(input.startDate, context.now, at(context, 'startDate')),
    careOf: orNull(input.careOf),
    address1: input.address1,
    address2: orNull(input.address2),
    address3: orNull(input.address3),
    address4: orNull(input.address4),
    postCode: orNull(input.postCode),
    countryCode: input.countryCode ?? 'NZ',
    addressType: oneOf(input.addressType, ORGANISATION_PART_ADDRESS_TYPES, at(context, 'addressType')),
    pafId: orNull(input.pafId),
  };
}

export const partPhone = (input: PartPhoneLike, context: ItemContext) => phoneItem(input, context);

export function partEmail(input: PartEmailLike, context: ItemContext): Static<typeof OrganisationPartEmail> {
  return {
    uniqueIdentifier: context.id,
    emailAddress: input.emailAddress,
    emailPurpose: input.emailPurpose
      ? oneOf(input.emailPurpose, ORGANISATION_PART_EMAIL_PURPOSES, at(context, 'emailPurpose'))
      : null,
    emailPurposeDescription: orNull(input.emailPurposeDescription),
    startDate: readDate(input.startDate, context.now, at(context, 'startDate')),
  };
}

export function partMetadata(
  input: MetadataLike,
  context: ItemContext,
): Static<typeof OrganisationPartMetadata> {
  return {
    uniqueIdentifier: context.id,
    key: input.key,
    value: input.value,
    startDate: readDate(input.startDate, context.now, at(context, 'startDate')),
  };
}

/** The most items a part holds in each list (`custom-data`: `MAX_CUSTOM_DATA`), as a whole part may send. */
export const MAX_PART_ITEMS = 20;
export const MAX_CUSTOM_DATA = 50;
/** The most business numbers one part is shared with (as a whole part's `nzbn-list` may hold). */
export const MAX_SHARED_WITH = 100;

/**
 * The part shared with more entities. A PRIVATE part becomes SHARED; a PUBLIC one is seen by everyone
 * already, so sharing it is refused; the part's own entity sees it anyway, so naming it is refused.
 * Numbers already on the list stay where they are; new ones go to its end.
 */
export function shareWith(part: OrganisationPart, nzbns: readonly string[]): OrganisationPart {
  if (part.privacy === 'PUBLIC') {
    throw new RuleError(
      'nzbns',
      'the part is PUBLIC, so everyone sees it: make it PRIVATE or SHARED (PUT the part) to share it with chosen entities',
    );
  }
  if (nzbns.includes(part.parentNzbn)) {
    throw new RuleError('nzbns', `"${part.parentNzbn}" is the part's own entity, which always sees it`);
  }
  const list = part['nzbn-list'].map((item) => item.nzbn);
  for (const nzbn of nzbns) if (!list.includes(nzbn)) list.push(nzbn);
  if (list.length > MAX_SHARED_WITH) {
    throw new RuleError('nzbns', `a part is shared with at most ${MAX_SHARED_WITH} entities`);
  }
  return { ...part, privacy: 'SHARED', 'nzbn-list': list.map((nzbn) => ({ nzbn })) };
}

/**
 * The part no longer shared with these entities (numbers not on its list are ignored). A SHARED part
 * left with nobody to share with is PRIVATE: seen by its own entity's holders only, as before.
 */
export function stopSharing(part: OrganisationPart, nzbns: readonly string[]): OrganisationPart {
  const list = part['nzbn-list'].filter((item) => !nzbns.includes(item.nzbn));
  const privacy = part.privacy === 'SHARED' && list.length === 0 ? 'PRIVATE' : part.privacy;
  return { ...part, privacy, 'nzbn-list': list };
}
