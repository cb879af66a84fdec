import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { histogramOfBonds, mergeHistograms } from '../../../src/services/market-rent/domain/histogram.ts';
import { qnorm } from '../../../src/services/market-rent/domain/normal.ts';
import {
  CompensatedSum,
  exactStatistics,
  publishedStatistics,
  roundHalfAwayFromZero,
  SUPPRESSED,
} from '../../../src/services/market-rent/domain/statistics.ts';
import { bruteForce, relativeError } from './support/fixtures.ts';

const bondList = (minLength: number) =>
  fc.array(
    fc.record({
      rent: fc.oneof(
        fc.integer({ min: 1, max: 4000 }),
        fc.integer({ min: 10, max: 120 }).map((k) => k * 10),
      ),
      bond: fc.integer({ min: 0, max: 16_000 }),
    }),
    { minLength, maxLength: 400 },
  );

const histogramOf = (list: readonly { rent: number; bond: number }[]) =>
  histogramOfBonds(
    list.map((b) => b.rent),
    list.map((b) => b.bond),
  );

describe('exactStatistics', () => {
  it('agrees with a straightforward computation on random bonds', () => {
    fc.assert(
      fc.property(bondList(2), (list) => {
        const s = exactStatistics(histogramOf(list));
        const ref = bruteForce(
          list.map((b) => b.rent),
          list.map((b) => b.bond),
        );
        if (s === null) throw new Error('statistics expected');
        expect(s.n).toBe(ref.n);
        // Quantiles and the mean are exact; the others differ only by summation order.
        expect([s.lq, s.med, s.uq, s.mean]).toEqual([ref.lq, ref.med, ref.uq, ref.mean]);
        for (const name of ['sd', 'lsd'] as const) {
          expect(Math.abs((s[name] as number) - ref[name])).toBeLessThanOrEqual(
            1e-9 * Math.max(1, ref[name]),
          );
        }
        for (const name of ['lmean', 'brr'] as const)
          expect(relativeError(s[name], ref[name])).toBeLessThan(1e-12);
        const slq = Math.exp(ref.lmean + qnorm(0.25) * ref.lsd);
        const suq = Math.exp(ref.lmean + qnorm(0.75) * ref.lsd);
        expect(relativeError(s.slq as number, slq)).toBeLessThan(1e-9);
        expect(relativeError(s.suq as number, suq)).toBeLessThan(1e-9);
      }),
    );
  });

  it('is bit-for-bit the same for merge(a, b) and the bonds of a ∪ b', () => {
    fc.assert(
      fc.property(bondList(0), bondList(0), (a, b) => {
        expect(exactStatistics(mergeHistograms(histogramOf(a), histogramOf(b)))).toEqual(
          exactStatistics(histogramOf([...a, ...b])),
        );
      }),
    );
  });

  it('works out a small example by hand', () => {
    // rents 300, 350, 350, 400, 420, 600; bonds four weeks' rent except one at two weeks.
    const s = exactStatistics(
      histogramOfBonds([300, 350, 350, 400, 420, 600], [1200, 1400, 700, 1600, 1680, 2400]),
    );
    expect(s).toMatchObject({ n: 6, mean: 403.3333333333333, lq: 350, med: 375, uq: 415 });
    expect(s?.sd).toBeCloseTo(105.19822558706333, 10); // Python statistics.stdev
    expect(s?.brr).toBeCloseTo((4 * 5 + 2) / 6, 14);
  });

  it('keeps a small spread exact when the rents are large (no Σx² − n·mean² cancellation)', () => {
    // 10,000 bonds at 1e8 ± 1: the naive formula loses every digit at this size.
    const rents = Array.from({ length: 10_000 }, (_, i) => 100_000_000 + (i % 2 === 0 ? -1 : 1));
    const s = exactStatistics(histogramOfBonds(rents, rents));
    expect(s?.mean).toBe(100_000_000);
    expect(s?.sd).toBeCloseTo(Math.sqrt(10_000 / 9_999), 12);
  });

  it('has no sd for a single bond and no statistics for none', () => {
    expect(exactStatistics(histogramOfBonds([350], [1400]))).toMatchObject({
      sd: null,
      lsd: null,
      slq: null,
      med: 350,
    });
    expect(exactStatistics(histogramOfBonds([], []))).toBeNull();
  });
});

describe('publishedStatistics', () => {
  it('suppresses every statistic below 5 bonds and publishes from 5', () => {
    const four = histogramOfBonds([300, 400, 500, 600], [1200, 1600, 2000, 2400]);
    const five = histogramOfBonds([300, 400, 500, 600, 700], [1200, 1600, 2000, 2400, 2800]);
    expect(publishedStatistics(four)).toEqual(SUPPRESSED);
    expect(publishedStatistics(histogramOfBonds([], []))).toEqual(SUPPRESSED);
    expect(publishedStatistics(five)).toEqual({
      mean: 500,
      lq: 400,
      med: 500,
      uq: 600,
      sd: 158,
      brr: 4,
      // From Python's statistics module: lmean 6.171573…, lsd 0.334638…, slq 382.169…, suq 600.212…
      lmean: 6.1716,
      lsd: 0.3346,
      slq: 382,
      suq: 600,
    });
  });

  it('publishes whole dollars, brr to 2 and lmean/lsd to 4 decimals', () => {
    fc.assert(
      fc.property(bondList(5), (list) => {
        const p = publishedStatistics(histogramOf(list));
        for (const name of ['mean', 'lq', 'med', 'uq', 'sd', 'slq', 'suq'] as const) {
          expect(Number.isInteger(p[name])).toBe(true);
        }
        expect(Math.round((p.brr as number) * 100) / 100).toBe(p.brr);
        expect(Math.round((p.lmean as number) * 1e4) / 1e4).toBe(p.lmean);
        expect(Math.round((p.lsd as number) * 1e4) / 1e4).toBe(p.lsd);
      }),
    );
  });
});

describe('roundHalfAwayFromZero', () => {
  it.each([
    [502.5, 0, 503],
    [502.49, 0, 502],
    [-2.5, 0, -3],
    [-0.4, 0, 0],
    [0.49999999999999994, 0, 0],
    [3.845, 2, 3.85], // stored as 3.84500000000000019…: above the tie
    [3.835, 2, 3.83], // stored as 3.83499999999999996…: below the tie, though it reads as one
    [1.125, 2, 1.13], // exactly representable tie: away from zero
    [-1.125, 2, -1.13],
    [6.18544999, 4, 6.1854],
    [6.18545, 4, 6.1855],
    [0.23855, 4, 0.2386],
    [3.84, 2, 3.84],
  ])('rounds %f to %i places as %f', (x, d, expected) => {
    expect(roundHalfAwayFromZero(x, d)).toBe(expected);
  });

  it('gives 0, not −0', () => {
    expect(Object.is(roundHalfAwayFromZero(-0.001, 2), 0)).toBe(true);
  });

  it('agrees with toFixed (exact decimal rounding of the binary value) for positive numbers', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.integer({ min: 0, max: 4 }), (x, d) => {
        expect(roundHalfAwayFromZero(x, d)).toBe(Number(x.toFixed(d)));
      }),
    );
  });
});

describe('CompensatedSum', () => {
  it('keeps the small terms that plain addition drops', () => {
    const sum = new CompensatedSum();
    for (const x of [1, 1e100, 1, -1e100]) sum.add(x);
    expect(sum.value).toBe(2);
  });
});
