/**
 * An organisation part made from a create or replace request, in the published shape: the published
 * values of status, privacy, function, purposes, address types and email purposes read whatever their
 * case, a shared part's `nzbn-list` checked, the GST number and bank account checked, and the
 * register's fields set (identifiers, start and status dates). A sub-item sent with the identifier of
 * one the part has keeps it; the others get new ones. Pure.
 */
import { RuleError } from '../../../platform/errors.ts';
import { glnProblem } from '../../../platform/gs1.ts';
import { bankAccountProblem, irdNumberProblem } from './identifiers.ts';
import { phoneItem, readDate } from './items.ts';
import {
  ORGANISATION_PART_ADDRESS_TYPES,
  ORGANISATION_PART_EMAIL_PURPOSES,
  ORGANISATION_PART_FUNCTIONS,
  ORGANISATION_PART_PRIVACY,
  ORGANISATION_PART_PURPOSES,
  ORGANISATION_PART_STATUSES,
  type OrganisationPart,
  publishedValue,
} from './organisation-part.ts';

type Identified = { uniqueIdentifier?: string | null | undefined };

export interface PartLike {
  opn?: string | null | undefined;
  parentGln?: string | null | undefined;
  name: string;
  purposes?: (Identified & { purpose: string; purposeDescription?: string | null | undefined })[] | undefined;
  function?: string | null | undefined;
  organisationPartStatus?: string | null | undefined;
  addresses?:
    | (Identified & {
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
      })[]
    | undefined;
  phoneNumbers?: (Identified & Parameters<typeof phoneItem>[0])[] | undefined;
  emailAddresses?:
    | (Identified & {
        emailAddress: string;
        emailPurpose?: string | null | undefined;
        emailPurposeDescription?: string | null | undefined;
        startDate?: string | undefined;
      })[]
    | undefined;
  gstNumber?: string | null | undefined;
  paymentBankAccountNumber?: string | null | undefined;
  'custom-data'?: (Identified & { key: string; value: string; startDate?: string | undefined })[] | undefined;
  privacy?: string | null | undefined;
  /** `{nzbn}` each (as answered), or the business numbers alone. */
  'nzbn-list'?: ({ nzbn: string } | string)[] | undefined;
}

/** Identifiers a build may need: one per sub-item. */
export const partIdentifiers = (input: PartLike): number =>
  (input.addresses?.length ?? 0) +
  (input.phoneNumbers?.length ?? 0) +
  (input.emailAddresses?.length ?? 0) +
  (input.purposes?.length ?? 0) +
  (input['custom-data']?.length ?? 0);

export interface PartSetting {
  opn: string;
  parent: { nzbn: string; entityName: string };
  now: string;
  newId: () => string;
  /** The part being replaced (its start date stays; its status date moves only with its status). */
  existing?: OrganisationPart;
}

/** The published value of a field, in any case; 400 naming the field and the values otherwise. */
function oneOf<T extends string>(value: string, allowed: readonly T[], field: string): T {
  const found = publishedValue(value, allowed);
  if (!found) throw new RuleError(field, `must be one of ${allowed.join(', ')}`);
  return found;
}

const orNull = (value: string | null | undefined): string | null => value?.trim() || null;

export function buildPart(input: PartLike, setting: PartSetting): OrganisationPart {
  const { now, newId, existing } = setting;
  const status = oneOf(
    input.organisationPartStatus ?? existing?.organisationPartStatus ?? 'ACTIVE',
    ORGANISATION_PART_STATUSES,
    'organisationPartStatus',
  );
  const privacy = oneOf(input.privacy ?? existing?.privacy ?? 'PUBLIC', ORGANISATION_PART_PRIVACY, 'privacy');
  const shared = [
    ...new Set((input['nzbn-list'] ?? []).map((item) => (typeof item === 'string' ? item : item.nzbn))),
  ];
  shared.forEach((nzbn, i) => {
    const problem = glnProblem(nzbn);
    if (problem) throw new RuleError(`nzbn-list.${i}.nzbn`, problem.message);
  });
  if (privacy === 'SHARED' && shared.length === 0) {
    throw new RuleError('nzbn-list', 'a SHARED part needs at least one business number to share with');
  }
  if (privacy !== 'SHARED' && shared.length > 0)
    throw new RuleError('nzbn-list', 'only a SHARED part has one');
  const name = input.name.trim();
  if (name === '') throw new RuleError('name', 'must not be blank');
  const gst = input.gstNumber?.replace(/[\s-]/g, '') || null;
  const gstProblem = gst === null ? null : irdNumberProblem(gst);
  if (gstProblem) throw new RuleError('gstNumber', gstProblem);
  const account = input.paymentBankAccountNumber?.trim() || null;
  const accountProblem = account === null ? null : bankAccountProblem(account);
  if (accountProblem) throw new RuleError('paymentBankAccountNumber', accountProblem);
  /** The identifier a sub-item keeps (one of the part's own of that list) or gets. */
  const idFor = (own: readonly { uniqueIdentifier: string }[] | undefined, given: Identified) =>
    given.uniqueIdentifier && own?.some((item) => item.uniqueIdentifier === given.uniqueIdentifier)
      ? given.uniqueIdentifier
      : newId();
  const date = (value: string | undefined, field: string) => readDate(value, now, field);
  return {
    opn: setting.opn,
    parentNzbn: setting.parent.nzbn,
    parentNzbnName: setting.parent.entityName,
    parentGln: input.parentGln ?? existing?.parentGln ?? setting.parent.nzbn,
    name,
    purposes: (input.purposes ?? []).map((purpose, i) => ({
      uniqueIdentifier: idFor(existing?.purposes, purpose),
      purpose: oneOf(purpose.purpose, ORGANISATION_PART_PURPOSES, `purposes.${i}.purpose`),
      purposeDescription: orNull(purpose.purposeDescription),
    })),
    function: input.function ? oneOf(input.function, ORGANISATION_PART_FUNCTIONS, 'function') : null,
    organisationPartStatus: status,
    addresses: (input.addresses ?? []).map((address, i) => ({
      uniqueIdentifier: idFor(existing?.addresses, address),
      startDate: date(address.startDate, `addresses.${i}.startDate`),
      careOf: orNull(address.careOf),
      address1: address.address1,
      address2: orNull(address.address2),
      address3: orNull(address.address3),
      address4: orNull(address.address4),
      postCode: orNull(address.postCode),
      countryCode: address.countryCode ?? 'NZ',
      addressType: oneOf(address.addressType, ORGANISATION_PART_ADDRESS_TYPES, `addresses.${i}.addressType`),
      pafId: orNull(address.pafId),
    })),
    phoneNumbers: (input.phoneNumbers ?? []).map((phone, i) =>
      phoneItem(phone, { id: idFor(existing?.phoneNumbers, phone), now, at: `phoneNumbers.${i}.` }),
    ),
    emailAddresses: (input.emailAddresses ?? []).map((email, i) => ({
      uniqueIdentifier: idFor(existing?.emailAddresses, email),
      emailAddress: email.emailAddress,
      emailPurpose: email.emailPurpose
        ? oneOf(email.emailPurpose, ORGANISATION_PART_EMAIL_PURPOSES, `emailAddresses.${i}.emailPurpose`)
        : null,
      emailPurposeDescription: orNull(email.emailPurposeDescription),
      startDate: date(email.startDate, `emailAddresses.${i}.startDate`),
    })),
    gstNumber: gst === null ? null : gst.padStart(9, '0'),
    paymentBankAccountNumber: account,
    'custom-data': (input['custom-data'] ?? []).map((item, i) => ({
      uniqueIdentifier: idFor(existing?.['custom-data'], item),
      key: item.key,
      value: item.value,
      startDate: date(item.startDate, `custom-data.${i}.startDate`),
    })),
    privacy,
    'nzbn-list': shared.map((nzbn) => ({ nzbn })),
    startDate: existing?.startDate ?? now,
    statusDate: existing && existing.organisationPartStatus === status ? existing.statusDate : now,
  };
}
