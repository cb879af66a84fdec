import { describe, expect, it } from 'vitest';
import { RuleError } from '../../../src/platform/errors.ts';
import {
  areaByCode,
  areaByLabel,
  areaListing,
  buildGeography,
  resolveAreaDefinition,
  withoutLeadingZeros,
} from '../../../src/services/market-rent/domain/areas.ts';
import { parseCsv, parseGeoTables } from '../../../src/services/market-rent/domain/geo-csv.ts';
import { areaKey } from '../../../src/services/market-rent/domain/rounding.ts';
import { geography } from './support/fixtures.ts';

describe('the 2019 geography', () => {
  const geo = geography();

  it('has every SA2 of the file, ascending, indexed', () => {
    expect(geo.sa2Codes).toHaveLength(2239);
    expect(geo.sa2Codes[0]).toBe('100100');
    expect(geo.sa2Index.get('252500')).toBe(geo.sa2Codes.indexOf('252500'));
  });

  it.each([
    ['REGC2019', 'regional-council-2019', 17],
    ['TA2019', 'territorial-authority-2019', 68],
    ['SAU2019', 'statistical-area-unit-2019', 2239],
    ['IMR2017', 'internet-market-rent-2017', 68],
    ['IMR2019', 'internet-market-rent-2019', 68],
    ['REGC2016', 'regional-council-2016', 17],
    ['TA2016', 'territorial-authority-2016', 68],
    ['SAU2016', 'statistical-area-unit-2016', 2239],
  ])('%s (%s) has %i areas that cover every SA2 exactly once', (code, name, count) => {
    const definition = resolveAreaDefinition(geo, code);
    expect(definition).toBe(resolveAreaDefinition(geo, name));
    expect(definition.areas).toHaveLength(count);
    const covered = definition.areas.flatMap((a) => a.sa2Codes);
    expect(covered).toHaveLength(2239);
    expect(new Set(covered).size).toBe(2239);
    geo.sa2Codes.forEach((sa2, i) => {
      const area = definition.areas[definition.areaIndexBySa2[i] as number];
      expect(area?.sa2Codes).toContain(sa2);
    });
    const numeric = definition.areas.map((a) => Number(a.code));
    expect(numeric).toEqual([...numeric].sort((a, b) => a - b));
  });

  it('lists regions in the published shape, codes without leading zeros', () => {
    const listing = areaListing(resolveAreaDefinition(geo, 'regional-council-2019'));
    expect(listing.tableName).toBe('REGC2019');
    expect(listing.items.slice(0, 2)).toEqual([
      { label: 'Northland Region', code: '1' },
      { label: 'Auckland Region', code: '2' },
    ]);
    expect(listing.items.at(-1)).toEqual({ label: 'Area Outside Region', code: '99' });
  });

  it('maps SA2s to their authority and region, including authorities that span regions', () => {
    const ta = resolveAreaDefinition(geo, 'TA2019');
    const regc = resolveAreaDefinition(geo, 'REGC2019');
    expect(areaByCode(ta, '076')?.label).toBe('Auckland');
    expect(areaByCode(ta, '76')?.sa2Codes).toHaveLength(563);
    expect(areaByCode(regc, '02')?.sa2Codes).toEqual(areaByCode(ta, '76')?.sa2Codes);
    // Taupo District touches four regions; each of its SA2s sits in the region the file gives it.
    const taupo = areaByLabel(ta, 'taupo district');
    const regions = new Set(
      taupo?.sa2Codes.map(
        (c) => regc.areas[regc.areaIndexBySa2[geo.sa2Index.get(c) as number] as number]?.code,
      ),
    );
    expect(regions.size).toBeGreaterThan(1);
  });

  it('keys areas by their SA2 set, so the same population has one key across definitions', () => {
    const ta = resolveAreaDefinition(geo, 'TA2019');
    const regc = resolveAreaDefinition(geo, 'REGC2019');
    expect(areaByCode(ta, '76')?.key).toBe(areaByCode(regc, '2')?.key);
    const sau = resolveAreaDefinition(geo, 'SAU2019');
    expect(areaByCode(sau, '252500')?.key).toBe(areaKey(['252500']));
  });

  it('resolves names case-insensitively and names the parameter when it cannot', () => {
    expect(resolveAreaDefinition(geo, ' regc2019 ').code).toBe('REGC2019');
    expect(resolveAreaDefinition(geo, 'Regional-Council-2019').code).toBe('REGC2019');
    const error = (() => {
      try {
        resolveAreaDefinition(geo, 'WARD2019');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(RuleError);
    expect(error).toMatchObject({
      field: 'area-definition',
      message: expect.stringContaining('WARD2019'),
    });
    expect(() => resolveAreaDefinition(geo, 'nope', 'area-definition-path')).toThrow(/area-definition-path/);
  });
});

describe('withoutLeadingZeros', () => {
  it.each([
    ['01', '1'],
    ['001', '1'],
    ['0', '0'],
    ['000', '0'],
    ['100100', '100100'],
    [' 99 ', '99'],
    ['abc', 'abc'],
  ])('%s → %s', (input, expected) => {
    expect(withoutLeadingZeros(input)).toBe(expected);
  });
});

describe('parseCsv', () => {
  it('reads quotes, doubled quotes, commas and line breaks in fields, CRLF and a BOM', () => {
    expect(parseCsv('\uFEFFa,b\r\n"x, y","say ""hi"""\n"two\nlines",z\n\n')).toEqual([
      ['a', 'b'],
      ['x, y', 'say "hi"'],
      ['two\nlines', 'z'],
    ]);
    expect(parseCsv('a,b\n1,')).toEqual([
      ['a', 'b'],
      ['1', ''],
    ]);
    expect(() => parseCsv('"open')).toThrow(/unterminated/);
  });
});

describe('building a geography from tables', () => {
  const texts = {
    sa2: 'sa2_code,sa2_name,ta_code,ta_name,regc_code,regc_name\n100100,North Cape,001,Far North District,01,Northland Region\n',
    ta: 'ta_code,ta_name\n001,Far North District\n',
    regc: 'regc_code,regc_name\n01,Northland Region\n',
  };

  it('builds from minimal tables', () => {
    const geo = buildGeography(parseGeoTables(texts));
    expect(resolveAreaDefinition(geo, 'TA2019').areas).toEqual([
      expect.objectContaining({ code: '1', label: 'Far North District', sa2Codes: ['100100'] }),
    ]);
  });

  it.each([
    ['a missing column', { ...texts, ta: 'ta_code\n001\n' }, /missing column/],
    ['a short row', { ...texts, regc: 'regc_code,regc_name\n01\n' }, /line 2/],
    ['an unknown region', { ...texts, regc: 'regc_code,regc_name\n02,Auckland Region\n' }, /region/],
    ['a renamed authority', { ...texts, ta: 'ta_code,ta_name\n001,Far South\n' }, /authority/],
    [
      'a repeated SA2',
      { ...texts, sa2: `${texts.sa2}100100,North Cape,001,Far North District,01,Northland Region\n` },
      /twice/,
    ],
  ])('refuses %s', (_, broken, message) => {
    expect(() => buildGeography(parseGeoTables(broken))).toThrow(message);
  });
});
