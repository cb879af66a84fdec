import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyedUniform } from '../../../src/platform/random.ts';
import {
  areaKey,
  type CellKeyParts,
  cellKey,
  randomRound3,
  roundCounts,
} from '../../../src/services/market-rent/domain/rounding.ts';

const SECRET = 'test-secret';

describe('randomRound3', () => {
  it.each([
    // count, u, expected: remainder 1 goes down with 2/3, remainder 2 goes up with 2/3
    [0, 0, 0],
    [0, 0.999, 0],
    [3, 0.5, 3],
    [300, 0.9, 300],
    [1, 0, 0],
    [1, 0.6666, 0],
    [1, 2 / 3, 3],
    [1, 0.99, 3],
    [2, 0, 3],
    [2, 0.66, 3],
    [2, 2 / 3, 0],
    [4, 0.1, 3],
    [4, 0.9, 6],
    [5, 0.1, 6],
    [5, 0.9, 3],
    [1000, 0.3, 999],
    [1000, 0.7, 1002],
  ])('rounds %i with u=%f to %i', (count, u, expected) => {
    expect(randomRound3(count, u)).toBe(expected);
  });

  it.each([
    [-1, 0.5],
    [1.5, 0.5],
    [Number.NaN, 0.5],
    [3, 1],
    [3, -0.1],
    [3, Number.NaN],
  ])('rejects count %f, u %f', (count, u) => {
    expect(() => randomRound3(count, u)).toThrow(RangeError);
  });

  it('always gives a multiple of 3 within 2 of the count, and leaves multiples of 3 alone', () => {
    fc.assert(
      fc.property(
        fc.nat(1_000_000),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (count, u) => {
          const rounded = randomRound3(count, u);
          expect(rounded % 3).toBe(0);
          expect(Math.abs(rounded - count)).toBeLessThanOrEqual(2);
          expect(rounded).toBeGreaterThanOrEqual(0);
          if (count % 3 === 0) expect(rounded).toBe(count);
        },
      ),
    );
  });

  // Over many cells with keyed draws, the split must be 2/3 nearest, 1/3 second nearest. With 30,000
  // cells the standard error of the share is 0.0027; the keyed draws are fixed, so this never flakes.
  it.each([1, 2, 4, 5, 7, 101, 1000])('sends count %i to the nearest multiple 2/3 of the time', (count) => {
    const cells = 30_000;
    const nearest = Math.round(count / 3) * 3;
    let toNearest = 0;
    let total = 0;
    for (let i = 0; i < cells; i++) {
      const u = keyedUniform(SECRET, `cell-${count}-${i}`);
      const rounded = randomRound3(count, u);
      if (rounded === nearest) toNearest++;
      total += rounded;
    }
    expect(Math.abs(toNearest / cells - 2 / 3)).toBeLessThan(0.0136);
    // Unbiased: the mean of rounded values stays at the count (sd of one draw is √2).
    expect(Math.abs(total / cells - count)).toBeLessThan((5 * Math.SQRT2) / Math.sqrt(cells));
  });
});

const base: CellKeyParts = {
  periodEnding: '2024-06',
  numMonths: 6,
  area: areaKey(['252500']),
  dwelling: 'Flat',
  bedrooms: '2',
  statistic: 'nLodged',
};

describe('areaKey', () => {
  it('depends on the set of codes, not their order or repeats', () => {
    expect(areaKey(['131800', '130200', '131300'])).toBe(areaKey(['130200', '131300', '131800', '130200']));
    expect(areaKey(['130200'])).toBe('sa2:130200');
  });

  it('hashes large sets and still tells different sets apart', () => {
    const codes = Array.from({ length: 50 }, (_, i) => String(100100 + i * 100));
    const key = areaKey(codes);
    expect(key).toMatch(/^sa2#50:[0-9a-f]{64}$/);
    expect(areaKey([...codes].reverse())).toBe(key);
    expect(areaKey(codes.slice(1))).not.toBe(key);
  });

  it('orders codes numerically so that 99 sorts before 100', () => {
    expect(areaKey(['100', '99'])).toBe('sa2:99,100');
  });
});

describe('cellKey', () => {
  it('is stable and names the population and the statistic', () => {
    expect(cellKey(base)).toBe('mr2|2024-06|6|sa2:252500|Flat|2|nLodged');
    expect(cellKey({ ...base })).toBe(cellKey(base));
  });

  it.each<[string, Partial<CellKeyParts>]>([
    ['period', { periodEnding: '2024-05' }],
    ['length', { numMonths: 5 }],
    ['area', { area: areaKey(['252600']) }],
    ['dwelling', { dwelling: 'House' }],
    ['bedrooms', { bedrooms: '5+' }],
    ['statistic', { statistic: 'nCurr' }],
  ])('changes with the %s', (_, change) => {
    expect(cellKey({ ...base, ...change })).not.toBe(cellKey(base));
  });

  it('writes a factor set that covers every value as ALL, and a one-value set as that value', () => {
    const all = cellKey({ ...base, dwelling: 'ALL' });
    expect(cellKey({ ...base, dwelling: ['Room', 'House', 'Flat', 'Boarding House', 'Apartment'] })).toBe(
      all,
    );
    expect(cellKey({ ...base, dwelling: ['Flat'] })).toBe(cellKey(base));
    expect(cellKey({ ...base, bedrooms: ['2', '1'] })).toBe(cellKey({ ...base, bedrooms: ['1', '2'] }));
    expect(() => cellKey({ ...base, bedrooms: [] })).toThrow(RangeError);
  });

  it('keys a user-defined area by its codes: renaming the label cannot re-draw the rounding', () => {
    // The label is not an input at all; two mappings with the same codes give one key.
    const mine = cellKey({ ...base, area: areaKey(['130200', '131800']) });
    const renamed = cellKey({ ...base, area: areaKey(['131800', '130200']) });
    expect(renamed).toBe(mine);
  });
});

describe('roundCounts', () => {
  it('rounds each count with its own key, identically on every call', () => {
    const uniform = (key: string) => keyedUniform(SECRET, key);
    const counts = { nLodged: 607, nClosed: 343, nCurr: 9694 };
    const first = roundCounts(counts, base, uniform);
    expect(roundCounts(counts, base, uniform)).toEqual(first);
    for (const name of ['nLodged', 'nClosed', 'nCurr'] as const) {
      expect(first[name] % 3).toBe(0);
      expect(Math.abs(first[name] - counts[name])).toBeLessThanOrEqual(2);
    }
    const seen: string[] = [];
    roundCounts(counts, base, (key) => {
      seen.push(key);
      return 0;
    });
    expect(new Set(seen).size).toBe(3);
  });
});
