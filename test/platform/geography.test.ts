import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGeography, suburbOf } from '../../src/platform/geography.ts';
import { geography } from '../services/nzbn/support/geo-fixture.ts';

describe('loadGeography', () => {
  it('reads the 16 regions and 67 territorial authorities', () => {
    expect(geography.regions).toHaveLength(16);
    expect(geography.districts).toHaveLength(67);
    expect(geography.regions.map((region) => region.shortName)).toContain("Hawke's Bay");
  });

  it('keeps land areas and leaves out water, ocean and areas outside any district', () => {
    expect(geography.areas.length).toBeGreaterThan(2_000);
    for (const area of geography.areas) {
      expect(area.name).not.toMatch(/^(Inlets?|Oceanic|Inland water)\b/);
      expect(area.district.code).not.toBe('999');
    }
    expect(geography.areas.find((area) => area.name === 'Inlet Waitemata Harbour')).toBeUndefined();
  });

  it('gives every area a four-digit postcode from its district ranges', () => {
    for (const area of geography.areas) {
      expect(area.postCode).toMatch(/^\d{4}$/);
      const code = Number(area.postCode);
      expect(area.district.postcodeRanges.some(([from, to]) => code >= from && code <= to)).toBe(true);
    }
  });

  it('puts areas in their region and keeps the Chatham Islands', () => {
    const ponsonby = geography.areas.find((area) => area.name === 'Ponsonby West');
    expect(ponsonby?.district.town).toBe('Auckland');
    expect(ponsonby?.region.shortName).toBe('Auckland');
    expect(geography.areas.some((area) => area.district.code === '067')).toBe(true);
    const total = [...geography.areasByRegion.values()].reduce((sum, areas) => sum + areas.length, 0);
    expect(total).toBe(geography.areas.length);
  });

  it('fails loudly on a directory without the files', () => {
    expect(() => loadGeography(mkdtempSync(join(tmpdir(), 'geo-')))).toThrow();
  });

  it('reads quoted CSV fields', () => {
    const directory = mkdtempSync(join(tmpdir(), 'geo-'));
    writeFileSync(join(directory, 'regc2019.csv'), 'regc_code,regc_name,sa2_count\n02,"Auckland Region",1\n');
    writeFileSync(
      join(directory, 'ta2019.csv'),
      'ta_code,ta_name,regc_code,regc_name,sa2_count,regc_codes_all\n076,Auckland,02,Auckland Region,1,02\n',
    );
    writeFileSync(
      join(directory, 'sa2_2019.csv'),
      'sa2_code,sa2_name,ta_code,ta_name,regc_code,regc_name\n1,"Ponsonby, ""West""",076,Auckland,02,Auckland Region\n',
    );
    const small = loadGeography(directory);
    expect(small.areas.map((area) => area.name)).toEqual(['Ponsonby, "West"']);
  });
});

describe('suburbOf', () => {
  it.each([
    ['Belmont (Auckland)', 'Belmont'],
    ['Mount Albert West', 'Mount Albert'],
    ['Kaitaia East', 'Kaitaia'],
    ['Te Aro', 'Te Aro'],
    ['Hamilton Central', 'Hamilton Central'],
    ['North', 'North'],
    ['Foo North East', 'Foo'],
  ])('%s → %s', (sa2, suburb) => {
    expect(suburbOf(sa2)).toBe(suburb);
  });
});
