import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALL, BEDROOM_VALUES, DWELLING_TYPES } from '../../../src/services/market-rent/domain/factors.ts';
import { statisticsCsv, statisticsJson } from '../../../src/services/market-rent/domain/render.ts';
import type { StatisticsItem } from '../../../src/services/market-rent/domain/report.ts';
import {
  FIGURE_DECIMALS,
  FIGURE_NAMES,
  roundHalfAwayFromZero,
} from '../../../src/services/market-rent/domain/statistics.ts';
import {
  answerEncoder,
  csvEncoder,
  joinParts,
  jsonEncoder,
} from '../../../src/services/market-rent/engine/encode.ts';

/**
 * The serializers of the fixed row shape against the definitional ones (JSON.stringify of the items,
 * statisticsCsv): the same text for any rows, labels with quotes, commas, line breaks and non-ASCII
 * letters, figures of every size rounded as they are published, nulls and suppressed rows.
 */
const figure = (decimals: number) =>
  fc.oneof(
    fc.constant(null),
    fc.constantFrom(0, 1, 9, 10, 9999, 10_000, 99_999_999, 100_000_000, 0.5, 1.125, 3.835, 0.0001, 0.001),
    fc.double({ min: -1e6, max: 1e9, noNaN: true }).map((x) => roundHalfAwayFromZero(x, decimals)),
    fc.double({ min: 0, max: 20, noNaN: true }).map((x) => roundHalfAwayFromZero(x, decimals)),
  );

const label = fc.oneof(
  fc.constantFrom('ALL', 'Kaikōura', 'Ōtara "East"', 'A, B', 'line\r\nbreak', 'back\\slash', '\u2028'),
  fc.string(),
);

const row = fc.record({
  area: label,
  d: fc.integer({ min: 0, max: DWELLING_TYPES.length }),
  b: fc.integer({ min: 0, max: BEDROOM_VALUES.length }),
  counts: fc.tuple(fc.nat(10_000_000), fc.nat(100_000), fc.nat(300)),
  figures: fc.oneof(fc.constant(null), fc.tuple(...FIGURE_DECIMALS.map((decimals) => figure(decimals)))),
});

describe('answer encoders', () => {
  it('write the same text as render.ts, JSON and CSV', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 30 }), fc.string(), (rows, definition) => {
        const items: StatisticsItem[] = [];
        const json = jsonEncoder(definition, '2026-1-1/2026-1-31');
        const csv = csvEncoder();
        for (const r of rows) {
          const figures =
            r.figures === null ? null : Float64Array.from(r.figures, (x) => (x === null ? Number.NaN : x));
          const item: Record<string, unknown> = {
            area: r.area,
            dwell: r.d < DWELLING_TYPES.length ? DWELLING_TYPES[r.d] : ALL,
            nBedrms: r.b < BEDROOM_VALUES.length ? BEDROOM_VALUES[r.b] : ALL,
            nLodged: r.counts[0],
            nClosed: r.counts[1],
            nCurr: r.counts[2],
          };
          FIGURE_NAMES.forEach((name, f) => {
            item[name] = r.figures === null ? null : r.figures[f];
          });
          items.push(item as unknown as StatisticsItem);
          for (const encoder of [json, csv]) {
            encoder.area(r.area);
            encoder.row(r.d, r.b, r.counts[0], r.counts[1], r.counts[2], figures);
          }
        }
        expect(json.finish().toString('utf8')).toBe(statisticsJson(definition, '2026-1-1/2026-1-31', items));
        expect(csv.finish().toString('utf8')).toBe(statisticsCsv(items));
      }),
      { numRuns: 300 },
    );
  });
});

describe('answers in two parts (joinParts)', () => {
  it('are the bytes of the whole answer wherever the rows are split, JSON and CSV', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 12 }), fc.nat(12), (rows, at) => {
        const split = Math.min(at, rows.length);
        for (const format of ['json', 'csv'] as const) {
          const whole = answerEncoder(format, 'SAU2019', '2026-1-1/2026-1-31');
          const first = answerEncoder(format, 'SAU2019', '2026-1-1/2026-1-31', 'first');
          const later = answerEncoder(format, 'SAU2019', '2026-1-1/2026-1-31', 'later');
          rows.forEach((r, i) => {
            const figures =
              r.figures === null ? null : Float64Array.from(r.figures, (x) => (x === null ? Number.NaN : x));
            // The first part's rows, then the later part's: none in either, or all in one, included.
            for (const encoder of [whole, i < split ? first : later]) {
              encoder.area(r.area);
              encoder.row(r.d, r.b, r.counts[0], r.counts[1], r.counts[2], figures);
            }
          });
          const joined = joinParts(format, first.finishPart(), later.finishPart());
          expect(joined.bytes.toString('utf8')).toBe(whole.finish().toString('utf8'));
          joined.release();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('are sent as bytes: an answer joined from a part in shared memory is backed by an ArrayBuffer', () => {
    // The HTTP layer sends a buffer as bytes only then (it serialised one on shared memory as JSON).
    const first = answerEncoder('json', 'SAU2019', '2026-1-1/2026-1-31', 'first');
    const later = answerEncoder('json', 'SAU2019', '2026-1-1/2026-1-31', 'later');
    first.area('A');
    first.row(0, 0, 3, 0, 0, null);
    const part = first.finishPart();
    expect(part.buffer.buffer).toBeInstanceOf(SharedArrayBuffer);
    const joined = joinParts('json', part, later.finishPart());
    expect(joined.bytes.buffer).toBeInstanceOf(ArrayBuffer);
    expect(JSON.parse(joined.bytes.toString('utf8')).items).toHaveLength(1);
    joined.release();
  });
});

describe('lent answers (finishLent)', () => {
  const write = (label: string) => {
    const json = jsonEncoder('SAU2019', '2026-1-1/2026-1-31');
    json.area(label);
    json.row(0, 0, 3, 0, 3, null);
    return json;
  };

  it('are the bytes finish() copies, and stay untouched by encoders at work before their release', () => {
    const copied = write('first').finish();
    const lent = write('first').finishLent();
    expect(lent.bytes.equals(copied)).toBe(true);
    // While it is out, another answer gets a buffer of its own.
    const other = write('second, longer label').finishLent();
    expect(lent.bytes.equals(copied)).toBe(true);
    other.release();
    lent.release();
    lent.release();
  });

  it('give their buffer back at release: the next answer is written over them', () => {
    const lent = write('first').finishLent();
    const before = Buffer.from(lent.bytes);
    lent.release();
    const next = write('other').finishLent();
    expect(next.bytes.buffer).toBe(lent.bytes.buffer);
    expect(lent.bytes.equals(before)).toBe(false);
    next.release();
  });
});
