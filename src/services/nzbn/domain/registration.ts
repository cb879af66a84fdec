/**
 * A new entity registered through POST /entities: the types that may opt in (sole traders,
 * partnerships, trusts), registered now, with the Primary Business Data the applicant gives. The
 * register allocates the business number (store) and the identifiers (`newId`). Pure.
 */
import { RuleError } from '../../../platform/errors.ts';
import {
  ENTITY_STATUSES,
  ENTITY_TYPES,
  type EntityTypeCode,
  entityTypesForFilter,
  PRIVACY_FLAGS,
  REGISTRABLE_ENTITY_TYPES,
} from './codes.ts';
import {
  type AddressLike,
  addressItem,
  bankAccountItem,
  classificationItem,
  emailItem,
  ethnicityItem,
  gstItem,
  phoneItem,
  tradingAreaItem,
  tradingNameItem,
  websiteItem,
} from './items.ts';
import { type RoleLike, replaceRoles } from './roles.ts';
import type { Entity, PrivacySettings } from './schema.ts';

export interface RegistrationLike {
  entityTypeCode: string;
  entityName: string;
  addresses?: AddressLike[];
  phoneNumbers?: Parameters<typeof phoneItem>[0][];
  emailAddresses?: Parameters<typeof emailItem>[0][];
  websites?: Parameters<typeof websiteItem>[0][];
  tradingNames?: Parameters<typeof tradingNameItem>[0][];
  industryClassifications?: Parameters<typeof classificationItem>[0][];
  gstNumbers?: Parameters<typeof gstItem>[0][];
  tradingAreas?: Parameters<typeof tradingAreaItem>[0][];
  paymentBankAccounts?: Parameters<typeof bankAccountItem>[0][];
  businessEthnicityIdentifiers?: Parameters<typeof ethnicityItem>[0][];
  roles?: RoleLike[];
  privacySettings?: Partial<PrivacySettings>;
}

/** The registrable type a request names (its code, or a filter name such as SoleTrader or Trust). */
export function registrableType(name: string): EntityTypeCode {
  const codes = entityTypesForFilter(name) ?? [];
  const code = codes.length === 1 ? codes[0] : undefined;
  if (!code || !REGISTRABLE_ENTITY_TYPES.includes(code)) {
    throw new RuleError(
      'entityTypeCode',
      `must be one of ${REGISTRABLE_ENTITY_TYPES.join(', ')}: other entities come from their source register`,
    );
  }
  return code;
}

/** Identifiers the registration needs at most. */
export function registrationIdentifiers(input: RegistrationLike): number {
  const lists = [
    input.addresses,
    input.phoneNumbers,
    input.emailAddresses,
    input.websites,
    input.tradingNames,
    input.industryClassifications,
    input.gstNumbers,
    input.tradingAreas,
    input.paymentBankAccounts,
    input.businessEthnicityIdentifiers,
  ];
  const roles = (input.roles ?? []).reduce((n, role) => n + 1 + (role.roleAddress?.length ?? 0), 0);
  return lists.reduce((n, list) => n + (list?.length ?? 0), 0) + roles;
}

export function newEntity(input: RegistrationLike, nzbn: string, now: string, newId: () => string): Entity {
  const type = registrableType(input.entityTypeCode);
  const name = input.entityName.trim();
  if (name === '') throw new RuleError('entityName', 'must not be blank');
  const each = <I, O>(
    list: I[] | undefined,
    field: string,
    make: (item: I, context: { id: string; now: string; at: string }) => O,
  ) => (list ?? []).map((item, i) => make(item, { id: newId(), now, at: `${field}.${i}.` }));
  const classifications = each(input.industryClassifications, 'industryClassifications', classificationItem);
  const privacy = Object.fromEntries(
    [...PRIVACY_FLAGS, 'publicSuggestChangesYn'].map((flag) => [flag, false]),
  );
  const roles = (input.roles ?? []).map((role) => ({ ...role, uniqueIdentifier: undefined }) as RoleLike);
  return {
    entityStatusCode: '50',
    entityName: name,
    nzbn,
    entityTypeCode: type,
    entityTypeDescription: ENTITY_TYPES[type].description,
    entityStatusDescription: ENTITY_STATUSES['50'].description,
    registrationDate: now,
    sourceRegister: ENTITY_TYPES[type].sourceRegister,
    sourceRegisterUniqueIdentifier: null,
    lastUpdatedDate: now,
    australianBusinessNumber: null,
    hibernationStatusCode: null,
    hibernationStatusDescription: null,
    addresses: { links: [], addressList: each(input.addresses, 'addresses', addressItem) },
    emailAddresses: each(input.emailAddresses, 'emailAddresses', emailItem),
    phoneNumbers: each(input.phoneNumbers, 'phoneNumbers', phoneItem),
    websites: each(input.websites, 'websites', websiteItem),
    tradingNames: each(input.tradingNames, 'tradingNames', tradingNameItem),
    industryClassifications: classifications,
    classifications: classifications.map((item) => ({ ...item })),
    privacySettings: { ...(privacy as PrivacySettings), ...input.privacySettings },
    'company-details': null,
    'non-company-details': {
      annualReturnFilingMonth: null,
      countryOfOrigin: 'NZ',
      registeredUnionStatus: null,
      charitiesNumber: null,
      balanceDate: null,
    },
    'supporting-information': null,
    roles: rolesOf(roles, now, newId),
    tradingAreas: each(input.tradingAreas, 'tradingAreas', tradingAreaItem),
    gstNumbers: each(input.gstNumbers, 'gstNumbers', gstItem),
    paymentBankAccounts: each(input.paymentBankAccounts, 'paymentBankAccounts', bankAccountItem),
    businessEthnicityIdentifiers: each(
      input.businessEthnicityIdentifiers,
      'businessEthnicityIdentifiers',
      ethnicityItem,
    ),
  };
}

function rolesOf(roles: RoleLike[], now: string, newId: () => string) {
  try {
    return replaceRoles([], roles, now, newId).roles;
  } catch (error) {
    if (error instanceof RuleError) throw error.within('roles.');
    throw error;
  }
}
