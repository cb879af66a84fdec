/**
 * The organisation parts of the fixed test cases (fixtures.ts lists them), as the seed creates them:
 * once, with the fee record for the third, never changed by a later seed (store/seed-load.ts
 * `insertFixtures` inserts only those missing). Their items take identifiers from 9,000,000,000 + part
 * number × 100, clear of generated (below 6,001,000,000) and store-allocated (from 10,000,000,000)
 * identifiers.
 */
import type { OrganisationPart } from '../domain/organisation-part.ts';
import type { Entity } from '../domain/schema.ts';
import type { OrganisationPartPlaceholder } from './fixtures.ts';
import { ORGANISATION_PART_BODY_START } from './numbers.ts';
import { entityPart } from './organisation-parts.ts';

const FIXTURE_PART_ITEM_BASE = 9_000_000_000;
const INACTIVE_SINCE = '2020-06-30T17:00:00.000+1200';

/** The organisation parts of a fixed test case, from its entity and its placeholders. */
export function fixtureParts(
  entity: Entity,
  placeholders: readonly OrganisationPartPlaceholder[],
): OrganisationPart[] {
  return placeholders.map((placeholder) => fixturePart(entity, placeholder));
}

function fixturePart(entity: Entity, placeholder: OrganisationPartPlaceholder): OrganisationPart {
  const number = Number(placeholder.opn.slice(4, 12)) - ORGANISATION_PART_BODY_START;
  const local = placeholder.name
    .toLowerCase()
    .replace(/^sandbox test /, '')
    .replace(/\W+/g, '.');
  const active = placeholder.organisationPartStatus === 'ACTIVE';
  return entityPart(entity, {
    opn: placeholder.opn,
    name: placeholder.name,
    function: placeholder.function,
    purposes: placeholder.purposes,
    status: placeholder.organisationPartStatus,
    privacy: placeholder.privacy,
    nzbnList: placeholder.nzbnList,
    startDate: entity.registrationDate,
    statusDate: active ? entity.registrationDate : INACTIVE_SINCE,
    addressType: 'DELIVERY',
    email: {
      address: `${local}@organisation-parts.sandbox.example`,
      purpose: 'INVOICE_ADDRESS',
      description: 'Invoices',
    },
    customData: [['fixture', 'yes']],
    id: (slot) => String(FIXTURE_PART_ITEM_BASE + number * 100 + slot),
  });
}
