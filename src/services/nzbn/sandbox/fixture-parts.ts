/**
 * The organisation parts of the fixed test cases (fixtures.ts lists them), as the seed creates them:
 * once, with the fee record for the third, never changed by a later seed (store/seed-load.ts
 * `insertFixtures` inserts only those missing). Their items take identifiers from 9,000,000,000 + part
 * number × 100, clear of generated (below 6,001,000,000) and store-allocated (from 10,000,000,000)
 * identifiers.
 */
import { seeded } from '../../../platform/random.ts';
import type { OrganisationPart } from '../domain/organisation-part.ts';
import type { Entity, PhoneNumber } from '../domain/schema.ts';
import { generateMobile } from './contacts.ts';
import type { OrganisationPartPlaceholder } from './fixtures.ts';
import { ORGANISATION_PART_BODY_START } from './numbers.ts';

const FIXTURE_PART_ITEM_BASE = 9_000_000_000;
const INACTIVE_SINCE = '2020-06-30T17:00:00.000+1200';

/** The organisation parts of a fixed test case, from its entity and its placeholders. */
export function fixtureParts(
  entity: Entity,
  placeholders: readonly OrganisationPartPlaceholder[],
): OrganisationPart[] {
  return placeholders.map((placeholder) => fixturePart(entity, placeholder));
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

function fixturePart(entity: Entity, placeholder: OrganisationPartPlaceholder): OrganisationPart {
  const number = Number(placeholder.opn.slice(4, 12)) - ORGANISATION_PART_BODY_START;
  const id = (slot: number) => String(FIXTURE_PART_ITEM_BASE + number * 100 + slot);
  const address = entity.addresses.addressList[0];
  const phone = entity.phoneNumbers[0];
  const local = placeholder.name
    .toLowerCase()
    .replace(/^sandbox test /, '')
    .replace(/\W+/g, '.');
  return {
    opn: placeholder.opn,
    parentNzbn: entity.nzbn,
    parentNzbnName: entity.entityName,
    parentGln: entity.nzbn,
    name: placeholder.name,
    purposes: placeholder.purposes.map(([purpose, description], i) => ({
      uniqueIdentifier: id(10 + i),
      purpose,
      purposeDescription: description,
    })),
    function: placeholder.function,
    organisationPartStatus: placeholder.organisationPartStatus,
    addresses: address
      ? [
          {
            uniqueIdentifier: id(1),
            startDate: entity.registrationDate,
            careOf: address.careOf,
            address1: address.address1,
            address2: address.address2,
            address3: address.address3,
            address4: address.address4,
            postCode: address.postCode,
            countryCode: address.countryCode,
            addressType: 'DELIVERY',
            pafId: address.pafId,
          },
        ]
      : [],
    phoneNumbers: [
      phone
        ? { ...phone, uniqueIdentifier: id(2), startDate: entity.registrationDate }
        : partPhone(placeholder.opn, id(2), entity.registrationDate),
    ],
    emailAddresses: [
      {
        uniqueIdentifier: id(3),
        emailAddress: `${local}@organisation-parts.sandbox.example`,
        emailPurpose: 'INVOICE_ADDRESS',
        emailPurposeDescription: 'Invoices',
        startDate: entity.registrationDate,
      },
    ],
    gstNumber: null,
    paymentBankAccountNumber: null,
    'custom-data': [
      { uniqueIdentifier: id(4), key: 'fixture', value: 'yes', startDate: entity.registrationDate },
    ],
    privacy: placeholder.privacy,
    'nzbn-list': placeholder.nzbnList.map((nzbn) => ({ nzbn })),
    startDate: entity.registrationDate,
    statusDate: placeholder.organisationPartStatus === 'ACTIVE' ? entity.registrationDate : INACTIVE_SINCE,
  };
}
