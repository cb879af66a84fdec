/**
 * An organisation part made from a create or replace request: status and privacy read whatever their
 * case, a shared part's list of business numbers checked, the GST number and bank account checked, and
 * the register's fields set (identifiers, start and status dates). Pure.
 */
import { RuleError } from '../../../platform/errors.ts';
import { glnProblem } from '../../../platform/gs1.ts';
import { bankAccountProblem, irdNumberProblem } from './identifiers.ts';
import { type AddressLike, addressItem, emailItem, phoneItem } from './items.ts';
import { type OrganisationPart, readPrivacy, readStatus } from './organisation-part.ts';

export interface PartLike {
  opn?: string;
  parentGln?: string;
  name: string;
  purposes?: string[];
  function?: string | null;
  organisationPartStatus?: string;
  addresses?: AddressLike[];
  phoneNumbers?: Parameters<typeof phoneItem>[0][];
  emailAddresses?: Parameters<typeof emailItem>[0][];
  gstNumber?: string | null;
  paymentBankAccountNumber?: string | null;
  customData?: Record<string, string> | null;
  privacy?: string;
  nzbnList?: string[];
}

export const partIdentifiers = (input: PartLike): number =>
  (input.addresses?.length ?? 0) + (input.phoneNumbers?.length ?? 0) + (input.emailAddresses?.length ?? 0);

export interface PartSetting {
  opn: string;
  parent: { nzbn: string; entityName: string };
  now: string;
  newId: () => string;
  /** The part being replaced (its start date stays; its status date moves only with its status). */
  existing?: OrganisationPart;
}

export function buildPart(input: PartLike, setting: PartSetting): OrganisationPart {
  const status = readStatus(
    input.organisationPartStatus ?? setting.existing?.organisationPartStatus ?? 'Active',
  );
  if (!status) throw new RuleError('organisationPartStatus', 'must be Active or Inactive');
  const privacy = readPrivacy(input.privacy ?? setting.existing?.privacy ?? 'public');
  if (!privacy) throw new RuleError('privacy', 'must be public, private or shared');
  const nzbnList = [...new Set(input.nzbnList ?? [])];
  nzbnList.forEach((nzbn, i) => {
    const problem = glnProblem(nzbn);
    if (problem) throw new RuleError(`nzbnList.${i}`, problem.message);
  });
  if (privacy === 'shared' && nzbnList.length === 0) {
    throw new RuleError('nzbnList', 'a shared part needs at least one business number to share with');
  }
  if (privacy !== 'shared' && nzbnList.length > 0)
    throw new RuleError('nzbnList', 'only a shared part has one');
  const name = input.name.trim();
  if (name === '') throw new RuleError('name', 'must not be blank');
  const gst = input.gstNumber?.replace(/[\s-]/g, '') || null;
  const gstProblem = gst === null ? null : irdNumberProblem(gst);
  if (gstProblem) throw new RuleError('gstNumber', gstProblem);
  const account = input.paymentBankAccountNumber?.trim() || null;
  const accountProblem = account === null ? null : bankAccountProblem(account);
  if (accountProblem) throw new RuleError('paymentBankAccountNumber', accountProblem);
  const { now, newId, existing } = setting;
  const item = (field: string, i: number) => ({ id: newId(), now, at: `${field}.${i}.` });
  return {
    opn: setting.opn,
    parentNzbn: setting.parent.nzbn,
    parentNzbnName: setting.parent.entityName,
    parentGln: input.parentGln ?? existing?.parentGln ?? setting.parent.nzbn,
    name,
    purposes: (input.purposes ?? []).map((purpose) => purpose.trim()).filter(Boolean),
    function: input.function?.trim() || null,
    organisationPartStatus: status,
    addresses: (input.addresses ?? []).map((address, i) => addressItem(address, item('addresses', i))),
    phoneNumbers: (input.phoneNumbers ?? []).map((phone, i) => phoneItem(phone, item('phoneNumbers', i))),
    emailAddresses: (input.emailAddresses ?? []).map((email, i) =>
      emailItem(email, item('emailAddresses', i)),
    ),
    gstNumber: gst === null ? null : gst.padStart(9, '0'),
    paymentBankAccountNumber: account,
    customData: input.customData ?? null,
    privacy,
    nzbnList,
    startDate: existing?.startDate ?? now,
    statusDate: existing && existing.organisationPartStatus === status ? existing.statusDate : now,
  };
}
