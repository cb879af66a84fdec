/**
 * Fixed test-case entities for integrators: one per entity type, one per status, and special cases
 * (private data, organisation parts, an entity the operator's sandbox user has authority over), and the
 * requests for access to their private parts. Their
 * business numbers live in a range of their own (numbers.ts) and they are generated from a fixed seed
 * and a fixed "now", so they are the same in every sandbox whatever seed or scale it was built with.
 * The README lists them.
 */

import { nzLocalToEpoch } from '../../../platform/nz-time.ts';
import {
  ENTITY_STATUS_CODES,
  ENTITY_STATUSES,
  ENTITY_TYPE_CODES,
  ENTITY_TYPES,
  type EntityStatusCode,
  type EntityTypeCode,
} from '../domain/codes.ts';
import type {
  OrganisationPartFunction,
  OrganisationPartPrivacy,
  OrganisationPartPurposeType,
  OrganisationPartStatus,
} from '../domain/organisation-part.ts';
import type { AccessRequestStatus } from '../domain/organisation-part-access.ts';
import type { Entity } from '../domain/schema.ts';
import {
  DEFAULT_AS_OF,
  type EntityOverrides,
  entityRandom,
  type GeneratorContext,
  generateEntity,
} from './entity.ts';
import { FIXTURE_INDEX_START, fixtureNzbn, nzbnFromBody, ORGANISATION_PART_BODY_START } from './numbers.ts';

export interface OrganisationPartPlaceholder {
  readonly opn: string;
  readonly name: string;
  readonly function: OrganisationPartFunction;
  /** Published purposes, each with its description. */
  readonly purposes: readonly (readonly [OrganisationPartPurposeType, string])[];
  readonly organisationPartStatus: OrganisationPartStatus;
  readonly privacy: OrganisationPartPrivacy;
  /** For a shared part: the business numbers it is shared with. */
  readonly nzbnList: readonly string[];
}

export interface FixtureCase {
  /** 0–899; the business number is fixed by it. */
  readonly number: number;
  readonly nzbn: string;
  readonly title: string;
  readonly overrides: EntityOverrides;
  /** Organisation parts the seeding step creates for this entity (the store owns them). */
  readonly organisationParts: readonly OrganisationPartPlaceholder[];
  /** The operator's sandbox user is granted business authority over this entity when seeding. */
  readonly sandboxOperatorHasAuthority: boolean;
}

/** Registration instant of every fixture: the date of the register's own published example. */
const FIXTURE_REGISTRATION = nzLocalToEpoch(2009, 3, 24, 10, 0, 0);

const FIXTURE_NAMES: Readonly<Record<EntityTypeCode, string>> = {
  LTD: 'SANDBOX TEST COMPANY LIMITED',
  ULTD: 'SANDBOX TEST UNLIMITED',
  COOP: 'SANDBOX TEST CO-OPERATIVE LIMITED',
  ASIC: 'SANDBOX TEST AUSTRALIA PTY LIMITED',
  NON_ASIC: 'SANDBOX TEST OVERSEAS INC.',
  B: 'SANDBOX TEST BUILDING SOCIETY',
  D: 'SANDBOX TEST CREDIT UNION',
  F: 'SANDBOX TEST FRIENDLY SOCIETY',
  I: 'SANDBOX TEST SOCIETY INCORPORATED',
  N: 'SANDBOX TEST GROWERS SOCIETY LIMITED',
  S: 'SANDBOX TEST LICENSING TRUST',
  T: 'SANDBOX TEST CHARITABLE TRUST',
  Y: 'SANDBOX TEST LIMITED PARTNERSHIP',
  Z: 'SANDBOX TEST OVERSEAS L.P.',
  Sole_Trader: 'Sandbox Test Sole Trader',
  Partnership: 'Sandbox Test Partnership',
  Trading_Trust: 'Sandbox Test Family Trust',
  GovtCentral: 'Sandbox Test Central Agency',
  GovtLocal: 'Sandbox Test District Council',
  GovtEdu: 'Sandbox Test School',
  GovtOther: 'Sandbox Test Public Entity',
};

/** Inactive and Closed are statuses of opt-in entities; every other status is shown on a company. */
const STATUS_CARRIER = (status: EntityStatusCode): EntityTypeCode =>
  status === '90' || status === '91' ? 'Sole_Trader' : 'LTD';

function fixture(
  number: number,
  title: string,
  overrides: Omit<EntityOverrides, 'nzbn' | 'registrationDate'>,
  extra: Partial<Pick<FixtureCase, 'organisationParts' | 'sandboxOperatorHasAuthority'>> = {},
): FixtureCase {
  const nzbn = fixtureNzbn(number);
  return {
    number,
    nzbn,
    title,
    overrides: { ...overrides, nzbn, registrationDate: FIXTURE_REGISTRATION },
    organisationParts: extra.organisationParts ?? [],
    sandboxOperatorHasAuthority: extra.sandboxOperatorHasAuthority ?? false,
  };
}

const opn = (n: number): string => nzbnFromBody(ORGANISATION_PART_BODY_START + n);

const byType = ENTITY_TYPE_CODES.map((type, i) =>
  fixture(i, `${ENTITY_TYPES[type].description}, registered`, {
    entityTypeCode: type,
    entityStatusCode: '50',
    entityName: FIXTURE_NAMES[type],
  }),
);

const byStatus = ENTITY_STATUS_CODES.map((status, i) => {
  const type = STATUS_CARRIER(status);
  const name = type === 'LTD' ? `SANDBOX STATUS ${status} LIMITED` : `Sandbox Status ${status} Sole Trader`;
  const title = `${ENTITY_STATUSES[status].description} (${status}), on a ${ENTITY_TYPES[type].description}`;
  return fixture(100 + i, title, {
    entityTypeCode: type,
    entityStatusCode: status,
    entityName: name,
  });
});

const privateData = fixture(200, 'Private phone, email, GST number and bank account', {
  entityTypeCode: 'LTD',
  entityStatusCode: '50',
  entityName: 'SANDBOX TEST PRIVATE DATA LIMITED',
  privateData: true,
});

const withOrganisationParts = fixture(
  201,
  'Three organisation parts: public, private, and shared with the limited company test case',
  { entityTypeCode: 'LTD', entityStatusCode: '50', entityName: 'SANDBOX TEST ORGANISATION PARTS LIMITED' },
  {
    organisationParts: [
      {
        opn: opn(1),
        name: 'Sandbox Test Head Office',
        function: 'PHYSICAL_LOCATION',
        purposes: [
          ['E_INVOICING', 'Invoicing'],
          ['OTHER', 'Delivery'],
        ],
        organisationPartStatus: 'ACTIVE',
        privacy: 'PUBLIC',
        nzbnList: [],
      },
      {
        opn: opn(2),
        name: 'Sandbox Test Warehouse',
        function: 'PHYSICAL_LOCATION',
        purposes: [['LOCATIONARRIVAL', 'Delivery']],
        organisationPartStatus: 'ACTIVE',
        privacy: 'PRIVATE',
        nzbnList: [],
      },
      {
        opn: opn(3),
        name: 'Sandbox Test Old Depot',
        function: 'FUNCTION',
        purposes: [['OTHER', 'Ordering']],
        organisationPartStatus: 'INACTIVE',
        privacy: 'SHARED',
        nzbnList: [fixtureNzbn(0)],
      },
    ],
  },
);

/** The private part of the case the operator holds, which others have asked to see. */
const PRIVATE_COUNTER = opn(5);

const withAuthority = fixture(
  202,
  "The operator's sandbox user holds business authority over it (updates allowed), and one private organisation part others have asked to see",
  { entityTypeCode: 'LTD', entityStatusCode: '50', entityName: 'SANDBOX TEST AUTHORITY HOLDER LIMITED' },
  {
    sandboxOperatorHasAuthority: true,
    organisationParts: [
      {
        opn: PRIVATE_COUNTER,
        name: 'Sandbox Test Private Counter',
        function: 'PHYSICAL_LOCATION',
        purposes: [['OTHER', 'Collections']],
        organisationPartStatus: 'ACTIVE',
        privacy: 'PRIVATE',
        nzbnList: [],
      },
    ],
  },
);

/** A request of the seed for access to a fixed test case's part that is not public. */
export interface FixtureAccessRequest {
  readonly opn: string;
  readonly requestingNzbn: string;
  readonly status: AccessRequestStatus;
}

/**
 * The access requests the seed makes, so both sides can be tried at once: the operator's case has asked
 * to see the private warehouse of the case with parts and was approved (its holders see it); two cases
 * asked to see the operator's private counter: one waits for the operator's decision, one was declined.
 */
export const FIXTURE_ACCESS_REQUESTS: readonly FixtureAccessRequest[] = [
  { opn: opn(2), requestingNzbn: withAuthority.nzbn, status: 'APPROVED' },
  { opn: PRIVATE_COUNTER, requestingNzbn: fixtureNzbn(0), status: 'PENDING' },
  { opn: PRIVATE_COUNTER, requestingNzbn: fixtureNzbn(1), status: 'DECLINED' },
];
/** When the seed's access requests were made, and decided. */
export const FIXTURE_ACCESS_ASKED = nzLocalToEpoch(2024, 2, 1, 10, 0, 0);
export const FIXTURE_ACCESS_DECIDED = nzLocalToEpoch(2024, 2, 8, 10, 0, 0);

export const FIXTURE_CASES: readonly FixtureCase[] = [
  ...byType,
  ...byStatus,
  privateData,
  withOrganisationParts,
  withAuthority,
];

const FIXTURE_SEED = 'nzbn-fixtures-v1';

/** The entity of one fixture case: independent of the register's seed, scale and `asOf`. */
export function generateFixtureEntity(fixtureCase: FixtureCase, context: GeneratorContext): Entity {
  const index = FIXTURE_INDEX_START + fixtureCase.number;
  const random = entityRandom(FIXTURE_SEED, index);
  return generateEntity(
    random,
    index,
    { geography: context.geography, asOf: DEFAULT_AS_OF },
    fixtureCase.overrides,
  );
}

export function generateFixtures(context: GeneratorContext): { fixture: FixtureCase; entity: Entity }[] {
  return FIXTURE_CASES.map((fixtureCase) => ({
    fixture: fixtureCase,
    entity: generateFixtureEntity(fixtureCase, context),
  }));
}
