import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seeded } from '../../../src/platform/random.ts';
import { takingTurns } from '../../../src/services/market-rent/domain/arena.ts';
import { CELLS_PER_SA2 } from '../../../src/services/market-rent/domain/blocks.ts';
import { PIECE_BYTES } from '../../../src/services/market-rent/domain/encode.ts';
import { marketRentGeography } from '../../../src/services/market-rent/domain/geography.ts';
import { parseStatisticsQuery } from '../../../src/services/market-rent/domain/params.ts';
import {
  encodeReport,
  encodeReportInSteps,
  type ReportInput,
} from '../../../src/services/market-rent/domain/report.ts';
import { deriveSipKey, sipRowUniforms } from '../../../src/services/market-rent/domain/siphash.ts';
import { madeUpMonth } from '../../../src/services/market-rent/domain/warm-up.ts';
import { STREAMED_FROM_AREAS } from '../../../src/services/market-rent/store/statistics.ts';
import type { TestGateway } from '../../support/runtime.ts';
import { type Bond, importInto, marketRentGateway } from './api-support.ts';

/**
 * Streamed answers (issue 18): a national answer is written in pieces that go to the socket while the
 * rest is computed, other work runs between its steps, and computations take turns over the shared
 * working arrays. Whatever the interleaving, the bytes are those of the answer computed whole.
 */
const now = new Date('2026-03-15T00:00:00Z');

function nationalInput(
  format: 'json' | 'csv',
  months: number,
): { input: ReportInput; format: typeof format } {
  const geography = marketRentGeography();
  const cellCount = geography.sa2Codes.length * CELLS_PER_SA2;
  const next = seeded('market-rent-streaming-test').next;
  const blocks = Array.from({ length: months }, () => madeUpMonth(cellCount, next));
  const query = parseStatisticsQuery(
    {
      'period-ending': '2026-01',
      'num-months': String(months),
      'area-definition': 'SAU2019',
      'include-aggregates': 'true',
    },
    { geography, now },
  );
  return {
    format,
    input: {
      query,
      geography,
      rent: blocks.map((b) => b.rent),
      closed: blocks.map((b) => b.closed),
      active: madeUpMonth(cellCount, next).closed,
      pending: [],
      rowUniforms: sipRowUniforms(deriveSipKey(next, 'streaming-test')),
    },
  };
}

describe('an answer in steps', () => {
  it.each(['json', 'csv'] as const)(
    '%s: pieces handed on while it is computed, each at most a piece long, joining into the whole answer',
    (format) => {
      const { input } = nationalInput(format, 6);
      const whole = encodeReport(input, format);
      const pieces: Buffer[] = [];
      let steps = 0;
      let stepOfFirstPiece = -1;
      for (const _ of encodeReportInSteps(input, format, (piece) => {
        if (pieces.length === 0) stepOfFirstPiece = steps;
        pieces.push(piece);
      }))
        steps++;
      expect(steps).toBe(input.query.areas.length + 1);
      expect(pieces.length).toBeGreaterThan(2);
      // The first piece went out long before the last area.
      expect(stepOfFirstPiece).toBeGreaterThanOrEqual(0);
      expect(stepOfFirstPiece).toBeLessThan(steps / 2);
      for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(PIECE_BYTES);
      expect(Buffer.concat(pieces).equals(whole)).toBe(true);
    },
  );
});

describe('takingTurns', () => {
  it('starts a computation only once the one before it has ended, even one that pauses or fails', async () => {
    const events: string[] = [];
    const pause = () => new Promise<void>((resolve) => setImmediate(resolve));
    const first = takingTurns(async () => {
      events.push('first begins');
      await pause();
      await pause();
      events.push('first ends');
      throw new Error('first fails');
    });
    const second = takingTurns(async () => {
      events.push('second begins');
      await pause();
      events.push('second ends');
      return 2;
    });
    const third = takingTurns(async () => {
      events.push('third');
      return 3;
    });
    await expect(first).rejects.toThrow('first fails');
    expect(await second).toBe(2);
    expect(await third).toBe(3);
    expect(events).toEqual(['first begins', 'first ends', 'second begins', 'second ends', 'third']);
  });
});

describe('over HTTP', () => {
  let gateway: TestGateway;
  let get: Awaited<ReturnType<typeof marketRentGateway>>['get'];
  let key: string;

  beforeAll(async () => {
    // Every answer computed (no answer cache), over bonds in many SA2s: a national answer of several pieces.
    ({ gateway, get, key } = await marketRentGateway({ RSG_MARKET_RENT_ANSWER_CACHE_MB: '0' }));
    const random = seeded('market-rent-streaming-bonds');
    const codes = marketRentGeography().sa2Codes;
    const bonds: Bond[] = [];
    for (let i = 0; i < 3_000; i++) {
      const rent = random.int(20, 90) * 10;
      bonds.push({
        id: `S${i}`,
        start: `2025-${String(random.int(8, 12)).padStart(2, '0')}-${String(random.int(1, 28)).padStart(2, '0')}`,
        sa2: codes[random.int(0, 799)]!,
        dwelling: random.pick(['House', 'Flat', 'Apartment', 'Room']),
        bedrooms: random.pick([1, 2, 3, 4, 5]),
        rent,
        closed: random.chance(0.2) ? '2026-01-20' : null,
      });
    }
    await importInto(gateway, bonds);
  }, 120_000);
  afterAll(() => gateway?.close());

  const queries = [
    ['json', 'period-ending=2025-12&num-months=6&area-definition=SAU2019&include-aggregates=true'],
    ['csv', 'period-ending=2025-12&num-months=6&area-definition=SAU2019&include-aggregates=true'],
    ['json', 'period-ending=2025-11&num-months=3&area-definition=SAU2019'],
    ['json', 'period-ending=2025-12&num-months=6&area-definition=REGC2019&include-aggregates=true'],
  ] as const;
  const ask = (format: 'json' | 'csv', query: string) =>
    get(`/statistics?${query}`, { accept: format === 'csv' ? 'text/csv' : 'application/json' });

  it('a national answer is streamed (no Content-Length), a small one sent whole', async () => {
    const national = await ask('json', queries[0][1]);
    expect(national.statusCode).toBe(200);
    expect(national.headers['content-length']).toBeUndefined();
    expect(national.headers['content-type']).toMatch(/^application\/json/);
    expect(national.rawPayload.length).toBeGreaterThan(2 * PIECE_BYTES);
    expect(national.json().items.length).toBeGreaterThan(1000);
    const regions = await ask('json', queries[3][1]);
    expect(regions.statusCode).toBe(200);
    expect(regions.json().items.length).toBeLessThanOrEqual((STREAMED_FROM_AREAS + 1) * 42);
    expect(Number(regions.headers['content-length'])).toBe(regions.rawPayload.length);
  });

  it('answers computed at the same time, their steps interleaved, are the bytes of each computed alone', async () => {
    const alone: Buffer[] = [];
    for (const [format, query] of queries) alone.push((await ask(format, query)).rawPayload);
    for (let round = 0; round < 2; round++) {
      const together = await Promise.all(
        [...queries, ...queries].map(([format, query]) => ask(format, query)),
      );
      together.forEach((response, i) => {
        expect(response.statusCode).toBe(200);
        expect(response.rawPayload.equals(alone[i % queries.length]!), `query ${i}`).toBe(true);
      });
    }
  }, 60_000);

  it('HEAD of a streamed answer: its headers, no body', async () => {
    const response = await gateway.app.inject({
      method: 'HEAD',
      url: `/sandbox/tenancy-services/market-rent/v2/statistics?${queries[0][1]}`,
      headers: { 'Ocp-Apim-Subscription-Key': key },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.rawPayload.length).toBe(0);
  });
});
