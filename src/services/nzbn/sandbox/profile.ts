/**
 * The mix of the generated register: how common each entity type and status is, when entities were
 * registered, what they do, and how often they volunteer each item of Primary Business Data. Figures
 * are rounded approximations of the public register's make-up (mostly limited companies, about a
 * quarter of them removed; opt-in sole traders, partnerships and trusts only since the NZBN Act 2016).
 */
import type { DivisionLetter } from '../domain/bic.ts';
import type { EntityStatusCode, EntityTypeCode } from '../domain/codes.ts';

export const ENTITY_TYPE_WEIGHTS: readonly (readonly [EntityTypeCode, number])[] = [
  ['LTD', 7800],
  ['ULTD', 30],
  ['COOP', 10],
  ['ASIC', 40],
  ['NON_ASIC', 30],
  ['I', 350],
  ['T', 250],
  ['Y', 30],
  ['Z', 5],
  ['B', 1],
  ['D', 2],
  ['F', 5],
  ['N', 5],
  ['S', 5],
  ['Sole_Trader', 800],
  ['Partnership', 200],
  ['Trading_Trust', 250],
  ['GovtCentral', 5],
  ['GovtLocal', 5],
  ['GovtEdu', 40],
  ['GovtOther', 10],
];

export type TypeGroup = 'nzCompany' | 'overseasCompany' | 'otherRegister' | 'optIn' | 'publicSector';

export function typeGroup(type: EntityTypeCode): TypeGroup {
  switch (type) {
    case 'LTD':
    case 'ULTD':
    case 'COOP':
      return 'nzCompany';
    case 'ASIC':
    case 'NON_ASIC':
      return 'overseasCompany';
    case 'Sole_Trader':
    case 'Partnership':
    case 'Trading_Trust':
      return 'optIn';
    case 'GovtCentral':
    case 'GovtLocal':
    case 'GovtEdu':
    case 'GovtOther':
      return 'publicSector';
    default:
      return 'otherRegister';
  }
}

export const STATUS_WEIGHTS: Readonly<Record<TypeGroup, readonly (readonly [EntityStatusCode, number])[]>> = {
  nzCompany: [
    ['50', 6800],
    ['80', 2500],
    ['60', 400],
    ['61', 30],
    ['62', 10],
    ['63', 3],
    ['64', 3],
    ['65', 2],
    ['66', 2],
    ['70', 40],
    ['55', 20],
    ['56', 5],
    ['57', 5],
    ['72', 2],
  ],
  overseasCompany: [
    ['50', 70],
    ['80', 28],
    ['60', 2],
  ],
  otherRegister: [
    ['50', 72],
    ['80', 26],
    ['60', 2],
  ],
  optIn: [
    ['50', 85],
    ['90', 5],
    ['91', 10],
  ],
  publicSector: [
    ['50', 95],
    ['90', 3],
    ['91', 2],
  ],
};

/** [first year of period, weight]: companies grew fast after the Companies Act 1993 and online filing. */
export const REGISTRATION_PERIODS: Readonly<Record<TypeGroup, readonly (readonly [number, number])[]>> = {
  nzCompany: [
    [1900, 1],
    [1950, 1],
    [1960, 2],
    [1970, 3],
    [1980, 6],
    [1990, 12],
    [2000, 22],
    [2010, 33],
    [2020, 20],
  ],
  overseasCompany: [
    [1970, 3],
    [1990, 20],
    [2000, 30],
    [2010, 35],
    [2020, 12],
  ],
  otherRegister: [
    [1900, 3],
    [1950, 4],
    [1960, 6],
    [1970, 10],
    [1980, 14],
    [1990, 18],
    [2000, 20],
    [2010, 17],
    [2020, 8],
  ],
  // The NZBN register opened to sole traders, partnerships and trusts in 2016.
  optIn: [
    [2016, 30],
    [2019, 35],
    [2022, 35],
  ],
  // Public sector entities were allocated their numbers in bulk in 2013–2016.
  publicSector: [
    [2013, 85],
    [2017, 15],
  ],
};

/** Limited partnerships exist since the Limited Partnerships Act 2008 (in force 2 May 2008). */
const LIMITED_PARTNERSHIP_PERIODS: readonly (readonly [number, number])[] = [
  [2008, 30],
  [2014, 40],
  [2020, 30],
];

export function registrationPeriodsFor(type: EntityTypeCode): readonly (readonly [number, number])[] {
  return type === 'Y' || type === 'Z' ? LIMITED_PARTNERSHIP_PERIODS : REGISTRATION_PERIODS[typeGroup(type)];
}

/** Main activity by ANZSIC division for businesses; bodies of the other registers lean to S, R, P, Q. */
export const DIVISION_WEIGHTS: Readonly<
  Record<'business' | 'society', readonly (readonly [DivisionLetter, number])[]>
> = {
  business: [
    ['A', 9],
    ['B', 0.3],
    ['C', 5],
    ['D', 0.4],
    ['E', 14],
    ['F', 4],
    ['G', 7],
    ['H', 5],
    ['I', 4],
    ['J', 2],
    ['K', 6],
    ['L', 20],
    ['M', 12],
    ['N', 4],
    ['O', 0.3],
    ['P', 1.5],
    ['Q', 3],
    ['R', 2],
    ['S', 4],
  ],
  society: [
    ['S', 40],
    ['R', 30],
    ['P', 12],
    ['Q', 10],
    ['A', 3],
    ['K', 5],
  ],
};

export function divisionWeightsFor(type: EntityTypeCode): readonly (readonly [DivisionLetter, number])[] {
  switch (type) {
    case 'GovtCentral':
    case 'GovtLocal':
      return [['O', 1]];
    case 'GovtEdu':
      return [['P', 1]];
    case 'GovtOther':
      return [
        ['O', 2],
        ['R', 1],
      ];
    case 'I':
    case 'T':
    case 'F':
    case 'S':
      return DIVISION_WEIGHTS.society;
    case 'B':
    case 'D':
      return [['K', 1]];
    case 'N':
    case 'COOP':
      return [
        ['A', 3],
        ['F', 2],
        ['G', 1],
      ];
    default:
      return DIVISION_WEIGHTS.business;
  }
}

/** How many people stand behind a business of each kind (directors, partners, trustees, officers). */
export function peopleCountWeights(type: EntityTypeCode): readonly (readonly [number, number])[] {
  switch (typeGroup(type)) {
    case 'nzCompany':
      return [
        [1, 45],
        [2, 35],
        [3, 12],
        [4, 8],
      ];
    case 'overseasCompany':
      return [
        [1, 40],
        [2, 40],
        [3, 20],
      ];
    case 'publicSector':
      return [[0, 1]];
    default:
      if (type === 'Sole_Trader') return [[1, 1]];
      return [
        [2, 60],
        [3, 30],
        [4, 10],
      ];
  }
}

/** Chance that an entity volunteered Primary Business Data (phones, emails, trading names …). */
export function primaryBusinessDataChance(group: TypeGroup, live: boolean): number {
  if (group === 'publicSector') return 0.9;
  if (!live) return 0.15;
  return group === 'optIn' ? 0.85 : 0.5;
}

/** Chance that an entity has an industry classification. */
export function classificationChance(group: TypeGroup): number {
  return { nzCompany: 0.65, overseasCompany: 0.5, otherRegister: 0.4, optIn: 0.9, publicSector: 1 }[group];
}
