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
import type { ItemContext } from './items.ts';
import {
  ORGANISATION_PART_FUNCTIONS,
  ORGANISATION_PART_PRIVACY,
  ORGANISATION_PART_STATUSES,
  type OrganisationPart,
} from './organisation-part.ts';
import {
  type MetadataLike,
  oneOf,
  type PartAddressLike,
  type PartEmailLike,
  type PartPhoneLike,
  type PurposeLike,
  partAddress,
  partEmail,
  partMetadata,
  partPhone,
  partPurpose,
} from './organisation-part-items.ts';

type Identified = { uniqueIdentifier?: string | null | undefined };

export interface PartLike {
  opn?: string | null | undefined;
  parentGln?: string | null | undefined;
  name: string;
  purposes?: PurposeLike[] | undefined;
  function?: string | null | undefined;
  organisationPartStatus?: string | null | undefined;
  addresses?: PartAddressLike[] | undefined;
  phoneNumbers?: PartPhoneLike[] | undefined;
  emailAddresses?: PartEmailLike[] | undefined;
  gstNumber?: string | null | undefined;
  paymentBankAccountNumber?: string | null | undefined;
  'custom-data'?: MetadataLike[] | undefined;
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
  /** Each item of a list built by `build`, its identifier kept or new, its fields named `list.i.…`. */
  const items = <In extends Identified, Out>(
    given: readonly In[] | undefined,
    own: readonly { uniqueIdentifier: string }[] | undefined,
    list: string,
    build: (input: In, context: ItemContext) => Out,
  ): Out[] => (given ?? []).map((item, i) => build(item, { id: idFor(own, item), now, at: `${list}.${i}.` }));
  return {
    opn: setting.opn,
    parentNzbn: setting.parent.nzbn,
    parentNzbnName: setting.parent.entityName,
    parentGln: input.parentGln ?? existing?.parentGln ?? setting.parent.nzbn,
    name,
    purposes: items(input.purposes, existing?.purposes, 'purposes', partPurpose),
    function: input.function ? oneOf(input.function, ORGANISATION_PART_FUNCTIONS, 'function') : null,
    organisationPartStatus: status,
    addresses: items(input.addresses, existing?.addresses, 'addresses', partAddress),
    phoneNumbers: items(input.phoneNumbers, existing?.phoneNumbers, 'phoneNumbers', partPhone),
    emailAddresses: items(input.emailAddresses, existing?.emailAddresses, 'emailAddresses', partEmail),
    gstNumber: gst === null ? null : gst.padStart(9, '0'),
    paymentBankAccountNumber: account,
    'custom-data': items(input['custom-data'], existing?.['custom-data'], 'custom-data', partMetadata),
    privacy,
    'nzbn-list': shared.map((nzbn) => ({ nzbn })),
    startDate: existing?.startDate ?? now,
    statusDate: existing && existing.organisationPartStatus === status ? existing.statusDate : now,
  };
}
