import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { histogramOfBonds } from '../../../src/services/market-rent/domain/histogram.ts';
import {
  histogramPercentiles,
  percentileCont,
  rangeQuartilesInto,
} from '../../../src/services/market-rent/domain/quantiles.ts';

describe('percentileCont (PostgreSQL percentile_cont, type 7)', () => {
  // Each expected value is what `SELECT percentile_cont(p) WITHIN GROUP (ORDER BY x) FROM (VALUES …)` returns.
  it.each([
    [[5], 0.25, 5],
    [[1, 2], 0.5, 1.5],
    [[1, 2, 3, 4], 0.25, 1.75],
    [[1, 2, 3, 4], 0.5, 2.5],
    [[1, 2, 3, 4], 0.75, 3.25],
    [[10, 20, 30, 40, 50], 0.25, 20],
    [[10, 20, 30, 40, 50], 0.75, 40],
    [[300, 350, 350, 400, 420, 600], 0.25, 350],
    [[300, 350, 350, 400, 420, 600], 0.5, 375],
    [[300, 350, 350, 400, 420, 600], 0.75, 415],
    [[1, 2, 3], 0, 1],
    [[1, 2, 3], 1, 3],
  ])('of %j at %f is %f', (sorted, p, expected) => {
    expect(percentileCont(sorted, p)).toBe(expected);
  });

  it('is null for no values and rejects fractions outside [0, 1]', () => {
    expect(percentileCont([], 0.5)).toBeNull();
    expect(() => percentileCont([1], 1.5)).toThrow(RangeError);
    expect(() => percentileCont([1], Number.NaN)).toThrow(RangeError);
  });
});

describe('histogramPercentiles', () => {
  it('equals percentile_cont over the sorted expansion, bit for bit', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 3000 }), { minLength: 1, maxLength: 300 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 5 }),
        (rents, fractions) => {
          const histogram = histogramOfBonds(rents, rents);
          const sorted = [...rents].sort((a, b) => a - b);
          expect(histogramPercentiles(histogram, fractions)).toEqual(
            fractions.map((p) => percentileCont(sorted, p)),
          );
        },
      ),
    );
  });

  it('handles heavy ties, where rents cluster on multiples of $10', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.integer({ min: 20, max: 80 }).map((k) => k * 10),
          { minLength: 1, maxLength: 500 },
        ),
        (rents) => {
          const histogram = histogramOfBonds(rents, rents);
          const sorted = [...rents].sort((a, b) => a - b);
          const ps = [0.25, 0.5, 0.75];
          expect(histogramPercentiles(histogram, ps)).toEqual(ps.map((p) => percentileCont(sorted, p)));
        },
      ),
    );
  });

  it('is null for an empty histogram', () => {
    expect(histogramPercentiles(histogramOfBonds([], []), [0.5])).toEqual([null]);
  });
});

describe('rangeQuartilesInto', () => {
  it('gives the three quartiles of percentile_cont, bit for bit, for a histogram packed among others', () => {
    fc.assert(
      fc.property(
        // Few bonds too (1 to 4), where the quartiles share ranks; heavy ties; a neighbour on each side.
        fc.array(
          fc.integer({ min: 1, max: 60 }).map((k) => k * 10),
          { minLength: 1, maxLength: 200 },
        ),
        fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 5 }),
        (rents, before) => {
          const histogram = histogramOfBonds(rents, rents);
          const neighbour = histogramOfBonds(before, before);
          const packedRents = Int32Array.from([...neighbour.rents, ...histogram.rents, ...neighbour.rents]);
          const packedCounts = Float64Array.from([
            ...neighbour.counts,
            ...histogram.counts,
            ...neighbour.counts,
          ]);
          const from = neighbour.rents.length;
          const out = new Float64Array(5).fill(-1);
          rangeQuartilesInto(
            packedRents,
            packedCounts,
            from,
            from + histogram.rents.length,
            histogram.n,
            out,
            1,
          );
          const sorted = [...rents].sort((a, b) => a - b);
          expect([...out]).toEqual([
            -1,
            percentileCont(sorted, 0.25),
            percentileCont(sorted, 0.5),
            percentileCont(sorted, 0.75),
            -1,
          ]);
        },
      ),
      { numRuns: 500 },
    );
  });
});
