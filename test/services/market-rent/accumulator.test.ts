import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_HISTOGRAM,
  histogramOfBonds,
  type RentHistogram,
} from '../../../src/services/market-rent/domain/histogram.ts';
import { mergePackedCells, RentAccumulator } from '../../../src/services/market-rent/engine/accumulator.ts';
import {
  histogramAt,
  packHistograms,
  packSortedRows,
} from '../../../src/services/market-rent/engine/packed.ts';

const plain = (h: RentHistogram) => ({
  rents: [...h.rents],
  counts: [...h.counts],
  bondSums: [...h.bondSums],
  n: h.n,
});

const rent = fc.oneof(fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 1, max: 2_000_000 }));
const bondsArb = fc.array(fc.record({ rent, bond: fc.integer({ min: 0, max: 20_000 }) }), { maxLength: 50 });
const build = (list: readonly { rent: number; bond: number }[]) =>
  histogramOfBonds(
    list.map((b) => b.rent),
    list.map((b) => b.bond),
  );

describe('packed histograms', () => {
  it('give back each cell unchanged', () => {
    fc.assert(
      fc.property(fc.array(bondsArb, { maxLength: 10 }), (cells) => {
        const histograms = cells.map(build);
        const packed = packHistograms(histograms);
        expect(packed.size).toBe(histograms.length);
        histograms.forEach((h, i) => {
          expect(plain(histogramAt(packed, i))).toEqual(plain(h));
        });
      }),
    );
  });

  it('merge any subset of cells into exactly the histogram of their bonds', () => {
    fc.assert(
      fc.property(
        fc.array(bondsArb, { minLength: 1, maxLength: 10 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (cells, picks) => {
          const packed = packHistograms(cells.map(build));
          const chosen = [...new Set(picks.map((p) => p % cells.length))];
          const direct = build(chosen.flatMap((c) => cells[c] ?? []));
          expect(plain(mergePackedCells(packed, chosen))).toEqual(plain(direct));
        },
      ),
    );
  });
});

describe('packSortedRows', () => {
  it('packs database rows ordered by cell and rent, leaving cells without rows empty', () => {
    const packed = packSortedRows(
      4,
      [0, 0, 2, 2, 2],
      [300, 400, 350, 400, 900],
      [1, 2, 3, 1, 1],
      [1200, 3200, 4200, 1600, 3600],
    );
    expect(plain(histogramAt(packed, 0))).toEqual({
      rents: [300, 400],
      counts: [1, 2],
      bondSums: [1200, 3200],
      n: 3,
    });
    expect(histogramAt(packed, 1).n).toBe(0);
    expect(plain(histogramAt(packed, 2))).toEqual({
      rents: [350, 400, 900],
      counts: [3, 1, 1],
      bondSums: [4200, 1600, 3600],
      n: 5,
    });
    expect(histogramAt(packed, 3).rents).toHaveLength(0);
  });

  it('gives the same cells as packing histograms one by one', () => {
    fc.assert(
      fc.property(fc.array(bondsArb, { maxLength: 8 }), (cells) => {
        const histograms = cells.map(build);
        const rows = histograms.flatMap((h, cell) =>
          [...h.rents].map((r, i) => [cell, r, h.counts[i], h.bondSums[i]] as number[]),
        );
        const column = (k: number) => rows.map((row) => row[k] as number);
        const packed = packSortedRows(cells.length, column(0), column(1), column(2), column(3));
        expect(packed).toEqual(packHistograms(histograms));
      }),
    );
  });

  it.each([
    ['cells out of order', [1, 0], [300, 300], [1, 1], [0, 0], /cell 0 out of order/],
    ['a cell out of range', [0, 5], [300, 300], [1, 1], [0, 0], /cell 5/],
    ['rents out of order', [0, 0], [400, 300], [1, 1], [0, 0], /rent 300/],
    ['a repeated rent', [0, 0], [400, 400], [1, 1], [0, 0], /rent 400/],
    ['a zero rent', [0], [0], [1], [0], /rent 0/],
    ['a zero count', [0], [300], [0], [0], /count 0/],
    ['a negative bond sum', [0], [300], [1], [-5], /bond sum -5/],
  ])('refuses %s', (_, cells, rents, counts, sums, message) => {
    expect(() => packSortedRows(2, cells, rents, counts, sums)).toThrow(message);
  });
});

describe('RentAccumulator', () => {
  it('keeps rents above its dense limit in order with the rest', () => {
    const acc = new RentAccumulator(100);
    acc.add(500, 1, 2000);
    acc.add(50, 2, 400);
    acc.add(101, 1, 404);
    acc.add(100, 1, 400);
    acc.add(500, 1, 1900);
    expect(acc.n).toBe(6);
    expect(plain(acc.take())).toEqual({
      rents: [50, 100, 101, 500],
      counts: [2, 1, 1, 2],
      bondSums: [400, 400, 404, 3900],
      n: 6,
    });
  });

  it('is empty again after take(), so one accumulator serves many rows', () => {
    const acc = new RentAccumulator(1000);
    acc.addHistogram(histogramOfBonds([400, 400, 2000], [1600, 1600, 8000]));
    acc.take();
    expect(acc.n).toBe(0);
    expect(acc.take()).toBe(EMPTY_HISTOGRAM);
    acc.addHistogram(histogramOfBonds([300], [1200]));
    expect(plain(acc.take())).toEqual({ rents: [300], counts: [1], bondSums: [1200], n: 1 });
  });

  it('grows its list of touched rents past the initial size', () => {
    const acc = new RentAccumulator();
    const rents = Array.from({ length: 1000 }, (_, i) => 1000 + i);
    acc.addHistogram(histogramOfBonds(rents, rents));
    expect([...acc.take().rents]).toEqual(rents);
  });

  it('ignores zero counts', () => {
    const acc = new RentAccumulator();
    acc.add(400, 0, 0);
    expect(acc.take()).toBe(EMPTY_HISTOGRAM);
  });
});
