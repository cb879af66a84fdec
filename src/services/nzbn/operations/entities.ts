/**
 * Reads of one entity: the whole entity, each of its parts and `discoverable`, each answered with its
 * validators (ETag, Last-Modified). Private items are left out unless the caller is a signed-in user with
 * business authority over the entity. The stored document is sent as stored when the caller may see all
 * of it or nothing in it is private; otherwise the public view is made from it.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import type { Caller } from '../../../gateway/service-context.ts';
import { strongEtag } from '../../../platform/http/conditional.ts';
import { badRequest } from '../../../platform/http/errors.ts';
import type { ResourceValidators } from '../../../platform/http/operation.ts';
import { ADDRESS_TYPES, isAddressType, isCompanyType } from '../domain/codes.ts';
import {
  Addresses,
  BusinessEthnicityIdentifier,
  CompanyDetails,
  EmailAddress,
  type Entity,
  GstNumber,
  IndustryClassification,
  NonCompanyDetails,
  PaymentBankAccount,
  PhoneNumber,
  PrivacySettings,
  Role,
  TradingArea,
  TradingName,
  Website,
} from '../domain/schema.ts';
import {
  actsFor,
  baseUrl,
  entityView,
  latestOf,
  link,
  loadCachedEntity,
  loadEntity,
  type NzbnContext,
  partsSeenBy,
} from './support.ts';

/** A read's JSON as sent, with its validators. */
export interface ReadAnswer {
  body: string;
  validators: ResourceValidators;
}

/** A value as sent: its bytes, an ETag of its own (a hash of them) and the given Last-Modified. */
export function readAnswer(value: unknown, lastModified: Date): ReadAnswer {
  const body = JSON.stringify(value);
  return { body, validators: { etag: strongEtag(body), lastModified } };
}

export interface EntityPart {
  /** The path segment under `/entities/{nzbn}/`. */
  path: string;
  key: keyof Entity;
  schema: TSchema;
}

/** Sub-resources: path segment, entity key and the schema of the answer. */
export const ENTITY_PARTS: readonly EntityPart[] = [
  { path: 'addresses', key: 'addresses', schema: Addresses },
  { path: 'roles', key: 'roles', schema: Type.Array(Role) },
  { path: 'trading-names', key: 'tradingNames', schema: Type.Array(TradingName) },
  { path: 'phone-numbers', key: 'phoneNumbers', schema: Type.Array(PhoneNumber) },
  { path: 'email-addresses', key: 'emailAddresses', schema: Type.Array(EmailAddress) },
  { path: 'websites', key: 'websites', schema: Type.Array(Website) },
  {
    path: 'industry-classifications',
    key: 'industryClassifications',
    schema: Type.Array(IndustryClassification),
  },
  { path: 'company-details', key: 'company-details', schema: CompanyDetails },
  { path: 'non-company-details', key: 'non-company-details', schema: NonCompanyDetails },
  { path: 'privacy-settings', key: 'privacySettings', schema: PrivacySettings },
  {
    path: 'business-ethnicity-identifiers',
    key: 'businessEthnicityIdentifiers',
    schema: Type.Array(BusinessEthnicityIdentifier),
  },
  { path: 'payment-bank-accounts', key: 'paymentBankAccounts', schema: Type.Array(PaymentBankAccount) },
  { path: 'gst-numbers', key: 'gstNumbers', schema: Type.Array(GstNumber) },
  { path: 'trading-areas', key: 'tradingAreas', schema: Type.Array(TradingArea) },
];

/** The entity as the caller may see it: its validators and its bytes. */
export interface EntityAnswer {
  validators: ResourceValidators;
  body: string | Buffer;
}

/** The entity; the ETags and both views' bytes are made once per stored version (store/entity-cache.ts). */
export async function readEntity(
  context: NzbnContext,
  input: { caller: Caller | undefined; nzbn: string },
): Promise<EntityAnswer> {
  const entry = await loadCachedEntity(context, input.nzbn);
  const stored = entry.stored;
  const authorised = stored.hidesItems ? await actsFor(context, input.caller, stored.nzbn) : true;
  // The bytes are made once per stored version and view (CachedEntity), so taking them here costs a
  // look-up even when the answer is a 304; a closure in their place made every answer about 10% slower.
  return {
    validators: { etag: entry.viewEtag(authorised), lastModified: stored.lastUpdated },
    body: entry.body(authorised),
  };
}

/** One part as the caller may see it; addresses of one type when `addressType` is given. */
export async function readEntityPart(
  context: NzbnContext,
  input: { caller: Caller | undefined; nzbn: string; part: EntityPart; addressType?: string | undefined },
): Promise<ReadAnswer> {
  const { part } = input;
  const stored = await loadEntity(context, input.nzbn);
  const authorised = await actsFor(context, input.caller, stored.nzbn);
  const entity = entityView(stored, authorised);
  let value: unknown = entity[part.key];
  if (part.key === 'company-details' && !isCompanyType(entity.entityTypeCode)) {
    throw badRequest(
      'nzbn',
      `the entity is a ${entity.entityTypeDescription}, not a company: it has no company details`,
    );
  }
  if (part.key === 'non-company-details' && isCompanyType(entity.entityTypeCode)) {
    throw badRequest('nzbn', 'the entity is a company: see company-details');
  }
  if (part.key === 'addresses') value = filterAddresses(entity, input.addressType);
  return readAnswer(value, stored.lastUpdated);
}

/** The links of `discoverable` (the published Entity): each part by its key there, and its path. */
const DISCOVERABLE_LINKS: readonly { key: string; part: keyof Entity; path: string }[] = [
  { key: 'emailAddresses', part: 'emailAddresses', path: 'email-addresses' },
  { key: 'industryClassifications', part: 'industryClassifications', path: 'industry-classifications' },
  { key: 'phoneNumbers', part: 'phoneNumbers', path: 'phone-numbers' },
  { key: 'websites', part: 'websites', path: 'websites' },
  { key: 'tradingNames', part: 'tradingNames', path: 'trading-names' },
  { key: 'tradingAreas', part: 'tradingAreas', path: 'trading-areas' },
  { key: 'gstNumbers', part: 'gstNumbers', path: 'gst-numbers' },
  { key: 'paymentBankAccounts', part: 'paymentBankAccounts', path: 'payment-bank-accounts' },
  { key: 'privacySettings', part: 'privacySettings', path: 'privacy-settings' },
  { key: 'company-details', part: 'company-details', path: 'company-details' },
  { key: 'non-company-details', part: 'non-company-details', path: 'non-company-details' },
  { key: 'supporting-information', part: 'supporting-information', path: 'supporting-information' },
  { key: 'roles', part: 'roles', path: 'roles' },
];

/**
 * `discoverable`: the published Entity, the entity's own fields with a link (null when there is nothing
 * to find) in place of each part: one address link per address type it has, `organisationParts` when
 * the caller sees one. The ETag is of this caller's view; Last-Modified the latest change of what it is
 * made from.
 */
export async function discoverEntity(
  context: NzbnContext,
  input: { caller: Caller | undefined; nzbn: string },
): Promise<ReadAnswer> {
  const stored = await loadEntity(context, input.nzbn);
  const authorised = await actsFor(context, input.caller, stored.nzbn);
  const entity = entityView(stored, authorised);
  const { parts } = await partsSeenBy(context, input.caller, stored.nzbn);
  const discoverable = discoverableOf(context, entity, parts.length > 0);
  return readAnswer(discoverable, latestOf(stored.lastUpdated, parts));
}

/**
 * The published Entity of `entity` as the caller sees it: its own fields with a link (null when there is
 * nothing to find) in place of each part, one address link per address type it has, and a link to its
 * organisation parts when the caller sees one (`partsSeen`).
 */
export function discoverableOf(context: NzbnContext, entity: Entity, partsSeen: boolean) {
  const base = `${baseUrl(context)}/entities/${entity.nzbn}`;
  const links: Record<string, ReturnType<typeof link> | null> = {};
  for (const { key, part, path } of DISCOVERABLE_LINKS) {
    // Supporting information is not published by this register: never a link.
    links[key] =
      path !== 'supporting-information' && present(entity[part]) ? link(path, `${base}/${path}`) : null;
  }
  const types = [...new Set(entity.addresses.addressList.map((address) => address.addressType))];
  return {
    entityStatusCode: entity.entityStatusCode,
    entityName: entity.entityName,
    nzbn: entity.nzbn,
    entityTypeCode: entity.entityTypeCode,
    entityTypeDescription: entity.entityTypeDescription,
    entityStatusDescription: entity.entityStatusDescription,
    registrationDate: entity.registrationDate,
    sourceRegister: entity.sourceRegister,
    sourceRegisterUniqueIdentifier: entity.sourceRegisterUniqueIdentifier,
    lastUpdatedDate: entity.lastUpdatedDate,
    australianBusinessNumber: entity.australianBusinessNumber,
    emailAddresses: links.emailAddresses,
    addresses: types
      .filter((type) => type !== null)
      .map((type) => link('addresses', `${base}/addresses?address-type=${type}`)),
    industryClassifications: links.industryClassifications,
    phoneNumbers: links.phoneNumbers,
    websites: links.websites,
    tradingNames: links.tradingNames,
    tradingAreas: links.tradingAreas,
    gstNumbers: links.gstNumbers,
    paymentBankAccounts: links.paymentBankAccounts,
    privacySettings: links.privacySettings,
    'company-details': links['company-details'],
    'non-company-details': links['non-company-details'],
    'supporting-information': links['supporting-information'],
    roles: links.roles,
    organisationParts: partsSeen ? link('organisation-parts', `${base}/organisation-parts`) : null,
    businessEthnicityIdentifiers: present(entity.businessEthnicityIdentifiers)
      ? link('business-ethnicity-identifiers', `${base}/business-ethnicity-identifiers`)
      : null,
    hibernationStatusCode: entity.hibernationStatusCode,
    hibernationStatusDescription: entity.hibernationStatusDescription,
  };
}

function present(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

/**
 * The addresses of the published `address-type` (required; `ALL` for every type), named in any case;
 * 400 naming the parameter otherwise.
 */
export function addressesOfType<T extends { addressType: string | null }>(
  list: readonly T[],
  addressType: string | undefined,
): T[] {
  const wanted = (addressType ?? '').trim().toUpperCase();
  if (wanted === 'ALL') return [...list];
  if (!isAddressType(wanted)) {
    throw badRequest('address-type', `must be one of ${[...ADDRESS_TYPES, 'ALL'].join(', ')}`);
  }
  return list.filter((address) => address.addressType === wanted);
}

function filterAddresses(entity: Entity, addressType: string | undefined): Entity['addresses'] {
  return { ...entity.addresses, addressList: addressesOfType(entity.addresses.addressList, addressType) };
}
