import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RuleError } from '../../../src/platform/errors.ts';
import { parseUserDefinedMappings } from '../../../src/services/market-rent/domain/mappings.ts';
import { areaKey } from '../../../src/services/market-rent/domain/rounding.ts';
import { geography } from './support/fixtures.ts';

const index = geography().sa2Index;
const parse = (text: string | string[]) => parseUserDefinedMappings(text, index);
const summary = (text: string | string[]) => parse(text).map((a) => [a.label, a.sa2Codes]);

describe('parseUserDefinedMappings: accepted forms', () => {
  it.each<[string | string[], [string, string[]][]]>([
    ['MyCBD(130200,131800,131300)', [['MyCBD', ['130200', '131300', '131800']]]],
    [
      ' MyCBD ( 130200 , 131800 ) , Far North(100100,100200) ',
      [
        ['MyCBD', ['130200', '131800']],
        ['Far North', ['100100', '100200']],
      ],
    ],
    [
      'A(100100),B(100200)',
      [
        ['A', ['100100']],
        ['B', ['100200']],
      ],
    ],
    ['A(100100,100100)', [['A', ['100100']]]],
    [
      ['A(100100)', 'B(100200)'],
      [
        ['A', ['100100']],
        ['B', ['100200']],
      ],
    ],
    ['Ōtautahi – east & west!(100100)', [['Ōtautahi – east & west!', ['100100']]]],
    ['A(\t100100\n)', [['A', ['100100']]]],
  ])('%j', (text, expected) => {
    expect(summary(text)).toEqual(expected);
  });

  it('keys each area by its codes, never its label', () => {
    const [mine] = parse('Mine(131800, 130200)');
    const [renamed] = parse('Something else(130200,131800)');
    expect(mine?.key).toBe(renamed?.key);
    expect(mine?.key).toBe(areaKey(['130200', '131800']));
  });
});

describe('parseUserDefinedMappings: refused forms name the parameter and the rule', () => {
  it.each([
    ['', /at least one mapping/],
    ['   ', /at least one mapping/],
    ['MyCBD', /no bracketed list/],
    ['MyCBD()', /empty list of codes/],
    ['MyCBD( )', /empty list of codes/],
    ['MyCBD(130200,,131800)', /empty code/],
    ['MyCBD(130200,)', /empty code/],
    ['(130200)', /label before "\(" is empty/],
    ['  (130200)', /label before "\(" is empty/],
    ['My(CBD)(130200)', /may not hold brackets/],
    ['My(CBD(130200))', /"\(" inside a code list/],
    ['MyCBD)130200(', /"\)" without "\("/],
    ['MyCBD(130200', /never closed/],
    ['A(100100) B(100200)', /expected "," or the end/],
    ['A(100100),', /trailing comma/],
    ['A(100100),,B(100200)', /stray comma/],
    [',A(100100)', /stray comma/],
    ['A(100100),B(100100)', /code 100100 appears in both "A" and "B"/],
    ['A(100100),a(100200)', /label "a" is used twice/],
    ['ALL(100100)', /reserved/],
    ['A(999999)', /"999999" in "A" is not a statistical area 2/],
    ['A(abc)', /"abc" in "A" is not/],
    ['A(1001 00)', /"1001 00" in "A" is not/],
  ])('%j', (text, message) => {
    let error: unknown;
    try {
      parse(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RuleError);
    expect((error as RuleError).field).toBe('user-defined-area-mappings');
    expect((error as RuleError).message).toMatch(message);
  });
});

describe('parseUserDefinedMappings: properties', () => {
  const codes = geography().sa2Codes;
  const label = fc
    .string({ minLength: 1, maxLength: 12 })
    .map((s) => s.replace(/[(),]/g, '').trim())
    .filter((s) => s !== '' && s.toLowerCase() !== 'all');

  it('round-trips any well-formed list of disjoint mappings, whatever the spacing', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(label, { minLength: 1, maxLength: 6, selector: (s) => s.toLowerCase() }),
        fc.shuffledSubarray([...codes], { minLength: 6, maxLength: 60 }),
        fc.constantFrom('', ' ', '  ', '\t'),
        (labels, picked, space) => {
          const groups = labels.map((l, i) => ({
            label: l,
            codes: picked.filter((_, j) => j % labels.length === i),
          }));
          const usable = groups.filter((g) => g.codes.length > 0);
          const text = usable
            .map(
              (g) =>
                `${space}${g.label}${space}(${g.codes.map((c) => `${space}${c}${space}`).join(',')})${space}`,
            )
            .join(',');
          const parsed = parse(text);
          expect(parsed.map((a) => a.label)).toEqual(usable.map((g) => g.label));
          parsed.forEach((area, i) => {
            expect([...area.sa2Codes].sort()).toEqual([...(usable[i]?.codes ?? [])].sort());
          });
        },
      ),
    );
  });
});
