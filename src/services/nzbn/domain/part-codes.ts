/**
 * Code lists for the parts of an entity record: addresses, roles, contact purposes, change events,
 * hibernation, privacy flags, trading areas and business ethnicity. Where `reference/nzbn.md` names a
 * value it is used exactly; where it leaves the list open the values are ours and marked so.
 */

// ---------------------------------------------------------------------------------------------
// Addresses

export type AddressType = (typeof ADDRESS_TYPES)[number];

/** Published list. */
export const ADDRESS_TYPES = [
  'REGISTERED',
  'POSTAL',
  'SERVICE',
  'OFFICE',
  'DELIVERY',
  'INVOICE',
  'RECORDS',
  'SHAREREGISTER',
] as const;

/** Descriptions are ours (the published API carries only the code). */
export const ADDRESS_TYPE_DESCRIPTIONS: Readonly<Record<AddressType, string>> = {
  REGISTERED: 'Registered office',
  POSTAL: 'Postal address',
  SERVICE: 'Address for service',
  OFFICE: 'Office address (principal place of activity)',
  DELIVERY: 'Delivery address',
  INVOICE: 'Invoice address',
  RECORDS: 'Address for records',
  SHAREREGISTER: 'Address for share register',
};

export function isAddressType(value: string): value is AddressType {
  return (ADDRESS_TYPES as readonly string[]).includes(value);
}

// ---------------------------------------------------------------------------------------------
// Roles

export type RoleType = (typeof ROLE_TYPES)[number];

/** "Director" and "Shareholder" are published; the rest follow their style and are ours. */
export const ROLE_TYPES = [
  'Director',
  'Shareholder',
  'Partner',
  'General Partner',
  'Limited Partner',
  'Trustee',
  'Sole Trader',
  'Officer',
  'Authorised Person',
  'Liquidator',
  'Receiver',
  'Administrator',
] as const;

export type RoleStatus = (typeof ROLE_STATUSES)[number];

/** "ACTIVE" is published; "INACTIVE" (a role that has ended, with an endDate) is ours. */
export const ROLE_STATUSES = ['ACTIVE', 'INACTIVE'] as const;

// ---------------------------------------------------------------------------------------------
// Contact purposes (open in the reference; "Primary" / "Primary" is what live responses show)

export interface PurposeInfo {
  readonly code: string;
  readonly description: string;
}

const purposes = (...pairs: (readonly [string, string])[]): readonly PurposeInfo[] =>
  pairs.map(([code, description]) => ({ code, description }));

export const PHONE_PURPOSES = purposes(
  ['Primary', 'Primary'],
  ['Mobile', 'Mobile'],
  ['Fax', 'Fax'],
  ['Freephone', 'Freephone'],
  ['Invoice', 'Accounts and invoicing'],
);

export const EMAIL_PURPOSES = purposes(
  ['Primary', 'Primary'],
  ['Invoice', 'Accounts and invoicing'],
  ['Enquiries', 'General enquiries'],
  ['Orders', 'Orders'],
);

export const WEBSITE_PURPOSES = purposes(
  ['Primary', 'Primary'],
  ['Online store', 'Online store'],
  ['Social media', 'Social media'],
);

export function purposeDescription(list: readonly PurposeInfo[], code: string): string | undefined {
  return list.find((purpose) => purpose.code === code)?.description;
}

// ---------------------------------------------------------------------------------------------
// Change events

export interface ChangeEventTypeInfo {
  readonly code: string;
  readonly description: string;
  /** Published (clients send it); the others are emitted by our register for changes it makes. */
  readonly published: boolean;
}

const event = (code: string, published: boolean, description: string): ChangeEventTypeInfo => ({
  code,
  description,
  published,
});

export const CHANGE_EVENT_TYPES: readonly ChangeEventTypeInfo[] = [
  event('ALL', true, 'Filter only: every change of every type'),
  event('NEW', true, 'A new entity was registered'),
  event('ENTITY', true, 'Filter only: every change to an existing entity (all types but NEW)'),
  event(
    'ROLES_DIRECTOR',
    true,
    'A director was appointed, changed or removed; new value is the whole director',
  ),
  event('ENTITY_NAME', true, 'The entity name changed'),
  event('ENTITY_STATUS', true, 'The entity status changed'),
  event('COMPANYDETAILS_ANNUALRETURNS', true, 'An annual return was filed'),
  event('COMPANYDETAILS_FINANCIALSTATEMENTS', true, 'Financial statements were filed'),
  event('COMPANYDETAILS_REMOVALCOMMENCED', true, 'Removal of the company from the register commenced'),
  event('BUSINESSETHNICITYIDENTIFIER', true, 'Business ethnicity identifiers changed'),
  event('PAYMENTBANKACCOUNT', true, 'Payment bank account numbers changed'),
  event('ROLES_SHAREHOLDER', false, 'A shareholder role changed'),
  event('ROLES_PARTNER', false, 'A partner role changed'),
  event('ROLES_TRUSTEE', false, 'A trustee role changed'),
  event('ROLES_OTHER', false, 'Any other role changed (sole trader, officer, authorised person …)'),
  event('ADDRESS', false, 'An address was added, changed or removed'),
  event('TRADINGNAME', false, 'Trading names changed'),
  event('PHONENUMBER', false, 'Phone numbers changed'),
  event('EMAILADDRESS', false, 'Email addresses changed'),
  event('WEBSITE', false, 'Websites changed'),
  event('INDUSTRYCLASSIFICATION', false, 'Industry classifications changed'),
  event('GSTNUMBER', false, 'GST numbers changed'),
  event('TRADINGAREA', false, 'Trading areas changed'),
  event('PRIVACYSETTINGS', false, 'Privacy settings changed'),
  event('AUSTRALIANBUSINESSNUMBER', false, 'The Australian Business Number changed'),
  event('HIBERNATIONSTATUS', false, 'The hibernation status changed'),
  event('ORGANISATIONPART', false, 'An organisation part was created or updated'),
  event(
    'FILING',
    false,
    'A company filed a document (POST /companies-document-upload); new value is the filing',
  ),
];

const CHANGE_EVENT_CODES = new Set(CHANGE_EVENT_TYPES.map((type) => type.code));
/** Filter-only codes never appear on a recorded change item. */
export const FILTER_ONLY_CHANGE_EVENT_TYPES: ReadonlySet<string> = new Set(['ALL', 'ENTITY']);

export function isChangeEventType(value: string): boolean {
  return CHANGE_EVENT_CODES.has(value);
}

/** Whether a recorded change of type `recorded` answers a search or watchlist for `filter`. */
export function changeEventMatches(filter: string, recorded: string): boolean {
  if (filter === 'ALL') return true;
  if (filter === 'ENTITY') return recorded !== 'NEW';
  return filter === recorded;
}

// ---------------------------------------------------------------------------------------------
// Hibernation (open in the reference; NZBN-only entities may say they are not trading for a while)

export type HibernationStatusCode = 'HIBERNATING' | 'TRADING';

export const HIBERNATION_STATUSES: Readonly<Record<HibernationStatusCode, string>> = {
  HIBERNATING: 'Hibernating (not currently trading)',
  TRADING: 'Trading (returned from hibernation)',
};

// ---------------------------------------------------------------------------------------------
// Privacy

/**
 * Flags of `privacySettings`, as live clients model them. `publicSuggestChangesYn` is not a privacy
 * flag (it lets the public suggest corrections) but lives in the same object.
 */
export const PRIVACY_FLAGS = [
  'namePrivateInformation',
  'tradingNamePrivateInformation',
  'businessClassificationPrivateInformation',
  'phonePrivateInformation',
  'emailPrivateInformation',
  'partnersPrivateInformation',
  'trusteesPrivateInformation',
  'abnPrivateInformation',
  'gstNumberPrivateInformation',
  'paymentBankAccountNumbersPrivateInformation',
  'registeredAddressPrivateInformation',
  'postalAddressPrivateInformation',
  'serviceAddressPrivateInformation',
  'invoiceAddressPrivateInformation',
  'deliveryAddressPrivateInformation',
  'officeAddressPrivateInformation',
  'businessEthnicityPrivateInformation',
] as const;

export type PrivacyFlag = (typeof PRIVACY_FLAGS)[number];

/** The flag that makes an address of a given type private (records and share register are always public). */
export const ADDRESS_PRIVACY_FLAG: Readonly<Partial<Record<string, PrivacyFlag>>> = {
  REGISTERED: 'registeredAddressPrivateInformation',
  POSTAL: 'postalAddressPrivateInformation',
  SERVICE: 'serviceAddressPrivateInformation',
  INVOICE: 'invoiceAddressPrivateInformation',
  DELIVERY: 'deliveryAddressPrivateInformation',
  OFFICE: 'officeAddressPrivateInformation',
};

// ---------------------------------------------------------------------------------------------
// Trading areas (open in the reference): where a business trades, by region or wider

export const TRADING_AREAS = [
  'Nationwide',
  'Northland',
  'Auckland',
  'Waikato',
  'Bay of Plenty',
  'Gisborne',
  "Hawke's Bay",
  'Taranaki',
  'Manawatu-Wanganui',
  'Wellington',
  'Tasman',
  'Nelson',
  'Marlborough',
  'West Coast',
  'Canterbury',
  'Otago',
  'Southland',
  'Chatham Islands',
  'Australia',
  'International',
] as const;

// ---------------------------------------------------------------------------------------------
// Business ethnicity identifiers: the published values (Ethnicity, Factor)

export const BUSINESS_ETHNICITIES = ['MAORI', 'OTHER'] as const;

/** How much of the business the identified people own (the published Factor). */
export const ETHNICITY_IDENTIFYING_FACTORS = [
  'OWNERSHIP_50_PERCENT_OR_MORE',
  'OWNERSHIP_LESS_THAN_50_PERCENT',
  'OWNERSHIP_UNSPECIFIED',
] as const;
