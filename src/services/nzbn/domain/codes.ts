/**
 * Entity type and entity status codes of the business number register, and the names the search
 * filters take. Codes come only from the list that published clients know (`reference/nzbn.md`): a
 * client that meets an unknown code fails, so nothing here may invent one.
 *
 * The other code lists (addresses, roles, purposes, change events, privacy flags …) live in
 * `part-codes.ts` and are re-exported here so callers have one import.
 */
export * from './part-codes.ts';

/** Which register an entity's record comes from (the `sourceRegister` field). Our choice beyond COMPANY. */
export type SourceRegister =
  | 'COMPANY'
  | 'NZBN'
  | 'INCORPORATED_SOCIETIES'
  | 'CHARITABLE_TRUSTS'
  | 'BUILDING_SOCIETIES'
  | 'CREDIT_UNIONS'
  | 'FRIENDLY_SOCIETIES'
  | 'INDUSTRIAL_AND_PROVIDENT_SOCIETIES'
  | 'SPECIAL_BODIES'
  | 'LIMITED_PARTNERSHIPS';

export type EntityKind = 'company' | 'non-company';

export interface EntityTypeInfo {
  readonly code: EntityTypeCode;
  readonly description: string;
  /** Companies carry `company-details`; everything else carries `non-company-details`. */
  readonly kind: EntityKind;
  readonly sourceRegister: SourceRegister;
  /** Sole traders, partnerships and trusts opt in: they may be registered through POST /entities. */
  readonly mayRegisterThroughApi: boolean;
  /** Public sector entities (they have no source register number). */
  readonly publicSector: boolean;
  /** The Companies Office registers hold names in capitals; NZBN-only and public sector entities do not. */
  readonly upperCaseName: boolean;
}

export type EntityTypeCode = (typeof ENTITY_TYPE_CODES)[number];

/** Codes an entity record may carry in `entityTypeCode`, in display order. */
// biome-ignore format: a packed list of codes
export const ENTITY_TYPE_CODES = [
  'LTD', 'ULTD', 'COOP', 'ASIC', 'NON_ASIC', 'B', 'D', 'F', 'I', 'N', 'S', 'T', 'Y', 'Z', 'Sole_Trader',
  'Partnership', 'Trading_Trust', 'GovtCentral', 'GovtLocal', 'GovtEdu', 'GovtOther',
] as const;

const company = (code: EntityTypeCode, description: string): EntityTypeInfo => ({
  code,
  description,
  kind: 'company',
  sourceRegister: 'COMPANY',
  mayRegisterThroughApi: false,
  publicSector: false,
  upperCaseName: true,
});
const otherRegister = (
  code: EntityTypeCode,
  description: string,
  register: SourceRegister,
): EntityTypeInfo => ({
  code,
  description,
  kind: 'non-company',
  sourceRegister: register,
  mayRegisterThroughApi: false,
  publicSector: false,
  upperCaseName: true,
});
const optIn = (code: EntityTypeCode, description: string): EntityTypeInfo => ({
  code,
  description,
  kind: 'non-company',
  sourceRegister: 'NZBN',
  mayRegisterThroughApi: true,
  publicSector: false,
  upperCaseName: false,
});
const publicSector = (code: EntityTypeCode, description: string): EntityTypeInfo => ({
  code,
  description,
  kind: 'non-company',
  sourceRegister: 'NZBN',
  mayRegisterThroughApi: false,
  publicSector: true,
  upperCaseName: false,
});

export const ENTITY_TYPES: Readonly<Record<EntityTypeCode, EntityTypeInfo>> = {
  LTD: company('LTD', 'NZ Limited Company'),
  ULTD: company('ULTD', 'NZ Unlimited Company'),
  COOP: company('COOP', 'NZ Co-operative Company'),
  ASIC: company('ASIC', 'Overseas ASIC Company'),
  NON_ASIC: company('NON_ASIC', 'Overseas Non-ASIC Company'),
  B: otherRegister('B', 'Building Society', 'BUILDING_SOCIETIES'),
  D: otherRegister('D', 'Credit Union', 'CREDIT_UNIONS'),
  F: otherRegister('F', 'Friendly Society', 'FRIENDLY_SOCIETIES'),
  I: otherRegister('I', 'Incorporated Society', 'INCORPORATED_SOCIETIES'),
  N: otherRegister('N', 'Industrial & Provident Society', 'INDUSTRIAL_AND_PROVIDENT_SOCIETIES'),
  S: otherRegister('S', 'Special Body', 'SPECIAL_BODIES'),
  T: otherRegister('T', 'Charitable Trust', 'CHARITABLE_TRUSTS'),
  Y: otherRegister('Y', 'Limited Partnership (NZ)', 'LIMITED_PARTNERSHIPS'),
  Z: otherRegister('Z', 'Limited Partnership (Overseas)', 'LIMITED_PARTNERSHIPS'),
  Sole_Trader: optIn('Sole_Trader', 'Sole Trader'),
  Partnership: optIn('Partnership', 'Partnership'),
  Trading_Trust: optIn('Trading_Trust', 'Trust'),
  GovtCentral: publicSector('GovtCentral', 'Central Government'),
  GovtLocal: publicSector('GovtLocal', 'Local Government'),
  GovtEdu: publicSector('GovtEdu', 'Education'),
  GovtOther: publicSector('GovtOther', 'Other Public Entity'),
};

/**
 * Public sector entity types (GovtCentral, GovtLocal, GovtEdu, GovtOther): no source register, so no
 * change feed; change searches and watchlists leave them out.
 */
export const PUBLIC_SECTOR_TYPE_CODES: ReadonlySet<string> = new Set(
  Object.values(ENTITY_TYPES)
    .filter((type) => type.publicSector)
    .map((type) => type.code as string),
);

export function isEntityTypeCode(value: string): value is EntityTypeCode {
  return Object.hasOwn(ENTITY_TYPES, value);
}

export function isCompanyType(code: EntityTypeCode): boolean {
  return ENTITY_TYPES[code].kind === 'company';
}

/** The types POST /entities may register; everything else comes from a source register. */
export const REGISTRABLE_ENTITY_TYPES: readonly EntityTypeCode[] = ENTITY_TYPE_CODES.filter(
  (code) => ENTITY_TYPES[code].mayRegisterThroughApi,
);

/**
 * Names the `entity-type` search filter accepts, each standing for a set of entity type codes.
 * Published clients send both the grouped names (NZCompany …) and the codes themselves; some send
 * two spellings of one thing (SoleTrader / Sole_Trader, SpecialBodies / SpecialBody), so both work.
 * `G` is in the clients' list without a published meaning; we read it as "any public sector entity".
 */
export const ENTITY_TYPE_FILTERS: Readonly<Record<string, readonly EntityTypeCode[]>> = {
  NZCompany: ['LTD', 'ULTD', 'COOP'],
  OverseasCompany: ['ASIC', 'NON_ASIC'],
  SoleTrader: ['Sole_Trader'],
  Partnership: ['Partnership'],
  Trust: ['Trading_Trust'],
  BuildingSociety: ['B'],
  CharitableTrust: ['T'],
  CreditUnion: ['D'],
  FriendlySociety: ['F'],
  IncorporatedSociety: ['I'],
  IndustrialAndProvidentSociety: ['N'],
  LimitedPartnershipNz: ['Y'],
  LimitedPartnershipOverseas: ['Z'],
  SpecialBodies: ['S'],
  SpecialBody: ['S'],
  G: ['GovtCentral', 'GovtLocal', 'GovtEdu', 'GovtOther'],
  ...Object.fromEntries(ENTITY_TYPE_CODES.map((code) => [code, [code]])),
};

/** The filter names by their lower-case form (no two names differ only in case, except ones meaning the same). */
const ENTITY_TYPE_FILTERS_BY_FOLDED_NAME: ReadonlyMap<string, readonly EntityTypeCode[]> = new Map(
  Object.entries(ENTITY_TYPE_FILTERS).map(([name, codes]) => [name.toLowerCase(), codes]),
);

/**
 * The entity type codes an `entity-type` filter value stands for; `undefined` for an unknown name.
 * Names are matched without regard to case, as `entity-status` names are, because clients differ
 * (`nzcompany`, `LTD`, `ltd`); the codes returned are always the canonical ones.
 */
export function entityTypesForFilter(name: string): readonly EntityTypeCode[] | undefined {
  return ENTITY_TYPE_FILTERS_BY_FOLDED_NAME.get(name.toLowerCase());
}

// ---------------------------------------------------------------------------------------------
// Entity statuses

export type EntityStatusFilter =
  | 'Registered'
  | 'VoluntaryAdministration'
  | 'InReceivership'
  | 'InLiquidation'
  | 'InStatutoryAdministration'
  | 'Inactive'
  | 'RemovedClosed';

export const ENTITY_STATUS_FILTER_NAMES: readonly EntityStatusFilter[] = [
  'Registered',
  'VoluntaryAdministration',
  'InReceivership',
  'InLiquidation',
  'InStatutoryAdministration',
  'Inactive',
  'RemovedClosed',
];

export type EntityStatusCode = (typeof ENTITY_STATUS_CODES)[number];

// biome-ignore format: a packed list of codes
export const ENTITY_STATUS_CODES = [
  '50', '55', '56', '57', '60', '61', '62', '63', '64', '65', '66', '70', '72', '80', '90', '91',
] as const;

export interface EntityStatusInfo {
  readonly code: EntityStatusCode;
  readonly description: string;
  /** The `entity-status` filter names that select this status (a combined state answers to each part). */
  readonly filters: readonly EntityStatusFilter[];
}

const status = (code: EntityStatusCode, description: string, ...filters: EntityStatusFilter[]) => ({
  code,
  description,
  filters,
});

/**
 * The published list names 50, 60, 70, 72, 80, 90 and 91 and says only that 55–57 combine voluntary
 * administration with receivership and 61–66 combine liquidation, receivership and administration.
 * The exact combination behind each of 55–57 and 61–66 is our reconstruction (see README).
 */
export const ENTITY_STATUSES: Readonly<Record<EntityStatusCode, EntityStatusInfo>> = {
  '50': status('50', 'Registered', 'Registered'),
  '55': status('55', 'Voluntary Administration', 'VoluntaryAdministration'),
  '56': status(
    '56',
    'In Receivership and Voluntary Administration',
    'VoluntaryAdministration',
    'InReceivership',
  ),
  '57': status(
    '57',
    'In Receivership and Deed of Company Arrangement',
    'VoluntaryAdministration',
    'InReceivership',
  ),
  '60': status('60', 'In Liquidation', 'InLiquidation'),
  '61': status('61', 'In Receivership and Liquidation', 'InLiquidation', 'InReceivership'),
  '62': status(
    '62',
    'In Liquidation and Voluntary Administration',
    'InLiquidation',
    'VoluntaryAdministration',
  ),
  '63': status(
    '63',
    'In Liquidation and Statutory Administration',
    'InLiquidation',
    'InStatutoryAdministration',
  ),
  '64': status(
    '64',
    'In Receivership, Liquidation and Voluntary Administration',
    'InLiquidation',
    'InReceivership',
    'VoluntaryAdministration',
  ),
  '65': status(
    '65',
    'In Receivership, Liquidation and Statutory Administration',
    'InLiquidation',
    'InReceivership',
    'InStatutoryAdministration',
  ),
  '66': status(
    '66',
    'In Receivership and Statutory Administration',
    'InReceivership',
    'InStatutoryAdministration',
  ),
  '70': status('70', 'In Receivership', 'InReceivership'),
  '72': status('72', 'In Statutory Administration', 'InStatutoryAdministration'),
  '80': status('80', 'Removed', 'RemovedClosed'),
  '90': status('90', 'Inactive', 'Inactive'),
  '91': status('91', 'Removed/Closed', 'RemovedClosed'),
};

export function isEntityStatusCode(value: string): value is EntityStatusCode {
  return Object.hasOwn(ENTITY_STATUSES, value);
}

export function isEntityStatusFilter(value: string): value is EntityStatusFilter {
  return (ENTITY_STATUS_FILTER_NAMES as readonly string[]).includes(value);
}

/** The status codes an `entity-status` filter name selects. */
export function statusCodesForFilter(name: EntityStatusFilter): readonly EntityStatusCode[] {
  return ENTITY_STATUS_CODES.filter((code) => ENTITY_STATUSES[code].filters.includes(name));
}

/**
 * Parses the `entity-status` query parameter: it may repeat and each value may be comma-joined.
 * Names are matched without regard to case because clients differ; a bare status code ("60") is
 * accepted too. Unknown names are returned so the caller can answer 400 naming them.
 */
export function parseEntityStatusFilter(values: readonly string[]): {
  readonly codes: ReadonlySet<EntityStatusCode>;
  readonly unknown: readonly string[];
} {
  const codes = new Set<EntityStatusCode>();
  const unknown: string[] = [];
  for (const raw of values.flatMap((value) => value.split(','))) {
    const name = raw.trim();
    if (name === '') continue;
    const filter = ENTITY_STATUS_FILTER_NAMES.find((known) => known.toLowerCase() === name.toLowerCase());
    if (filter) for (const code of statusCodesForFilter(filter)) codes.add(code);
    else if (isEntityStatusCode(name)) codes.add(name);
    else unknown.push(name);
  }
  return { codes, unknown };
}
