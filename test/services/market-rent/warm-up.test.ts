import { describe, expect, it, vi } from 'vitest';
import type { Geography } from '../../../src/services/market-rent/domain/areas.ts';
import { CELLS_PER_SA2 } from '../../../src/services/market-rent/domain/blocks.ts';
import { parseStatisticsQuery } from '../../../src/services/market-rent/domain/params.ts';
import type { ReportInput } from '../../../src/services/market-rent/domain/report.ts';
import { deriveSipKey } from '../../../src/services/market-rent/domain/siphash.ts';
import { encodeReport } from '../../../src/services/market-rent/engine/report.ts';
import { sipRowUniforms } from '../../../src/services/market-rent/engine/row-uniforms.ts';
import {
  madeUpInputs,
  madeUpMonth,
  warmUpOnce,
  warmUpReports,
} from '../../../src/services/market-rent/engine/warm-up.ts';
import {
  EMPTY_COUNT_BLOCK,
  Sa2Lookup,
  warmUpDecoding,
} from '../../../src/services/market-rent/store/blocks.ts';
import { marketRentGeography } from '../../../src/services/market-rent/store/geography.ts';

/** engine/warm-up.ts: made-up answers at start, so the first real query runs compiled code. */
const now = new Date('2026-03-15T00:00:00Z');

describe('the statistics warm-up', () => {
  it('makes month blocks of the shape store/blocks.ts reads: entries sorted by cell, then rent', () => {
    const cellCount = marketRentGeography().sa2Codes.length * CELLS_PER_SA2;
    let state = 1;
    const next = () => {
      state = (state * 48271) % 2147483647;
      return state / 2147483647;
    };
    const { rent, closed } = madeUpMonth(cellCount, next);
    expect(rent.cells.length).toBeGreaterThan(1000);
    for (let i = 1; i < rent.cells.length; i++) {
      const order = rent.cells[i]! - rent.cells[i - 1]! || rent.rents[i]! - rent.rents[i - 1]!;
      expect(order).toBeGreaterThan(0);
    }
    expect(Math.max(...rent.cells)).toBeLessThan(cellCount);
    for (let i = 1; i < closed.cells.length; i++)
      expect(closed.cells[i]!).toBeGreaterThan(closed.cells[i - 1]!);
  });

  it('leaves no trace in real answers: the same bytes before and after it', () => {
    const geography = marketRentGeography();
    const query = parseStatisticsQuery(
      {
        'period-ending': '2026-01',
        'num-months': '1',
        'area-definition': 'REGC2019',
        'include-aggregates': 'true',
      },
      { geography, now },
    );
    const sa2 = geography.sa2Codes.indexOf('100100');
    const input: ReportInput = {
      query,
      geography,
      rent: [
        {
          cells: Int32Array.of(sa2 * CELLS_PER_SA2 + 2, sa2 * CELLS_PER_SA2 + 2, sa2 * CELLS_PER_SA2 + 9),
          rents: Int32Array.of(350, 420, 500),
          counts: Int32Array.of(4, 2, 7),
          bondSums: Float64Array.of(5600, 3360, 14000),
        },
      ],
      closed: [EMPTY_COUNT_BLOCK],
      active: EMPTY_COUNT_BLOCK,
      pending: [],
      rowUniforms: sipRowUniforms(deriveSipKey(() => 0.25, 'test')),
    };
    const before = [encodeReport(input, 'json'), encodeReport(input, 'csv')];
    expect(warmUpReports(geography, now)).toBeGreaterThan(0);
    expect(encodeReport(input, 'json').equals(before[0]!)).toBe(true);
    expect(encodeReport(input, 'csv').equals(before[1]!)).toBe(true);
  });

  it('decodes made-up month blocks of both kinds through the binary COPY reader', () => {
    const geography = marketRentGeography();
    // 24 months of 5,000 entries, rent and closed.
    expect(warmUpDecoding(new Sa2Lookup(geography), geography.sa2Codes)).toBe(2 * 24 * 5000);
  });

  it('runs once per geography, and a failure is reported, not thrown', () => {
    const done = vi.fn();
    const failed = vi.fn();
    // A geography without SAU2019 cannot answer the made-up national query.
    const real = marketRentGeography();
    const broken: Geography = { ...real, definitions: [] };
    warmUpOnce(broken, now, { done, failed });
    warmUpOnce(broken, now, { done, failed });
    expect(failed).toHaveBeenCalledTimes(1);
    expect(done).not.toHaveBeenCalled();
    const copy: Geography = { ...real };
    const also = vi.fn();
    warmUpOnce(copy, now, { done, failed }, also);
    warmUpOnce(copy, now, { done, failed }, also);
    expect(done).toHaveBeenCalledTimes(1);
    expect(also).toHaveBeenCalledTimes(1);
    expect(done.mock.calls[0]![0]).toBeGreaterThan(0);
  });
});

describe('the made-up inputs', () => {
  it('take the paths real answers take: bonds not yet lodged, rents above the dense band, bond ratios that are not whole', () => {
    const inputs = madeUpInputs(marketRentGeography(), now);
    expect(inputs.map((i) => i.format)).toEqual(['json', 'json', 'csv']);
    const { input } = inputs[0]!;
    expect(input.pending.length).toBeGreaterThan(20);
    expect(input.pending.some((p) => p.closedMonth === null)).toBe(true);
    expect(input.pending.some((p) => p.closedMonth !== null)).toBe(true);
    expect(input.rent.some((b) => b.rents.some((r) => r > 4095))).toBe(true);
    expect(input.rent.some((b) => b.rents.some((r, i) => b.bondSums[i]! % (r * b.counts[i]!) !== 0))).toBe(
      true,
    );
    // Taking the pending bonds out leaves no count below zero (randomRound3 would throw).
    for (const { input: each, format } of inputs)
      expect(encodeReport(each, format).length).toBeGreaterThan(1000);
  });
});
