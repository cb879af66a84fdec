/**
 * The keys a financing statement is found by (stored in `ppsr_search_keys`) and the same folding applied
 * to a search, so that what was registered and what is searched meet. Ours: names fold to upper case
 * without diacritics, every run of other characters one space (`Ngā Tāonga Ltd.` → `NGA TAONGA LTD`); a
 * person is `LAST FIRST`, folded, the date of birth beside it; identifiers are already canonical.
 */
import type { Collateral } from './collateral.ts';
import type { Debtor } from './parties.ts';
import type { SearchCriterion } from './search.ts';

export type SearchKeyKind =
  | 'organisationName'
  | 'nzbn'
  | 'incorporationNumber'
  | 'person'
  | 'vin'
  | 'chassisNumber'
  | 'registrationPlate'
  | 'aircraftSerialNumber';

export interface SearchKey {
  kind: SearchKeyKind;
  key: string;
  dateOfBirth?: string | undefined;
}

export function foldName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toUpperCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

export const personKey = (lastName: string, firstName: string): string =>
  `${foldName(lastName)} ${foldName(firstName)}`;

/** Every key of one version's debtors and collaterals, without repeats. */
export function searchKeysOf(debtors: readonly Debtor[], collaterals: readonly Collateral[]): SearchKey[] {
  const keys = new Map<string, SearchKey>();
  const add = (key: SearchKey) => {
    if (key.key !== '') keys.set(`${key.kind}\u0000${key.key}\u0000${key.dateOfBirth ?? ''}`, key);
  };
  for (const debtor of debtors) {
    if (debtor.debtorType === 'person') {
      add({
        kind: 'person',
        key: personKey(debtor.lastName, debtor.firstName),
        dateOfBirth: debtor.dateOfBirth,
      });
      continue;
    }
    add({ kind: 'organisationName', key: foldName(debtor.organisationName) });
    if (debtor.nzbn) add({ kind: 'nzbn', key: debtor.nzbn });
    if (debtor.incorporationNumber) add({ kind: 'incorporationNumber', key: debtor.incorporationNumber });
  }
  for (const collateral of collaterals) {
    for (const vehicle of collateral.motorVehicles ?? []) {
      if (vehicle.vin) add({ kind: 'vin', key: vehicle.vin });
      if (vehicle.chassisNumber) add({ kind: 'chassisNumber', key: vehicle.chassisNumber });
      if (vehicle.registrationPlate) add({ kind: 'registrationPlate', key: vehicle.registrationPlate });
    }
    for (const aircraft of collateral.aircraft ?? [])
      add({ kind: 'aircraftSerialNumber', key: aircraft.serialNumber });
  }
  return [...keys.values()];
}

/**
 * What a search criterion looks up: key kinds, the folded key, whether it is a prefix, and the date of
 * birth that narrows a person search. An organisation number search matches either number (published).
 */
export interface KeyLookup {
  kinds: SearchKeyKind[];
  keys: string[];
  prefix: boolean;
  dateOfBirth?: string | undefined;
}

export function lookupOf(criterion: SearchCriterion): KeyLookup {
  switch (criterion.kind) {
    case 'organisationName':
      return { kinds: ['organisationName'], keys: [foldName(criterion.name)], prefix: !criterion.exact };
    case 'organisationNumber': {
      const lookup: KeyLookup = { kinds: [], keys: [], prefix: false };
      if (criterion.incorporationNumber) {
        lookup.kinds.push('incorporationNumber');
        lookup.keys.push(criterion.incorporationNumber);
      }
      if (criterion.nzbn) {
        lookup.kinds.push('nzbn');
        lookup.keys.push(criterion.nzbn);
      }
      return lookup;
    }
    case 'person':
      return {
        kinds: ['person'],
        keys: [personKey(criterion.lastName, criterion.firstName)],
        prefix: false,
        dateOfBirth: criterion.dateOfBirth,
      };
    case 'vin':
    case 'chassisNumber':
    case 'registrationPlate':
    case 'aircraftSerialNumber':
      return { kinds: [criterion.kind], keys: [criterion.value], prefix: false };
    case 'registrationNumber':
      return { kinds: [], keys: [criterion.value], prefix: false };
  }
}
