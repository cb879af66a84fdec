import { describe, expect, it } from 'vitest';
import { seeded } from '../../../src/platform/random.ts';
import {
  generateNzAddress,
  generateOverseasAddress,
  OVERSEAS_COUNTRIES,
  pickArea,
} from '../../../src/services/nzbn/sandbox/addresses.ts';
import { geography } from './support/geo-fixture.ts';

describe('generateNzAddress', () => {
  const random = seeded('addresses');
  const samples = Array.from({ length: 3_000 }, () => {
    const area = pickArea(random, geography);
    return { area, address: generateNzAddress(random, area) };
  });

  it('writes street, suburb and city lines, with the area postcode and NZ', () => {
    for (const { area, address } of samples) {
      expect(address.countryCode).toBe('NZ');
      expect(address.postCode).toBe(area.postCode);
      expect(address.careOf).toBeNull();
      const lines = [address.address1, address.address2, address.address3, address.address4];
      expect(lines).toContain(area.district.town);
      if (area.suburb !== area.district.town) expect(lines).toContain(area.suburb);
      const streetLine = /^(Unit|Flat|Level|Suite) \d+$/.test(address.address1)
        ? address.address2
        : address.address1;
      expect(streetLine).toMatch(
        /^\d+[ABC]? [A-Z][\w ]+ (Road|Street|Avenue|Drive|Place|Crescent|Terrace|Lane|Way|Grove|Close|Court|Parade|Rise)$/,
      );
    }
  });

  it('puts a unit, flat, level or suite on its own first line now and then', () => {
    const withUnit = samples.filter(({ address }) =>
      /^(Unit|Flat|Level|Suite) /.test(address.address1),
    ).length;
    expect(withUnit / samples.length).toBeGreaterThan(0.1);
    expect(withUnit / samples.length).toBeLessThan(0.22);
  });

  it.each([
    ['postal', /^(PO Box|Private Bag) \d+$/],
    ['rural', /^\d+ [A-Z][\w ]+ Road$/],
  ] as const)('writes %s addresses', (kind, firstLine) => {
    const area = pickArea(random, geography);
    const address = generateNzAddress(random, area, kind);
    expect(address.address1).toMatch(firstLine);
    if (kind === 'rural') expect(address.address2).toMatch(/^RD \d$/);
    expect(address.address3).toBe(area.district.town);
  });

  it('picks areas within a region when asked', () => {
    for (let i = 0; i < 100; i++) expect(pickArea(random, geography, '09').region.code).toBe('09');
  });

  it('spreads businesses over the country, Auckland most of all', () => {
    const auckland = samples.filter(({ area }) => area.region.code === '02').length / samples.length;
    expect(auckland).toBeGreaterThan(0.2);
    expect(auckland).toBeLessThan(0.32);
    expect(new Set(samples.map(({ area }) => area.region.code)).size).toBeGreaterThanOrEqual(15);
  });
});

describe('generateOverseasAddress', () => {
  it.each(OVERSEAS_COUNTRIES.map((country) => [country]))('writes an address in %s', (country) => {
    const address = generateOverseasAddress(seeded('overseas', country), country);
    expect(address.countryCode).toBe(country);
    expect(address.address1).toMatch(/^\d+ /);
    expect(address.address2).toBeTruthy();
  });

  it('refuses a country it has no addresses for', () => {
    expect(() => generateOverseasAddress(seeded('x'), 'FR')).toThrow(RangeError);
  });
});
