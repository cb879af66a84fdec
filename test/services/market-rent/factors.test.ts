import { describe, expect, it } from 'vitest';
import {
  bedroomsOf,
  canonicalBedrooms,
  canonicalDwelling,
  dwellingOf,
} from '../../../src/services/market-rent/domain/factors.ts';

describe('factors', () => {
  it.each([
    ['flat', 'Flat'],
    [' APARTMENT ', 'Apartment'],
    ['boarding  house', 'Boarding House'],
    ['Boarding-House', undefined],
    ['ALL', undefined],
  ])('dwelling %j → %j', (text, expected) => {
    expect(canonicalDwelling(text)).toBe(expected);
  });

  it.each([
    ['1', '1'],
    ['5+', '5+'],
    ['5 ', '5+'],
    ['5', '5+'],
    ['na', 'NA'],
    ['0', undefined],
    ['6', undefined],
    ['ALL', undefined],
  ])('bedrooms %j → %j', (text, expected) => {
    expect(canonicalBedrooms(text)).toBe(expected);
  });

  it.each([
    [null, 'NA'],
    [undefined, 'NA'],
    [0, 'NA'],
    [1, '1'],
    [4, '4'],
    [5, '5+'],
    [9, '5+'],
    [2.5, 'NA'],
  ])('a bond with %j bedrooms is reported under %s', (count, expected) => {
    expect(bedroomsOf(count)).toBe(expected);
  });

  it('takes a bond without a dwelling type as a House, as the spec says', () => {
    expect(dwellingOf(null)).toBe('House');
    expect(dwellingOf('  ')).toBe('House');
    expect(dwellingOf('room')).toBe('Room');
    expect(dwellingOf('Castle')).toBeUndefined();
  });
});
