/**
 * The published PostableEntity (the body of POST /entities) as a registration: its address lists become
 * addresses of the published address types, its other lists the entity's items, and an error found while
 * building the entity is named by the field the applicant sent (`phoneNumber.0.phoneNumber`, not ours).
 * Pure.
 *
 * The address lists: `registeredAddress` is REGISTERED, `postalAddress` POSTAL (with
 * `postalIsRegisteredAddress` / `postalIsPhysicalAddress` it is also the registered / physical address),
 * `principalPlaceOfActivity` OFFICE, `physicalAddress` DELIVERY, and `otherAddress` the type its
 * `description` names (SERVICE, INVOICE, RECORDS or SHAREREGISTER): the published address types have no
 * PHYSICAL, so these are ours. Identifiers of items are the register's to allocate: a value sent is
 * ignored. A value in a field the register sets (the business number, statuses, dates, descriptions, the
 * company details) is refused, naming the field.
 */
import { RuleError } from '../../../platform/errors.ts';
import type { AddressLike } from './items.ts';
import type { RegistrationLike } from './registration.ts';
import type { RoleLike } from './roles.ts';

type Item = Record<string, unknown>;
type Address = Omit<AddressLike, 'addressType'> & Item;

/** The PostableEntity as the route's schema has checked it (schemas/postable.ts). */
export interface PostableLike extends Item {
  entityTypeCode: string;
  entityName: string;
  emailAddress?: Item[];
  registeredAddress?: Address[];
  postalAddress?: (Address & {
    postalIsPhysicalAddress?: boolean | null;
    postalIsRegisteredAddress?: boolean | null;
  })[];
  physicalAddress?: Address[];
  principalPlaceOfActivity?: Address[];
  otherAddress?: (Address & { description: string })[];
  phoneNumber?: Item[];
  website?: Item[];
  tradingNames?: Item[];
  industryClassification?: Item[];
  privacySettings?: RegistrationLike['privacySettings'];
  roles?: (Item & { roleAddress?: Address[] })[];
}

/** Top-level fields the register sets. */
export const REGISTER_SETS = [
  'nzbn',
  'entityStatusCode',
  'entityTypeDescription',
  'entityStatusDescription',
  'registrationDate',
  'startDate',
  'sourceRegister',
  'sourceRegisterUniqueIdentifier',
  'gstStatus',
  'gstEffectiveDate',
  'lastUpdatedDate',
  'locationIdentifier',
  'australianBusinessNumber',
  'australianCompanyNumber',
  'australianServiceAddress',
  'entityNames',
  'entityStatus',
  'company',
  'supportingInformation',
] as const;

/** Fields of items the register sets (descriptions come from codes; ASIC details from the ASIC register). */
const ITEM_SETS: Readonly<Record<string, readonly string[]>> = {
  emailAddress: ['emailPurposeDescription'],
  phoneNumber: ['phonePurposeDescription'],
  industryClassification: ['classificationDescription'],
  roles: ['asicDirectorshipYn', 'asicName', 'acn', 'roleAsicAddress'],
};

const OTHER_ADDRESS_TYPES = ['SERVICE', 'INVOICE', 'RECORDS', 'SHAREREGISTER'] as const;

export interface PostableRegistration {
  application: RegistrationLike;
  /** The field the applicant sent for one of the registration's own (`addresses.2.postCode` → `postalAddress.0.postCode`). */
  publishedField(field: string): string;
}

const given = (value: unknown) => value !== undefined && value !== null;

/** Drops the register's identifiers and the empty end date of one item. */
function own<T extends Item>(item: T, at: string): T {
  const { uniqueIdentifier: _id, endDate, ...rest } = item;
  if (given(endDate))
    throw new RuleError(`${at}endDate`, 'must be empty: a new entity’s details are current');
  return rest as T;
}

function refuseRegisterSet(body: PostableLike): void {
  for (const name of REGISTER_SETS) {
    if (given(body[name])) throw new RuleError(name, 'is set by the register, not by the applicant');
  }
  for (const [list, names] of Object.entries(ITEM_SETS)) {
    const items = (body[list] as Item[] | undefined) ?? [];
    items.forEach((item, i) => {
      for (const name of names) {
        if (given(item[name])) throw new RuleError(`${list}.${i}.${name}`, 'is set by the register');
      }
    });
  }
}

/** The registration a PostableEntity describes, and how to name its fields as sent. */
export function fromPostable(body: PostableLike): PostableRegistration {
  refuseRegisterSet(body);
  const addresses: AddressLike[] = [];
  const addressSource: string[] = [];
  const add = (list: string, i: number, address: Address, addressType: string) => {
    const {
      postalIsPhysicalAddress: _p,
      postalIsRegisteredAddress: _r,
      description: _d,
      ...fields
    } = own(address, `${list}.${i}.`);
    addresses.push({ ...(fields as Omit<AddressLike, 'addressType'>), addressType });
    addressSource.push(`${list}.${i}.`);
  };
  for (const [i, a] of (body.registeredAddress ?? []).entries()) add('registeredAddress', i, a, 'REGISTERED');
  (body.postalAddress ?? []).forEach((a, i) => {
    add('postalAddress', i, a, 'POSTAL');
    if (a.postalIsRegisteredAddress) add('postalAddress', i, a, 'REGISTERED');
    if (a.postalIsPhysicalAddress) add('postalAddress', i, a, 'DELIVERY');
  });
  for (const [i, a] of (body.principalPlaceOfActivity ?? []).entries())
    add('principalPlaceOfActivity', i, a, 'OFFICE');
  for (const [i, a] of (body.physicalAddress ?? []).entries()) add('physicalAddress', i, a, 'DELIVERY');
  (body.otherAddress ?? []).forEach((a, i) => {
    const type = a.description.trim().toUpperCase();
    if (!(OTHER_ADDRESS_TYPES as readonly string[]).includes(type)) {
      throw new RuleError(
        `otherAddress.${i}.description`,
        `must name the address type: ${OTHER_ADDRESS_TYPES.join(', ')}`,
      );
    }
    add('otherAddress', i, a, type);
  });
  const items = (list: Item[] | undefined, name: string) =>
    (list ?? []).map((item, i) => own(item, `${name}.${i}.`));
  const roles = (body.roles ?? []).map((role, i) => {
    const { asicDirectorshipYn: _a, asicName: _n, acn: _c, roleAsicAddress: _r, roleAddress, ...rest } = role;
    return {
      ...rest,
      ...(roleAddress
        ? {
            roleAddress: roleAddress.map((a, j) => ({
              ...own(a, `roles.${i}.roleAddress.${j}.`),
              addressType: null,
            })),
          }
        : {}),
    } as unknown as RoleLike;
  });
  const application: RegistrationLike = {
    entityTypeCode: body.entityTypeCode,
    entityName: body.entityName,
    addresses,
    emailAddresses: items(body.emailAddress, 'emailAddress').map(
      ({ emailPurposeDescription: _, ...e }) => e,
    ) as RegistrationLike['emailAddresses'],
    phoneNumbers: items(body.phoneNumber, 'phoneNumber').map(
      ({ phonePurposeDescription: _, ...p }) => p,
    ) as RegistrationLike['phoneNumbers'],
    websites: items(body.website, 'website') as RegistrationLike['websites'],
    tradingNames: items(body.tradingNames, 'tradingNames') as RegistrationLike['tradingNames'],
    industryClassifications: items(body.industryClassification, 'industryClassification').map(
      ({ classificationDescription: _, ...c }) => c,
    ) as RegistrationLike['industryClassifications'],
    roles,
    ...(body.privacySettings ? { privacySettings: body.privacySettings } : {}),
  };
  const renames: [string, string][] = [
    ['emailAddresses.', 'emailAddress.'],
    ['phoneNumbers.', 'phoneNumber.'],
    ['websites.', 'website.'],
    ['industryClassifications.', 'industryClassification.'],
  ];
  return {
    application,
    publishedField(field) {
      const address = /^addresses\.(\d+)\.(.*)$/.exec(field);
      if (address) return `${addressSource[Number(address[1])] ?? 'addresses.'}${address[2]}`;
      for (const [ours, theirs] of renames)
        if (field.startsWith(ours)) return theirs + field.slice(ours.length);
      return field;
    },
  };
}
