/**
 * Organisation parts of generated entities, and requests for access to their private ones. As in the
 * register, parts are a tool of larger businesses (e-invoicing, delivery points): a live company has
 * one now and then, a public sector entity more often, anyone else rarely; one to four each. Most
 * parts are public, a fifth private, a tenth shared with the entity's neighbour in the register; a
 * third of the private ones were asked for by that neighbour (pending, approved or declined).
 *
 * Deterministic: a function of the register's seed and the entity's index alone (its own stream, so
 * the entity itself does not move), so chunks can be made in any order. The neighbour is the entity at
 * `index ^ 1`, in the same chunk of any even chunk size; the caller drops a request whose neighbour its
 * chunk does not hold. Part numbers and sub-item identifiers have ranges of their own (numbers.ts).
 */
import { formatNzDateTime, parseNzDateTime } from '../../../platform/nz-time.ts';
import { type Random, seeded } from '../../../platform/random.ts';
import { isCompanyType, PUBLIC_SECTOR_TYPE_CODES } from '../domain/codes.ts';
import type {
  OrganisationPart,
  OrganisationPartFunction,
  OrganisationPartPrivacy,
  OrganisationPartPurposeType,
  OrganisationPartStatus,
} from '../domain/organisation-part.ts';
import type { AccessRequestStatus } from '../domain/organisation-part-access.ts';
import type { Entity, PhoneNumber } from '../domain/schema.ts';
import { generateMobile } from './contacts.ts';
import { generatedPartItemId, generatedPartNumber, MAX_INDEX_WITH_PARTS, nzbnForIndex } from './numbers.ts';
import { entityStream, type RegisterKey, registerKey } from './stream.ts';
import { randomDay } from './time.ts';

/** What a part is made from: the entity's own contact details, and these. */
export interface PartSpec {
  opn: string;
  name: string;
  function: OrganisationPartFunction;
  purposes: readonly (readonly [OrganisationPartPurposeType, string])[];
  status: OrganisationPartStatus;
  privacy: OrganisationPartPrivacy;
  nzbnList: readonly string[];
  startDate: string;
  statusDate: string;
  /** The part's address type (the entity's first address, moved there), and its email, if any. */
  addressType: 'PHYSICAL' | 'DELIVERY' | 'POSTAL' | 'INVOICE';
  email: { address: string; purpose: 'INVOICE_ADDRESS' | 'OTHER'; description: string } | null;
  customData: readonly (readonly [string, string])[];
  /** The identifier of the part's slot-th sub-item. */
  id(slot: number): string;
}

/** A mobile number for a part whose entity has no phone: the same for the same part number. */
function partPhone(opn: string, uniqueIdentifier: string, startDate: string): PhoneNumber {
  const drawn = generateMobile(seeded('organisation-part', opn));
  return {
    uniqueIdentifier,
    phonePurpose: 'Mobile',
    phonePurposeDescription: 'Mobile',
    phoneCountryCode: drawn.phoneCountryCode,
    phoneAreaCode: drawn.phoneAreaCode,
    phoneNumber: drawn.phoneNumber,
    startDate,
  };
}

/**
 * An organisation part of `entity` in the published shape, its address and phone the entity's first
 * (the seed's parts: the fixed test cases' and the generated entities').
 */
export function entityPart(entity: Entity, spec: PartSpec): OrganisationPart {
  const address = entity.addresses.addressList[0];
  const phone = entity.phoneNumbers[0];
  return {
    opn: spec.opn,
    parentNzbn: entity.nzbn,
    parentNzbnName: entity.entityName,
    parentGln: entity.nzbn,
    name: spec.name,
    purposes: spec.purposes.map(([purpose, description], i) => ({
      uniqueIdentifier: spec.id(10 + i),
      purpose,
      purposeDescription: description,
    })),
    function: spec.function,
    organisationPartStatus: spec.status,
    addresses: address
      ? [
          {
            uniqueIdentifier: spec.id(1),
            startDate: spec.startDate,
            careOf: address.careOf,
            address1: address.address1,
            address2: address.address2,
            address3: address.address3,
            address4: address.address4,
            postCode: address.postCode,
            countryCode: address.countryCode,
            addressType: spec.addressType,
            pafId: address.pafId,
          },
        ]
      : [],
    phoneNumbers: [
      phone
        ? { ...phone, uniqueIdentifier: spec.id(2), startDate: spec.startDate }
        : partPhone(spec.opn, spec.id(2), spec.startDate),
    ],
    emailAddresses: spec.email
      ? [
          {
            uniqueIdentifier: spec.id(3),
            emailAddress: spec.email.address,
            emailPurpose: spec.email.purpose,
            emailPurposeDescription: spec.email.description,
            startDate: spec.startDate,
          },
        ]
      : [],
    gstNumber: null,
    paymentBankAccountNumber: null,
    'custom-data': spec.customData.map(([key, value], i) => ({
      uniqueIdentifier: spec.id(4 + i),
      key,
      value,
      startDate: spec.startDate,
    })),
    privacy: spec.privacy,
    'nzbn-list': spec.nzbnList.map((nzbn) => ({ nzbn })),
    startDate: spec.startDate,
    statusDate: spec.statusDate,
  };
}

/** A generated request for access to a generated part, by the entity's neighbour. */
export interface GeneratedAccessRequest {
  opn: string;
  requestingIndex: number;
  status: AccessRequestStatus;
  requestedAt: number;
  decidedAt: number | null;
}

interface Kind {
  name: (city: string) => string;
  function: OrganisationPartFunction;
  purpose: readonly [OrganisationPartPurposeType, string];
  addressType: PartSpec['addressType'];
  mailbox: string | null;
}

const KINDS: readonly (readonly [Kind, number])[] = [
  [
    {
      name: () => 'Accounts Payable',
      function: 'FUNCTION',
      purpose: ['E_INVOICING', 'Invoices'],
      addressType: 'INVOICE',
      mailbox: 'accounts',
    },
    5,
  ],
  [
    {
      name: (city) => `${city} Branch`,
      function: 'PHYSICAL_LOCATION',
      purpose: ['OTHER', 'Branch'],
      addressType: 'PHYSICAL',
      mailbox: null,
    },
    4,
  ],
  [
    {
      name: () => 'Warehouse',
      function: 'PHYSICAL_LOCATION',
      purpose: ['LOCATIONARRIVAL', 'Deliveries'],
      addressType: 'DELIVERY',
      mailbox: 'deliveries',
    },
    3,
  ],
  [
    {
      name: () => 'Head Office',
      function: 'PHYSICAL_LOCATION',
      purpose: ['OTHER', 'Head office'],
      addressType: 'PHYSICAL',
      mailbox: null,
    },
    2,
  ],
  [
    {
      name: () => 'Online Store',
      function: 'DIGITAL_LOCATION',
      purpose: ['OTHER', 'Online orders'],
      addressType: 'POSTAL',
      mailbox: 'orders',
    },
    2,
  ],
];

const keys = new Map<string, RegisterKey>();

function partsStream(seed: string | number, index: number): Random {
  const name = `${seed}/organisation-parts`;
  let key = keys.get(name);
  if (!key) {
    key = registerKey(name);
    keys.set(name, key);
  }
  return entityStream(key, index);
}

/** How likely an entity is to have parts: live ones only, companies and the public sector most. */
function partChance(entity: Entity): number {
  if (entity.entityStatusCode !== '50') return 0;
  if (PUBLIC_SECTOR_TYPE_CODES.has(entity.entityTypeCode)) return 0.15;
  return isCompanyType(entity.entityTypeCode) ? 0.04 : 0.01;
}

/** The organisation parts of generated entity `index`, and the requests for access to them. */
export function generatedParts(
  seed: string | number,
  index: number,
  entity: Entity,
): { parts: OrganisationPart[]; requests: GeneratedAccessRequest[] } {
  if (index > MAX_INDEX_WITH_PARTS) return { parts: [], requests: [] };
  const random = partsStream(seed, index);
  if (!random.chance(partChance(entity))) return { parts: [], requests: [] };
  const count = random.weighted([
    [1, 12],
    [2, 5],
    [3, 2],
    [4, 1],
  ] as const);
  const registered = parseNzDateTime(entity.registrationDate)!;
  const lastUpdated = parseNzDateTime(entity.lastUpdatedDate)!;
  const city = entity.addresses.addressList[0]?.address3 ?? 'Main';
  const domain = entity.emailAddresses[0]?.emailAddress.split('@')[1];
  const neighbour = index ^ 1;
  const parts: OrganisationPart[] = [];
  const requests: GeneratedAccessRequest[] = [];
  for (let k = 0; k < count; k++) {
    const kind = random.weighted(KINDS);
    const privacy = random.weighted<OrganisationPartPrivacy>([
      ['PUBLIC', 7],
      ['PRIVATE', 2],
      ['SHARED', 1],
    ]);
    const started = randomDay(random, registered, lastUpdated);
    const status: OrganisationPartStatus = random.chance(0.08) ? 'INACTIVE' : 'ACTIVE';
    const statusSince = status === 'ACTIVE' ? started : randomDay(random, started, lastUpdated);
    const opn = generatedPartNumber(index, k);
    const part = entityPart(entity, {
      opn,
      name: kind.name(city),
      function: kind.function,
      purposes: [kind.purpose],
      status,
      privacy,
      nzbnList: privacy === 'SHARED' ? [nzbnForIndex(neighbour)] : [],
      startDate: formatNzDateTime(started),
      statusDate: formatNzDateTime(statusSince),
      addressType: kind.addressType,
      email:
        domain && kind.mailbox
          ? {
              address: `${kind.mailbox}@${domain}`,
              purpose: kind.function === 'FUNCTION' ? 'INVOICE_ADDRESS' : 'OTHER',
              description: kind.purpose[1],
            }
          : null,
      customData: [],
      id: (slot) => generatedPartItemId(index, k, slot),
    });
    parts.push(part);
    if (privacy === 'PRIVATE' && random.chance(1 / 3)) {
      const requestedAt = randomDay(random, started, lastUpdated);
      const requestStatus = random.weighted<AccessRequestStatus>([
        ['PENDING', 2],
        ['APPROVED', 2],
        ['DECLINED', 1],
      ]);
      const decidedAt = requestStatus === 'PENDING' ? null : randomDay(random, requestedAt, lastUpdated);
      requests.push({ opn, requestingIndex: neighbour, status: requestStatus, requestedAt, decidedAt });
    }
  }
  return { parts, requests };
}
