import { describe, expect, it } from 'vitest';
import { RuleError } from '../../../src/platform/errors.ts';
import { parseStatisticsQuery, type RawQuery } from '../../../src/services/market-rent/domain/params.ts';
import { areaKey } from '../../../src/services/market-rent/domain/rounding.ts';
import { geography } from './support/fixtures.ts';

const context = { geography: geography(), now: new Date('2026-09-15T03:00:00Z') };
const base = { 'period-ending': '2026-07', 'num-months': '1', 'area-definition': 'REGC2019' };
const parse = (query: RawQuery) => parseStatisticsQuery(query, context);

describe('parseStatisticsQuery: accepted queries', () => {
  it('normalises the simplest query', () => {
    const q = parse(base);
    expect(q.period.periodCovered).toBe('2026-7-1/2026-7-31');
    expect(q.period.firstDay).toBe('2026-07-01');
    expect(q.areaDefinition).toBe('REGC2019');
    expect(q.areas).toHaveLength(17);
    expect(q.restricted).toBe(false);
    expect(q.allAreasKey).toBe(areaKey(geography().sa2Codes));
    expect(q).toMatchObject({ dwellingTypes: null, bedrooms: null, includeAggregates: false });
  });

  it('answers a long label with the short code', () => {
    expect(parse({ ...base, 'area-definition': 'regional-council-2019' }).areaDefinition).toBe('REGC2019');
  });

  it.each([
    // the examples of the reference
    [{ 'period-ending': '2023-12', 'num-months': '12', 'area-definition': 'REGC2019' }],
    [
      {
        'period-ending': '2022-12',
        'num-months': '3',
        'area-definition': 'TA2019',
        'include-aggregates': 'true',
      },
    ],
    [
      {
        'period-ending': '2020-12',
        'num-months': '1',
        'area-definition': 'user-defined',
        'include-aggregates': 'true',
        'user-defined-area-mappings': 'MyCBD(130200,131800,131300)',
      },
    ],
    [
      {
        'period-ending': '2024-06',
        'num-months': '6',
        'area-definition': 'SAU2019',
        'area-codes': '252500',
        'dwelling-type': 'Flat',
        'num-bedrooms': '2',
      },
    ],
  ])('accepts the reference example %j', (query) => {
    expect(() => parse(query)).not.toThrow();
  });

  it('restricts areas by code or label, in definition order, without repeats', () => {
    const byCode = parse({ ...base, 'area-codes': '09, 2,02' });
    expect(byCode.areas.map((a) => a.label)).toEqual(['Auckland Region', 'Wellington Region']);
    expect(byCode.restricted).toBe(true);
    expect(byCode.allAreasKey).toBe(areaKey(byCode.areas.flatMap((a) => a.sa2Codes)));
    const byLabel = parse({ ...base, 'area-labels': ['wellington region', 'Auckland Region'] });
    expect(byLabel.areas).toEqual(byCode.areas);
  });

  it('builds user-defined areas, which carry no code and can be restricted by label', () => {
    const q = parse({
      ...base,
      'area-definition': 'User-Defined',
      'user-defined-area-mappings': 'B(100200), A(100100,100300)',
      'area-labels': 'a',
    });
    expect(q.areaDefinition).toBe('user-defined');
    expect(q.definition).toBeNull();
    expect(q.areas).toEqual([
      expect.objectContaining({ label: 'A', code: null, sa2Codes: ['100100', '100300'] }),
    ]);
    expect(q.allAreasKey).toBe(areaKey(['100100', '100300']));
  });

  it.each([
    ['dwelling-type', 'flat', ['Flat']],
    ['dwelling-type', 'BOARDING HOUSE,House', ['Boarding House', 'House']],
    ['dwelling-type', 'Apartment,Boarding House,Flat,House,Room', null],
    ['num-bedrooms', '5+', ['5+']],
    ['num-bedrooms', '5 ', ['5+']], // an unencoded + arrives as a space
    ['num-bedrooms', 'na,1', ['1', 'NA']],
  ])('%s=%s filters to %j', (parameter, value, expected) => {
    const q = parse({ ...base, [parameter]: value });
    expect(parameter === 'dwelling-type' ? q.dwellingTypes : q.bedrooms).toEqual(expected);
  });

  it.each([
    ['true', true],
    ['false', false],
    ['True', true],
    ['FALSE', false],
  ])('include-aggregates=%s is %s', (text, expected) => {
    expect(parse({ ...base, 'include-aggregates': text }).includeAggregates).toBe(expected);
  });

  it('ignores parameters it does not know', () => {
    expect(() => parse({ ...base, 'subscription-key': 'x' })).not.toThrow();
  });
});

describe('parseStatisticsQuery: every refusal names the parameter and the rule', () => {
  const mappings = 'user-defined-area-mappings';
  it.each<[string, RawQuery, string, RegExp]>([
    ['missing period-ending', { ...base, 'period-ending': undefined }, 'period-ending', /required/],
    ['empty period-ending', { ...base, 'period-ending': '' }, 'period-ending', /empty/],
    ['malformed period-ending', { ...base, 'period-ending': 'July 2026' }, 'period-ending', /yyyy-mm/],
    ['too recent period-ending', { ...base, 'period-ending': '2026-08' }, 'period-ending', /too recent/],
    [
      'repeated period-ending',
      { ...base, 'period-ending': ['2026-07', '2026-06'] },
      'period-ending',
      /2 times/,
    ],
    ['missing num-months', { ...base, 'num-months': undefined }, 'num-months', /required/],
    ['num-months 0', { ...base, 'num-months': '0' }, 'num-months', /1 to 24/],
    ['num-months 25', { ...base, 'num-months': '25' }, 'num-months', /1 to 24/],
    ['num-months 1.5', { ...base, 'num-months': '1.5' }, 'num-months', /whole number/],
    ['num-months -1', { ...base, 'num-months': '-1' }, 'num-months', /whole number/],
    ['num-months 1e1', { ...base, 'num-months': '1e1' }, 'num-months', /whole number/],
    ['missing area-definition', { ...base, 'area-definition': undefined }, 'area-definition', /required/],
    ['unknown area-definition', { ...base, 'area-definition': 'WARD2019' }, 'area-definition', /not a known/],
    [
      'unknown area code',
      { ...base, 'area-codes': '2,10' },
      'area-codes',
      /"10" is not an area code of REGC2019/,
    ],
    [
      'unknown area label',
      { ...base, 'area-labels': 'Mordor' },
      'area-labels',
      /"Mordor" is not an area label/,
    ],
    ['empty area-codes', { ...base, 'area-codes': '' }, 'area-codes', /empty/],
    ['stray comma in area-codes', { ...base, 'area-codes': '1,,2' }, 'area-codes', /empty value/],
    [
      'both codes and labels',
      { ...base, 'area-codes': '1', 'area-labels': 'Northland Region' },
      'area-codes',
      /together/,
    ],
    [
      'unknown dwelling-type',
      { ...base, 'dwelling-type': 'Castle' },
      'dwelling-type',
      /Apartment, Boarding House/,
    ],
    ['unknown num-bedrooms', { ...base, 'num-bedrooms': '6' }, 'num-bedrooms', /1, 2, 3, 4, 5\+, NA/],
    [
      'include-aggregates yes',
      { ...base, 'include-aggregates': 'yes' },
      'include-aggregates',
      /true or false/,
    ],
    ['include-aggregates 1', { ...base, 'include-aggregates': '1' }, 'include-aggregates', /true or false/],
    ['mappings without user-defined', { ...base, [mappings]: 'A(100100)' }, mappings, /only when/],
    ['user-defined without mappings', { ...base, 'area-definition': 'user-defined' }, mappings, /required/],
    [
      'malformed mappings',
      { ...base, 'area-definition': 'user-defined', [mappings]: 'A(100100),B(100100)' },
      mappings,
      /appears in both/,
    ],
    [
      'area-codes with user-defined',
      { ...base, 'area-definition': 'user-defined', [mappings]: 'A(100100)', 'area-codes': '1' },
      'area-codes',
      /use area-labels/,
    ],
    [
      'unknown user label',
      { ...base, 'area-definition': 'user-defined', [mappings]: 'A(100100)', 'area-labels': 'B' },
      'area-labels',
      /not an area label of the user-defined-area-mappings/,
    ],
  ])('%s', (_, query, parameter, message) => {
    let error: unknown;
    try {
      parse(query);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RuleError);
    expect((error as RuleError).field).toBe(parameter);
    expect((error as RuleError).message).toMatch(message);
  });
});
