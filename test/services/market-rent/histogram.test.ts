import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_HISTOGRAM,
  histogramOfBonds,
  histogramOfGroups,
  mergeHistograms,
  type RentHistogram,
} from '../../../src/services/market-rent/domain/histogram.ts';
import { mergeAllHistograms } from '../../../src/services/market-rent/engine/accumulator.ts';

const bond = fc.record({
  rent: fc.integer({ min: 1, max: 5000 }),
  bond: fc.integer({ min: 0, max: 20_000 }),
});
const bonds = fc.array(bond, { maxLength: 200 });
const build = (list: readonly { rent: number; bond: number }[]) =>
  histogramOfBonds(
    list.map((b) => b.rent),
    list.map((b) => b.bond),
  );

function plain(h: RentHistogram) {
  return { rents: [...h.rents], counts: [...h.counts], bondSums: [...h.bondSums], n: h.n };
}

describe('building a histogram', () => {
  it('groups bonds by rent, ascending, with counts and bond sums', () => {
    const h = histogramOfBonds([400, 350, 400, 500, 350, 400], [1600, 1400, 1500, 2000, 1400, 1700]);
    expect(plain(h)).toEqual({
      rents: [350, 400, 500],
      counts: [2, 3, 1],
      bondSums: [2800, 4800, 2000],
      n: 6,
    });
  });

  it('accepts grouped rows in any order, with repeats and zero counts', () => {
    const h = histogramOfGroups([500, 400, 500, 300], [1, 2, 3, 0], [2000, 3000, 6000, 0]);
    expect(plain(h)).toEqual({ rents: [400, 500], counts: [2, 4], bondSums: [3000, 8000], n: 6 });
  });

  it.each([
    ['a zero rent', [0], [1], [0]],
    ['a fractional rent', [350.5], [1], [0]],
    ['a negative bond sum', [350], [1], [-1]],
    ['a fractional count', [350], [1.5], [0]],
    ['a non-finite bond sum', [350], [1], [Number.POSITIVE_INFINITY]],
  ])('rejects %s', (_, rents, counts, sums) => {
    expect(() => histogramOfGroups(rents, counts, sums)).toThrow(RangeError);
  });

  it('rejects arrays of different lengths', () => {
    expect(() => histogramOfBonds([1, 2], [1])).toThrow(RangeError);
  });
});

describe('merging histograms', () => {
  it('merge(a, b) is exactly the histogram of a ∪ b', () => {
    fc.assert(
      fc.property(bonds, bonds, (a, b) => {
        expect(plain(mergeHistograms(build(a), build(b)))).toEqual(plain(build([...a, ...b])));
      }),
    );
  });

  it('merging many is exactly the histogram of the union, whether rents are low (dense) or high (sparse)', () => {
    const wide = fc.record({
      rent: fc.integer({ min: 1, max: 2_000_000_000 }),
      bond: fc.integer({ min: 0, max: 9 }),
    });
    for (const arbitrary of [bonds, fc.array(wide, { maxLength: 20 })]) {
      fc.assert(
        fc.property(fc.array(arbitrary, { maxLength: 12 }), (parts) => {
          expect(plain(mergeAllHistograms(parts.map(build)))).toEqual(plain(build(parts.flat())));
        }),
      );
    }
  });

  it('is commutative and has the empty histogram as identity', () => {
    fc.assert(
      fc.property(bonds, bonds, (a, b) => {
        const [ha, hb] = [build(a), build(b)];
        expect(plain(mergeHistograms(ha, hb))).toEqual(plain(mergeHistograms(hb, ha)));
        expect(plain(mergeHistograms(ha, EMPTY_HISTOGRAM))).toEqual(plain(ha));
      }),
    );
    expect(mergeAllHistograms([])).toBe(EMPTY_HISTOGRAM);
  });
});
