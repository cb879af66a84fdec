import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyedUniform } from '../../../src/platform/random.ts';
import {
  type Cell,
  EMPTY_CELL,
  joinMonths,
  mergeCells,
  publishCell,
} from '../../../src/services/market-rent/domain/cells.ts';
import { histogramOfBonds } from '../../../src/services/market-rent/domain/histogram.ts';
import { areaKey } from '../../../src/services/market-rent/domain/rounding.ts';
import { exactStatistics, SUPPRESSED } from '../../../src/services/market-rent/domain/statistics.ts';

const uniform = (key: string) => keyedUniform('cells-test', key);
const key = {
  periodEnding: '2026-07',
  numMonths: 1,
  area: areaKey(['100100']),
  dwelling: 'ALL',
  bedrooms: 'ALL',
} as const;

const cellArb = fc
  .record({
    bonds: fc.array(
      fc.record({ rent: fc.integer({ min: 50, max: 2000 }), bond: fc.integer({ min: 0, max: 8000 }) }),
      {
        maxLength: 60,
      },
    ),
    nClosed: fc.nat(100),
    nCurr: fc.nat(1000),
  })
  .map(({ bonds, nClosed, nCurr }) => ({
    bonds,
    cell: {
      lodged: histogramOfBonds(
        bonds.map((b) => b.rent),
        bonds.map((b) => b.bond),
      ),
      nClosed,
      nCurr,
    } satisfies Cell,
  }));

describe('mergeCells', () => {
  it('adds every figure and gives the statistics of the union of the bonds (an ALL row)', () => {
    fc.assert(
      fc.property(fc.array(cellArb, { maxLength: 8 }), (parts) => {
        const merged = mergeCells(parts.map((p) => p.cell));
        const all = parts.flatMap((p) => p.bonds);
        const direct = histogramOfBonds(
          all.map((b) => b.rent),
          all.map((b) => b.bond),
        );
        expect(merged.lodged.n).toBe(all.length);
        expect(merged.nClosed).toBe(parts.reduce((s, p) => s + p.cell.nClosed, 0));
        expect(merged.nCurr).toBe(parts.reduce((s, p) => s + p.cell.nCurr, 0));
        expect(exactStatistics(merged.lodged)).toEqual(exactStatistics(direct));
      }),
    );
    expect(mergeCells([])).toBe(EMPTY_CELL);
  });
});

describe('joinMonths', () => {
  it('adds lodged and closed bonds but takes active bonds at the end of the last month', () => {
    const month = (rents: number[], nClosed: number, nCurr: number): Cell => ({
      lodged: histogramOfBonds(rents, rents),
      nClosed,
      nCurr,
    });
    const joined = joinMonths([month([400, 500], 1, 10), month([450], 2, 11), month([], 0, 12)]);
    expect(joined.lodged.n).toBe(3);
    expect(joined.nClosed).toBe(3);
    expect(joined.nCurr).toBe(12);
    expect(joinMonths([])).toBe(EMPTY_CELL);
  });
});

describe('publishCell', () => {
  const cellOf = (n: number): Cell => ({
    lodged: histogramOfBonds(
      Array.from({ length: n }, (_, i) => 400 + 10 * i),
      Array.from({ length: n }, () => 1600),
    ),
    nClosed: 4,
    nCurr: 20,
  });

  it('suppresses statistics at 4 bonds and publishes them at 5, with rounded counts either way', () => {
    const four = publishCell(cellOf(4), key, uniform);
    const five = publishCell(cellOf(5), key, uniform);
    expect(four).toMatchObject(SUPPRESSED);
    expect([3, 6]).toContain(four.nLodged);
    expect(five.mean).toBe(420);
    expect([3, 6]).toContain(five.nLodged);
    for (const row of [four, five]) {
      expect(row.nClosed % 3).toBe(0);
      expect(row.nCurr % 3).toBe(0);
    }
  });

  it('gives the same figures on every request, in the published key order', () => {
    const first = publishCell(cellOf(7), key, uniform);
    expect(publishCell(cellOf(7), key, uniform)).toEqual(first);
    expect(Object.keys(first)).toEqual([
      'nLodged',
      'nClosed',
      'nCurr',
      'mean',
      'lq',
      'med',
      'uq',
      'sd',
      'brr',
      'lmean',
      'lsd',
      'slq',
      'suq',
    ]);
  });

  it('keeps zero counts at zero', () => {
    expect(publishCell(EMPTY_CELL, key, uniform)).toEqual({
      nLodged: 0,
      nClosed: 0,
      nCurr: 0,
      ...SUPPRESSED,
    });
  });
});
