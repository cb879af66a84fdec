import { describe, expect, it } from 'vitest';
import { CELLS_PER_SA2, type RentBlock } from '../../../src/services/market-rent/domain/blocks.ts';
import { parseStatisticsQuery } from '../../../src/services/market-rent/domain/params.ts';
import { buildReport } from '../../../src/services/market-rent/domain/report.ts';
import { rowKey } from '../../../src/services/market-rent/domain/rounding.ts';
import { reportItems } from '../../../src/services/market-rent/engine/report.ts';
import { EMPTY_COUNT_BLOCK } from '../../../src/services/market-rent/store/blocks.ts';
import { geography } from './support/fixtures.ts';

/**
 * The rows of an answer on hand-made month blocks, without a database: as the domain defines them
 * (buildReport) and as the engine makes them (reportItems), each held to the same rules.
 */
const now = new Date('2026-03-15T00:00:00Z');

function block(
  entries: [sa2: string, dwelling: number, bedrooms: number, rent: number, count: number][],
): RentBlock {
  const g = geography();
  const cells = entries.map(([sa2, d, b]) => (g.sa2Index.get(sa2) as number) * CELLS_PER_SA2 + d * 6 + b);
  return {
    cells: Int32Array.from(cells),
    rents: Int32Array.from(entries.map((e) => e[3])),
    counts: Int32Array.from(entries.map((e) => e[4])),
    bondSums: Float64Array.from(entries.map((e) => e[3] * e[4] * 4)),
  };
}

describe.each([
  ['buildReport (domain/report.ts, the definition)', buildReport],
  ['the engine (engine/report.ts)', reportItems],
])('%s', (_, buildReport) => {
  it('keys each row exactly as rowKey writes it, built from bytes without strings', () => {
    const query = parseStatisticsQuery(
      {
        'period-ending': '2026-01',
        'num-months': '1',
        'area-definition': 'user-defined',
        'user-defined-area-mappings': 'Ōtaki(100100,100200),B(308900)',
        'include-aggregates': 'true',
        'dwelling-type': 'House,Flat',
      },
      { geography: geography(), now },
    );
    const seen: string[] = [];
    const decoder = new TextDecoder();
    buildReport({
      query,
      geography: geography(),
      rent: [
        block([
          ['100100', 3, 2, 400, 1],
          ['308900', 2, 1, 300, 2],
        ]),
      ],
      closed: [EMPTY_COUNT_BLOCK],
      active: EMPTY_COUNT_BLOCK,
      pending: [],
      rowUniforms: (bytes, length) => {
        seen.push(decoder.decode(bytes.subarray(0, length)));
        return [0.5, 0.5, 0.5];
      },
    });
    const base = { periodEnding: '2026-01', numMonths: 1 };
    const a = query.areas[0]!.key;
    const all = query.allAreasKey;
    expect(seen).toContain(rowKey({ ...base, area: a, dwelling: 'House', bedrooms: '3' }));
    expect(seen).toContain(rowKey({ ...base, area: a, dwelling: ['House', 'Flat'], bedrooms: 'ALL' }));
    expect(seen).toContain(rowKey({ ...base, area: all, dwelling: ['Flat', 'House'], bedrooms: '2' }));
    // The national total has 3 bonds: a multiple of 3 needs no draw.
    expect(seen).not.toContain(rowKey({ ...base, area: all, dwelling: ['Flat', 'House'], bedrooms: 'ALL' }));
  });

  it('takes bonds not yet lodged back out of their cells and counts', () => {
    const query = parseStatisticsQuery(
      { 'period-ending': '2026-01', 'num-months': '1', 'area-definition': 'SAU2019', 'area-codes': '100100' },
      { geography: geography(), now },
    );
    const cell = (geography().sa2Index.get('100100') as number) * CELLS_PER_SA2 + 3 * 6 + 1;
    const items = buildReport({
      query,
      geography: geography(),
      rent: [
        block([
          ['100100', 3, 1, 400, 6],
          ['100100', 3, 1, 450, 1],
        ]),
      ],
      closed: [EMPTY_COUNT_BLOCK],
      active: { cells: Int32Array.of(cell), counts: Int32Array.of(7) },
      pending: [{ cell, startMonth: '2026-01', closedMonth: null, rent: 450, bond: 1800 }],
      rowUniforms: () => [0, 0, 0],
    });
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      dwell: 'House',
      nBedrms: '2',
      nLodged: 6,
      nCurr: 6,
      mean: 400,
      med: 400,
    });
  });

  it('gives the same rows whatever the order of a month block, and leaves out cells outside the geography', () => {
    const query = parseStatisticsQuery(
      {
        'period-ending': '2026-01',
        'num-months': '2',
        'area-definition': 'SAU2019',
        'area-codes': '100100,100200,308900',
        'include-aggregates': 'true',
      },
      { geography: geography(), now },
    );
    const entries: [string, number, number, number, number][] = [
      ['100100', 3, 1, 400, 6],
      ['100100', 3, 1, 450, 2],
      ['100100', 3, 2, 520, 5],
      ['100200', 0, 0, 380, 7],
      ['100200', 0, 0, 390, 1],
      ['308900', 2, 5, 300, 9],
      ['308900', 2, 5, 310, 4],
      ['308900', 4, 0, 200, 5],
    ];
    const sorted = block(entries);
    // The same entries with the cells interleaved (each cell's rents still ascending) and an entry of an
    // SA2 outside the geography (cell −1) in between.
    const order = [5, 0, 3, 6, 1, 7, 4, 2];
    const shuffled = block(order.map((i) => entries[i]!));
    const withStranger: RentBlock = {
      cells: Int32Array.from([...shuffled.cells.subarray(0, 3), -1, ...shuffled.cells.subarray(3)]),
      rents: Int32Array.from([...shuffled.rents.subarray(0, 3), 999, ...shuffled.rents.subarray(3)]),
      counts: Int32Array.from([...shuffled.counts.subarray(0, 3), 50, ...shuffled.counts.subarray(3)]),
      bondSums: Float64Array.from([...shuffled.bondSums.subarray(0, 3), 1, ...shuffled.bondSums.subarray(3)]),
    };
    const report = (months: RentBlock[]) =>
      buildReport({
        query,
        geography: geography(),
        rent: months,
        closed: [EMPTY_COUNT_BLOCK, EMPTY_COUNT_BLOCK],
        active: EMPTY_COUNT_BLOCK,
        pending: [],
        rowUniforms: () => [0.2, 0.5, 0.8],
      });
    const expected = report([sorted, sorted]);
    expect(expected.length).toBeGreaterThan(8);
    expect(report([withStranger, sorted])).toEqual(expected);
    expect(report([shuffled, withStranger])).toEqual(expected);
  });
});

describe('answer writers', () => {
  it('write batch by batch exactly the text of the whole-answer renderers', async () => {
    const { csvWriter, jsonWriter, statisticsCsv, statisticsJson } = await import(
      '../../../src/services/market-rent/domain/render.ts'
    );
    const row = (area: string, n: number) => ({
      area,
      dwell: 'House',
      nBedrms: '3',
      nLodged: n,
      nClosed: 0,
      nCurr: 3,
      mean: n > 4 ? 500 : null,
      lq: null,
      med: null,
      uq: null,
      sd: null,
      brr: n > 4 ? 3.84 : null,
      lmean: null,
      lsd: null,
      slq: null,
      suq: null,
    });
    const batches = [[row('A "quoted", area', 6)], [row('B', 3), row('B', 9)]];
    const json = jsonWriter('SAU2019', '2026-1-1/2026-1-31');
    const csv = csvWriter();
    for (const batch of batches) {
      json.add(batch);
      csv.add(batch);
    }
    expect(json.finish()).toBe(statisticsJson('SAU2019', '2026-1-1/2026-1-31', batches.flat()));
    expect(csv.finish()).toBe(statisticsCsv(batches.flat()));
    expect(jsonWriter('REGC2019', 'x').finish()).toBe(statisticsJson('REGC2019', 'x', []));
  });
});
