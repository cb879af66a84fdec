import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seeded } from '../../../src/platform/random.ts';
import { USER_DEFINED } from '../../../src/services/market-rent/domain/areas.ts';
import { BEDROOM_VALUES, DWELLING_TYPES } from '../../../src/services/market-rent/domain/factors.ts';
import { parseStatisticsQuery, type RawQuery } from '../../../src/services/market-rent/domain/params.ts';
import { statisticsCsv, statisticsJson } from '../../../src/services/market-rent/domain/render.ts';
import {
  buildReport,
  type ReportInput,
  type StatisticsItem,
} from '../../../src/services/market-rent/domain/report.ts';
import type { SipKey } from '../../../src/services/market-rent/domain/siphash.ts';
import { computeAnswer } from '../../../src/services/market-rent/engine/index.ts';
import { ReportThread } from '../../../src/services/market-rent/engine/report-thread.ts';
import { sipRowUniforms } from '../../../src/services/market-rent/engine/row-uniforms.ts';
import * as reference from './reference/render.ts';
import { writeReport as referenceReport } from './reference/report.ts';
import { geography } from './support/fixtures.ts';
import { modelBlocks } from './support/model-blocks.ts';

/**
 * The engine against its oracle: the definition of an answer (domain/report.ts, `buildReport`, rendered
 * by domain/render.ts), the engine (engine/index.ts, `computeAnswer`) and the statistics path as it was
 * before the computed answer's performance work (a frozen copy in ./reference) answer 1,000 random
 * queries (fixed seed) over the small sandbox register, and must give the same bytes, JSON and CSV. The
 * queries cover every area definition, user-defined areas, area-codes and area-labels, factor filters,
 * aggregates, periods of 1 to 24 months and as-of days that leave bonds not yet lodged (taken back out
 * of their cells). Each answer is also made on two threads (engine/report-thread.ts, whatever its
 * size), and must be the same bytes again.
 */
const NOW = new Date('2026-03-15T00:00:00Z');
const TODAY = '2026-03-15';
const QUERIES = 1000;
const SIP_KEY: SipKey = [0x01234567, 0x89abcdef, 0xfedcba98, 0x76543210];

/** The answer as the engine makes it (on this thread: no engine with a report thread is given). */
function current(input: ReportInput, format: 'json' | 'csv'): string {
  const answer = computeAnswer(input, format);
  try {
    return answer.bytes.toString('utf8');
  } finally {
    answer.release();
  }
}

/** The answer as the domain defines it: the rows of buildReport (`items`), rendered. */
function oracle(input: ReportInput, items: StatisticsItem[], format: 'json' | 'csv'): string {
  return format === 'csv'
    ? statisticsCsv(items)
    : statisticsJson(input.query.areaDefinition, input.query.period.periodCovered, items);
}

/** The answer as the reference copy builds it. */
function before(input: ReportInput, format: 'json' | 'csv'): string {
  const out =
    format === 'csv'
      ? reference.csvWriter()
      : reference.jsonWriter(input.query.areaDefinition, input.query.period.periodCovered);
  referenceReport(input, (items) => out.add(items));
  return out.finish();
}

let thread: ReportThread | null = null;
beforeAll(async () => {
  thread = await ReportThread.start({ warn: () => {} });
});
afterAll(async () => {
  await thread?.close();
});

describe('statistics answers: the engine against its oracle on 1,000 random queries', () => {
  it('gives the bytes of the definition and of the old path, JSON and CSV, on one thread and on two', {
    timeout: 600_000,
  }, () => {
    if (thread === null) throw new Error('the report thread did not start');
    let threadedDiffer = 0;
    const geo = geography();
    const model = modelBlocks({ geography: geo, scale: 'small', today: TODAY });
    const random = seeded('market-rent', 'equality', 18);
    const sa2 = geo.sa2Codes;
    const subset = <T>(values: readonly T[], max: number): T[] => {
      const count = random.int(1, Math.min(max, values.length));
      const chosen = new Set<T>();
      while (chosen.size < count) chosen.add(random.pick(values));
      return [...chosen];
    };
    const monthsBeforeJanuary = (count: number) =>
      new Date(Date.UTC(2026, -count, 1)).toISOString().slice(0, 7);
    // The old path hashes each key whole (it passes no prefix length); the new one resumes from the
    // state of its area's prefix, so equal bytes also check that resuming changes no draw.
    const rowUniforms = sipRowUniforms(SIP_KEY);
    let compared = 0;
    let rows = 0;
    let pendingSeen = 0;
    for (let q = 0; q < QUERIES; q++) {
      const raw: Record<string, string> = {};
      const numMonths = random.pick([1, 1, 3, 6, 12, 12, 24, random.int(1, 24)]);
      raw['num-months'] = String(numMonths);
      // Latest allowed period-ending is 2026-01 on 2026-03-15; the register starts in 2022.
      raw['period-ending'] = monthsBeforeJanuary(random.int(0, 20));
      const definitions = [...geo.definitions.map((d) => d.code), USER_DEFINED];
      const definitionName = random.pick(definitions);
      raw['area-definition'] = random.chance(0.2) ? definitionName.toLowerCase() : definitionName;
      const definition = geo.definitions.find((d) => d.code === definitionName);
      if (!definition) {
        const used = new Set<string>();
        const mappings = Array.from({ length: random.int(1, 6) }, (_, i) => {
          const codes = subset(sa2, random.pick([1, 3, 12, 60])).filter((c) => !used.has(c));
          for (const c of codes) used.add(c);
          return codes.length === 0 ? '' : `Area ${i}(${codes.join(',')})`;
        }).filter((m) => m !== '');
        raw['user-defined-area-mappings'] = mappings.join(',');
        if (random.chance(0.3)) {
          raw['area-labels'] = subset(
            mappings.map((m) => m.slice(0, m.indexOf('('))),
            3,
          ).join(',');
        }
      } else if (random.chance(definition.areas.length > 500 ? 0.9 : 0.4)) {
        // Whole-country answers of the finest definitions are the slowest: one in ten of them.
        const areas = subset(definition.areas, random.pick([1, 4, 30]));
        if (random.chance(0.5)) raw['area-codes'] = areas.map((a) => a.code).join(',');
        else raw['area-labels'] = areas.map((a) => a.label).join(',');
      }
      if (random.chance(0.3)) raw['dwelling-type'] = subset(DWELLING_TYPES, 5).join(',');
      if (random.chance(0.3)) raw['num-bedrooms'] = subset(BEDROOM_VALUES, 6).join(',');
      if (random.chance(0.6)) raw['include-aggregates'] = random.pick(['true', 'True', 'false']);

      const query = parseStatisticsQuery(raw as RawQuery, { geography: geo, now: NOW });
      const { months: periodMonths, periodEnding, lastDay } = query.period;
      const activeMonth = periodEnding < model.horizon ? periodEnding : model.horizon;
      // As of today, or of an earlier day, so that some bonds in the blocks are not yet lodged.
      const asOf = random.chance(0.5)
        ? TODAY
        : new Date(Date.parse(`${lastDay}T00:00:00Z`) - random.int(0, 40) * 86_400_000)
            .toISOString()
            .slice(0, 10);
      const input: ReportInput = {
        query,
        geography: geo,
        rent: periodMonths.map((m) => model.rent(m)),
        closed: periodMonths.map((m) => model.closed(m)),
        active: model.active(activeMonth),
        pending: model.pending(asOf, lastDay),
        rowUniforms,
      };
      pendingSeen += input.pending.length;
      const items = buildReport(input);
      for (const format of ['json', 'csv'] as const) {
        const expected = oracle(input, items, format);
        const actual = current(input, format);
        const same = (what: string, text: string) => {
          if (text === expected) return;
          // Name the query and the first difference instead of dumping megabytes.
          let at = 0;
          while (at < expected.length && text[at] === expected[at]) at++;
          expect({
            what,
            query: raw,
            format,
            at,
            actual: text.slice(Math.max(0, at - 200), at + 200),
          }).toEqual({
            what,
            query: raw,
            format,
            at,
            actual: expected.slice(Math.max(0, at - 200), at + 200),
          });
        };
        // The engine makes the definition's bytes, and so did the path before the performance work.
        same('engine', actual);
        same('reference', before(input, format));
        // On two threads (every answer with an entry, however small): the same bytes as on one.
        const threaded = thread.encode(input, format, { minEntries: 1 });
        if (threaded.bytes.toString('utf8') !== actual) threadedDiffer++;
        threaded.release();
        compared++;
        if (format === 'csv') rows += (expected.match(/\r\n/g)?.length ?? 1) - 1;
      }
    }
    expect(compared).toBe(2 * QUERIES);
    expect(threadedDiffer).toBe(0);
    // Most answers were made on two threads (an answer without entries is made on one).
    expect(thread.jobs).toBeGreaterThan(QUERIES);
    // The queries must reach real answers and bonds not yet lodged, or the comparison proves little.
    expect(rows).toBeGreaterThan(100_000);
    expect(pendingSeen).toBeGreaterThan(1000);
  });
});
