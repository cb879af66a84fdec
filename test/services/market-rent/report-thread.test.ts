import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseStatisticsQuery } from '../../../src/services/market-rent/domain/params.ts';
import type { ReportInput } from '../../../src/services/market-rent/domain/report.ts';
import {
  encodeReport,
  type PublishPlan,
  prepareAnswer,
  publishPlan,
} from '../../../src/services/market-rent/engine/report.ts';
import {
  acquireReportThread,
  FIRST_SHARE,
  ReportThread,
} from '../../../src/services/market-rent/engine/report-thread.ts';
import { sipRowUniforms } from '../../../src/services/market-rent/engine/row-uniforms.ts';
import { warmUpThread } from '../../../src/services/market-rent/engine/warm-up.ts';
import { generateBonds } from '../../../src/services/market-rent/sandbox/seed.ts';
import type { TestGateway } from '../../support/runtime.ts';
import { marketRentGateway, NOW } from './support/api.ts';
import { geography } from './support/fixtures.ts';
import { modelBlocks } from './support/model-blocks.ts';

/**
 * National answers on two threads (engine/report-thread.ts): the bytes of one thread, whatever happens
 * to the report thread — an answer that fails on the request's thread half-way, a thread that has
 * exited — and through the gateway over HTTP. The 1,000 random queries of equality.test.ts are also
 * made on two threads there.
 */
const quiet = { warn: () => {} };
const TODAY = '2026-03-15';

/** National SAU2019 over 24 months with aggregates on the tests' register (about 19,000 entries). */
function nationalInput(): ReportInput {
  const geo = geography();
  const model = modelBlocks({ geography: geo, scale: 'small', today: TODAY });
  const query = parseStatisticsQuery(
    {
      'period-ending': '2026-01',
      'num-months': '24',
      'area-definition': 'SAU2019',
      'include-aggregates': 'true',
    },
    { geography: geo, now: new Date(`${TODAY}T00:00:00Z`) },
  );
  const { months, lastDay } = query.period;
  return {
    query,
    geography: geo,
    rent: months.map((m) => model.rent(m)),
    closed: months.map((m) => model.closed(m)),
    active: model.active('2026-01' < model.horizon ? '2026-01' : model.horizon),
    pending: model.pending('2025-12-20', lastDay),
    rowUniforms: sipRowUniforms([0x01234567, 0x89abcdef, 0xfedcba98, 0x76543210]),
  };
}

/** A report thread of its own, with the warnings it logs. */
async function startWatched(): Promise<{ thread: ReportThread; warnings: string[] }> {
  const warnings: string[] = [];
  const thread = (await ReportThread.start({ warn: (_, message) => warnings.push(message) })) as ReportThread;
  expect(thread).not.toBeNull();
  return { thread, warnings };
}

describe('the report thread', () => {
  let thread: ReportThread;
  let input: ReportInput;
  const expected = new Map<string, Buffer>();

  beforeAll(async () => {
    thread = (await ReportThread.start(quiet)) as ReportThread;
    expect(thread).not.toBeNull();
    input = nationalInput();
    expect(input.pending.length).toBeGreaterThan(0);
    for (const format of ['json', 'csv'] as const) expected.set(format, encodeReport(input, format));
  });
  afterAll(() => thread?.close());

  it('makes the bytes of one thread, JSON and CSV; answers lent at the same time keep their bytes', () => {
    const jobs = thread.jobs;
    const json = thread.encode(input, 'json');
    const csv = thread.encode(input, 'csv');
    // Both made on two threads (the answer is above MIN_THREAD_ENTRIES), both still lent.
    expect(thread.jobs).toBe(jobs + 2);
    expect(json.bytes.equals(expected.get('json')!)).toBe(true);
    expect(csv.bytes.equals(expected.get('csv')!)).toBe(true);
    json.release();
    csv.release();
    const again = thread.encode(input, 'json');
    expect(again.bytes.equals(expected.get('json')!)).toBe(true);
    again.release();
  });

  it('is not thrown off by an answer that fails on the request thread half-way', () => {
    let calls = 0;
    const base = input.rowUniforms as ReturnType<typeof sipRowUniforms>;
    // The request's thread publishes the later areas; it fails at its 50th row (the report thread,
    // with the same key, is at work on the first areas meanwhile).
    const failing = Object.assign(
      (bytes: Uint8Array, length: number, prefix?: number) => {
        if (++calls > 50) throw new Error('failed half-way');
        return base(bytes, length, prefix);
      },
      { sipKey: base.sipKey },
    );
    expect(() => thread.encode({ ...input, rowUniforms: failing }, 'json')).toThrow('failed half-way');
    const jobs = thread.jobs;
    const next = thread.encode(input, 'json');
    expect(next.bytes.equals(expected.get('json')!)).toBe(true);
    expect(thread.jobs).toBe(jobs + 1);
    next.release();
  });

  it('a report thread that fails before its base histograms: the answer is made here, the same bytes', async () => {
    const { thread: other, warnings } = await startWatched();
    try {
      // The request's thread believes the report thread has this query's plan; it has none, so it
      // fails the job at its start (as any failure before its base histograms would).
      (other as unknown as { lastPlan: PublishPlan }).lastPlan = publishPlan(input.query);
      for (const format of ['json', 'csv'] as const) {
        const answer = other.encode(input, format);
        expect(answer.bytes.equals(expected.get(format)!)).toBe(true);
        answer.release();
      }
      expect(warnings.join('\n')).toContain('the report thread failed an answer');
      // The plan went with the next job: that one was made on two threads.
      expect(other.jobs).toBe(1);
      expect(other.usable).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('bonds taken back out that the blocks do not hold: the ALL area is what one thread makes', () => {
    // An import between reading the revision and reading the bonds not yet lodged can leave a bond
    // taken back out of a cell whose block does not hold it. Made here: in the report thread's areas,
    // one cell has a single bond at rent r and another cell (same dwelling and bedrooms) has a bond
    // at r taken back out with a different bond amount, so the report thread's sum for the ALL area has
    // r with no bonds but a bond sum; a later area (this thread's) also has bonds at r. The ALL area's
    // bond sum at r, and so its brr, must be what one thread's sum over every area gives.
    const { query, geography: geo } = input;
    const areaOf = new Map<number, number>();
    query.areas.forEach((area, a) => {
      for (const code of area.sa2Codes) areaOf.set(geo.sa2Index.get(code) as number, a);
    });
    const entries = new Map<string, { count: number; bondSum: number }>();
    for (const block of input.rent)
      block.cells.forEach((cell, i) => {
        const k = `${cell}|${block.rents[i]}`;
        const e = entries.get(k) ?? { count: 0, bondSum: 0 };
        e.count += block.counts[i] as number;
        e.bondSum += block.bondSums[i] as number;
        entries.set(k, e);
      });
    const current = new Map<number, number>();
    input.active.cells.forEach((cell, i) => {
      current.set(cell, input.active.counts[i] as number);
    });
    const cellParts = (cell: number) => ({
      area: areaOf.get(Math.floor(cell / 30)) ?? -1,
      factor: cell % 30,
    });
    // The report thread's areas: those before the first holding FIRST_SHARE of the entries.
    const work = prepareAnswer(input);
    let firstAreas = 0;
    while (work.entriesBefore(firstAreas) < work.entries * FIRST_SHARE) firstAreas++;
    const early = Math.min(100, firstAreas);
    expect(early).toBeGreaterThan(10);
    // Bonds at each rent (with dwelling and bedrooms) in the report thread's areas, and the rents later
    // areas have; early cells with more than one bond.
    const firstCounts = new Map<string, number>();
    const lateRents = new Set<string>();
    const busy = new Set<number>();
    for (const [k, e] of entries) {
      const [cell, rent] = k.split('|').map(Number) as [number, number];
      const { area, factor } = cellParts(cell);
      if (area < 0) continue;
      const key = `${factor}|${rent}`;
      if (area >= firstAreas) lateRents.add(key);
      else firstCounts.set(key, (firstCounts.get(key) ?? 0) + e.count);
      if (area < early && e.count > 1) busy.add(cell);
    }
    let chosen: { one: number; rent: number; other: number } | undefined;
    for (const [k, e] of entries) {
      const [cell, rent] = k.split('|').map(Number) as [number, number];
      const { area, factor } = cellParts(cell);
      // The one bond at this rent (with these factors) in all of the report thread's areas.
      const key = `${factor}|${rent}`;
      if (e.count !== 1 || area < 0 || area >= early || firstCounts.get(key) !== 1 || !lateRents.has(key))
        continue;
      // Another early cell of the same factors with bonds at other rents (none at r) and bonds active at
      // the end (its counts stay at 0 or more).
      const other = [...busy].find(
        (c) =>
          c !== cell &&
          cellParts(c).factor === factor &&
          (current.get(c) ?? 0) > 0 &&
          !entries.has(`${c}|${rent}`),
      );
      if (other === undefined) continue;
      chosen = { one: cell, rent, other };
      break;
    }
    expect(chosen).toBeDefined();
    const { rent, other } = chosen as { one: number; rent: number; other: number };
    const bondSum = (entries.get(`${chosen?.one}|${rent}`) as { bondSum: number }).bondSum;
    const pending = [
      ...input.pending,
      {
        cell: other,
        startMonth: query.period.months[3] as string,
        closedMonth: null,
        rent,
        bond: bondSum + 50_000_000,
      },
    ];
    const racing = { ...input, pending };
    for (const format of ['json', 'csv'] as const) {
      const oneThread = encodeReport(racing, format);
      const jobs = thread.jobs;
      const answer = thread.encode(racing, format);
      expect(thread.jobs).toBe(jobs + 1);
      expect(answer.bytes.equals(oneThread)).toBe(true);
      answer.release();
    }
  });

  it('once closed, answers are made on one thread: the same bytes', async () => {
    const other = (await ReportThread.start(quiet)) as ReportThread;
    await other.close();
    expect(other.usable).toBe(false);
    const answer = other.encode(input, 'csv');
    expect(answer.bytes.equals(expected.get('csv')!)).toBe(true);
    expect(other.jobs).toBe(0);
    answer.release();
  });

  it('a worker that exits is replaced; answers are made on one thread meanwhile', async () => {
    const { thread: other, warnings } = await startWatched();
    try {
      // The worker ends as a crash would end it.
      await (other as unknown as { worker: Worker }).worker.terminate();
      await new Promise((resolve) => setImmediate(resolve));
      expect(other.usable).toBe(false);
      expect(warnings.join('\n')).toContain('the report thread is gone');
      const meanwhile = other.encode(input, 'json');
      expect(meanwhile.bytes.equals(expected.get('json')!)).toBe(true);
      expect(other.jobs).toBe(0);
      meanwhile.release();
      // A new worker a second later (and the time it takes to load).
      await vi.waitFor(() => expect(other.usable).toBe(true), { timeout: 20_000, interval: 100 });
      const after = other.encode(input, 'json');
      expect(after.bytes.equals(expected.get('json')!)).toBe(true);
      expect(other.jobs).toBe(1);
      after.release();
    } finally {
      await other.close();
    }
  }, 30_000);

  it('starts warmed up when asked (made-up answers on its own core first)', async () => {
    const warmed = (await ReportThread.start(quiet, { warmUp: true })) as ReportThread;
    try {
      const answer = warmed.encode(input, 'json');
      expect(answer.bytes.equals(expected.get('json')!)).toBe(true);
      expect(warmed.jobs).toBe(1);
      answer.release();
    } finally {
      await warmed.close();
    }
  });

  it("runs this thread's part of the two-thread path on made-up answers once, when asked", () => {
    const log = { done: vi.fn(), failed: vi.fn() };
    const jobs = thread.jobs;
    warmUpThread(thread, input.geography, new Date(`${TODAY}T00:00:00Z`), log);
    expect(thread.jobs).toBe(jobs + 2);
    expect(log.done).toHaveBeenCalledTimes(1);
    expect(log.failed).not.toHaveBeenCalled();
    warmUpThread(thread, input.geography, new Date(`${TODAY}T00:00:00Z`), log);
    expect(thread.jobs).toBe(jobs + 2);
    // Real answers after it: the same bytes.
    const answer = thread.encode(input, 'csv');
    expect(answer.bytes.equals(expected.get('csv')!)).toBe(true);
    answer.release();
  });

  it('is one per process: acquired by each environment, stopped when the last releases it', async () => {
    const first = acquireReportThread(quiet);
    const second = acquireReportThread(quiet);
    const thread = await first.thread;
    expect(thread).not.toBeNull();
    expect(await second.thread).toBe(thread);
    await first.release();
    expect(thread?.usable).toBe(true);
    await second.release();
    expect(thread?.usable).toBe(false);
    // A later one starts a new thread.
    const third = acquireReportThread(quiet);
    const next = await third.thread;
    expect(next).not.toBe(thread);
    expect(next?.usable).toBe(true);
    await third.release();
  });
});

describe('the report thread through the gateway', () => {
  let gateway: TestGateway;
  let get: Awaited<ReturnType<typeof marketRentGateway>>['get'];

  beforeAll(async () => {
    ({ gateway, get } = await marketRentGateway({
      RSG_MARKET_RENT_REPORT_THREAD: '1',
      RSG_MARKET_RENT_ANSWER_CACHE_MB: '0',
    }));
    await generateBonds(gateway.runtime.environments.sandbox, { scale: 'small', now: new Date(NOW) });
  }, 120_000);
  afterAll(() => gateway?.close());

  it('answers national queries on two threads, the bytes of one thread', async () => {
    // The gateway's report thread is the process's: the one acquired here.
    const handle = acquireReportThread(quiet);
    const thread = (await handle.thread) as ReportThread;
    const query =
      '/statistics?period-ending=2026-01&num-months=24&area-definition=SAU2019&include-aggregates=true';
    const jobs = thread.jobs;
    const json = await get(query);
    const csv = await get(query, { accept: 'text/csv' });
    expect(json.statusCode).toBe(200);
    expect(csv.statusCode).toBe(200);
    expect(thread.jobs).toBe(jobs + 2);
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(json.body).items.length).toBeGreaterThan(10_000);
    // The thread stopped, the same queries are made on one thread.
    await thread.close();
    await handle.release();
    const jsonAlone = await get(query);
    const csvAlone = await get(query, { accept: 'text/csv' });
    expect(json.rawPayload.equals(jsonAlone.rawPayload)).toBe(true);
    expect(csv.rawPayload.equals(csvAlone.rawPayload)).toBe(true);
  }, 60_000);
});
