/**
 * Registrations of the simulated activity (activity.ts): a new sole trader, partnership or trust with
 * realistic names, addresses, contacts, trade and partners or trustees, registered through the same
 * transaction as POST /entities (store/register.ts).
 */
import type pg from 'pg';
import type { Geography } from '../../../platform/geography.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import type { Random } from '../../../platform/random.ts';
import { bicCodesInDivision } from '../domain/bic.ts';
import type { EntityTypeCode } from '../domain/codes.ts';
import type { AddressLike } from '../domain/items.ts';
import { newEntity, type RegistrationLike, registrationIdentifiers } from '../domain/registration.ts';
import { registerEntity } from '../store/register.ts';
import { advanceCursor, recordSimulatedEntity } from '../store/sandbox-activity.ts';
import { addressInput, personOf } from './activity-changes.ts';
import type { PlannedEvent } from './activity-plan.ts';
import type { Weighted } from './activity-rules.ts';
import { generateNzAddress, pickArea } from './addresses.ts';
import { businessEmail, domainFor, generateGstNumber, generateLandline, generateMobile } from './contacts.ts';
import { generateEntityName, type NameContext } from './names.ts';
import { generatePerson, generateRelative } from './people.ts';
import { divisionWeightsFor } from './profile.ts';

const REGISTRATION_TYPES: Weighted<EntityTypeCode> = [
  ['Sole_Trader', 8],
  ['Partnership', 2],
  ['Trading_Trust', 2.5],
];

/**
 * A new sole trader, partnership or trust, registered as POST /entities registers one (and noted as
 * the simulator's, with the cursor moved to the event, in the same transaction).
 */
export async function registerSimulated(
  pool: pg.Pool,
  event: PlannedEvent,
  geography: Geography,
): Promise<void> {
  const input = newRegistration(event.random, geography);
  const stamp = formatNzDateTime(event.at);
  await registerEntity(
    pool,
    new Date(event.at),
    registrationIdentifiers(input),
    (nzbn, newId) => newEntity(input, nzbn, stamp, newId),
    async (entity, client) => {
      await recordSimulatedEntity(client, entity.nzbn, new Date(event.at));
      await advanceCursor(client, event.at);
    },
  );
}

/** What an applicant sends to register a small business: its people, addresses, contacts and trade. */
export function newRegistration(random: Random, geography: Geography): RegistrationLike {
  const type = random.weighted(REGISTRATION_TYPES);
  const first = generatePerson(random);
  const people = [first];
  const more =
    type === 'Sole_Trader' ? 0 : type === 'Partnership' ? (random.chance(0.8) ? 1 : 2) : random.int(0, 1);
  for (let i = 0; i < more; i++)
    people.push(random.chance(0.5) ? generateRelative(random, first) : generatePerson(random));
  const area = pickArea(random, geography);
  const division = random.weighted(divisionWeightsFor(type));
  const context: NameContext = {
    division,
    place: area.suburb,
    town: area.district.town,
    district: area.district.name,
    region: area.region.shortName,
    people,
  };
  const name = generateEntityName(random, type, context);
  const rural = random.chance(0.15) ? 'rural' : 'street';
  const addresses: AddressLike[] = [];
  if (random.chance(0.8)) addresses.push(addressInput(generateNzAddress(random, area, rural), 'OFFICE'));
  if (addresses.length === 0 || random.chance(0.5)) {
    addresses.push(
      addressInput(generateNzAddress(random, area, random.chance(0.4) ? 'postal' : rural), 'POSTAL'),
    );
  }
  const domain = domainFor(random, name.stem);
  const phone = random.chance(0.7) ? generateMobile(random) : generateLandline(random, area);
  const roleType = type === 'Partnership' ? 'Partner' : type === 'Trading_Trust' ? 'Trustee' : undefined;
  const home = (): AddressLike =>
    addressInput(
      generateNzAddress(random, random.chance(0.85) ? pickArea(random, geography, area.region.code) : area),
      null,
    );
  const codes = bicCodesInDivision(division);
  return {
    entityTypeCode: type,
    entityName: name.legalName,
    addresses,
    phoneNumbers: random.chance(0.85)
      ? [{ ...phone, phonePurpose: random.chance(0.6) ? 'Primary' : null }]
      : [],
    emailAddresses: random.chance(0.8)
      ? [{ emailAddress: businessEmail(random, domain, first), emailPurpose: 'Primary' }]
      : [],
    tradingNames: random.chance(0.75) ? [{ name: name.stem }] : [],
    industryClassifications:
      codes.length > 0 && random.chance(0.8) ? [{ classificationCode: random.pick(codes).code }] : [],
    gstNumbers: random.chance(0.4) ? [{ gstNumber: generateGstNumber(random) }] : [],
    roles: roleType
      ? people.map((person) => ({ roleType, rolePerson: personOf(person), roleAddress: [home()] }))
      : [],
    privacySettings: {
      phonePrivateInformation: random.chance(0.3),
      emailPrivateInformation: random.chance(0.15),
      gstNumberPrivateInformation: random.chance(0.5),
    },
  };
}
