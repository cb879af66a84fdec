import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { parseStatisticsQuery } from '../src/services/market-rent/domain/params.ts';
import { latestPeriodEnding } from '../src/services/market-rent/domain/period.ts';
import type { ReportInput } from '../src/services/market-rent/domain/report.ts';
import { encodeReport } from '../src/services/market-rent/engine/report.ts';
import { sipRowUniforms } from '../src/services/market-rent/engine/row-uniforms.ts';
import { dateIn } from '../src/services/market-rent/store/statistics.ts';
import { geography } from '../test/services/market-rent/support/fixtures.ts';
import { modelBlocks } from '../test/services/market-rent/support/model-blocks.ts';

/**
 * The computing part of a national answer alone, without the database or HTTP, for CPU profiles: the
 * full-scale sandbox model's bonds of the last 30 months made into month blocks in memory (so the
 * closed and active counts miss older tenancies; the rent histograms are the register's), then the
 * national SAU2019 × 24 months + aggregates answer built and serialised ROUNDS times.
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/market-rent-profile.ts
 *   node --import tsx bench/cpuprofile-top.ts /tmp/prof/CPU.….cpuprofile 40
 *
 * PROFILE_COMPARE=1 runs the frozen copy of the path before the computed answer's performance work (test/services/market-rent/reference)
 * in turn with the current one, same input, and compares CPU time and bytes.
 *
 * PROFILE_BASELINE=DIR runs, in the same way, the `encodeReport` of another copy of the source tree (for
 * example `git archive HEAD src | tar -x -C DIR`, with node_modules linked there) against the current one:
 * old versus new of one change, interleaved, CPU time per answer and bytes. PROFILE_CURRENT=DIR measures
 * another copy's code instead of this one's (alone, or as the new side against PROFILE_BASELINE): run
 * it for two copies in turn, process after process, to compare them without sharing a heap.
 *
 * PROFILE_THREAD=1 compares one thread with two (engine/report-thread.ts), wall clock, interleaved;
 * with PROFILE_THRASH=1, 64 MB are written before each answer (the caches cold, as in a server).
 *
 * PROFILE_ROUNDS (default 10), PROFILE_SCALE (full, or small: the tests' register), PROFILE_FORMAT (json or csv), PROFILE_OUT (a file for the last answer,
 * to compare bytes before and after a change).
 */
const ROUNDS = Number(process.env.PROFILE_ROUNDS ?? 10);
const FORMAT = process.env.PROFILE_FORMAT === 'csv' ? 'csv' : 'json';
const now = new Date(process.env.PROFILE_NOW ?? '2026-11-24T00:00:00Z');
const today = dateIn(now, 'Pacific/Auckland');
const periodEnding = latestPeriodEnding(now, 'Pacific/Auckland');
const [year, month] = periodEnding.split('-').map(Number) as [number, number];
const fromMonth = new Date(Date.UTC(year, month - 30, 1)).toISOString().slice(0, 7);

let started = performance.now();
const geo = geography();
// The blocks of the window are kept in a file between runs (PROFILE_CACHE): building them takes a while.
const SCALE = process.env.PROFILE_SCALE === 'small' ? 'small' : 'full';
const cacheFile =
  process.env.PROFILE_CACHE ?? path.join(os.tmpdir(), `rsg-market-rent-profile-${SCALE}-${today}.bin`);
type Blocks = Pick<ReportInput, 'rent' | 'closed' | 'active' | 'pending'>;
let blocks: Blocks;
const build = (): Blocks => {
  const model = modelBlocks({ geography: geo, scale: SCALE, today, fromMonth });
  const { months: window, lastDay: last } = parseStatisticsQuery(
    { 'period-ending': periodEnding, 'num-months': '24', 'area-definition': 'SAU2019' },
    { geography: geo, now },
  ).period;
  return {
    rent: window.map((m) => model.rent(m)),
    closed: window.map((m) => model.closed(m)),
    active: model.active(periodEnding < model.horizon ? periodEnding : model.horizon),
    pending: model.pending(today, last),
  };
};
if (existsSync(cacheFile)) blocks = deserialize(readFileSync(cacheFile)) as Blocks;
else {
  blocks = build();
  writeFileSync(cacheFile, serialize(blocks));
}
const query = parseStatisticsQuery(
  {
    'period-ending': periodEnding,
    'num-months': '24',
    'area-definition': 'SAU2019',
    'include-aggregates': 'true',
  },
  { geography: geo, now },
);
const input: ReportInput = {
  query,
  geography: geo,
  ...blocks,
  rowUniforms: sipRowUniforms([1, 2, 3, 4]),
};
const entries = input.rent.reduce((s, b) => s + b.cells.length, 0);
const bonds = input.rent.reduce((s, b) => s + b.counts.reduce((t, c) => t + c, 0), 0);
process.stderr.write(
  `model from ${fromMonth}: window ${bonds} bonds, ${entries} histogram entries, ${input.pending.length} pending; built in ${(performance.now() - started).toFixed(0)} ms\n`,
);

/**
 * `encodeReport` of another copy of the source tree: engine/report.ts, or domain/report.ts in a copy
 * from before the engine had a folder of its own.
 */
async function encodeReportOf(directory: string): Promise<typeof encodeReport> {
  const service = path.resolve(directory, 'src/services/market-rent');
  const file = ['engine/report.ts', 'domain/report.ts']
    .map((name) => path.join(service, name))
    .find((candidate) => existsSync(candidate));
  if (file === undefined) throw new Error(`no report.ts of the statistics engine under ${service}`);
  return ((await import(file)) as { encodeReport: typeof encodeReport }).encodeReport;
}

// PROFILE_CURRENT=DIR: the code measured is another copy's (to measure past changes one against another).
const encodeNow = process.env.PROFILE_CURRENT
  ? await encodeReportOf(process.env.PROFILE_CURRENT)
  : encodeReport;
const times: number[] = [];
const cpu: number[] = [];
let bytes = 0;
let lastAnswer: Buffer = Buffer.alloc(0);
for (let round = 0; round < ROUNDS; round++) {
  started = performance.now();
  const cpuStarted = process.cpuUsage();
  const answer = encodeNow(input, FORMAT);
  bytes = answer.length;
  lastAnswer = answer;
  times.push(performance.now() - started);
  const used = process.cpuUsage(cpuStarted);
  cpu.push((used.user + used.system) / 1000);
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const list = (values: number[]) => values.map((t) => t.toFixed(0)).join(', ');
// On a shared machine the wall clock includes other processes' turns; CPU time (all threads) does not.
process.stderr.write(
  `${FORMAT}: ${bytes} bytes; wall ms ${list(times)} (median ${median(times).toFixed(0)}); CPU ms ${list(cpu)} (median ${median(cpu).toFixed(0)}, min ${Math.min(...cpu).toFixed(0)})\n`,
);
if (process.env.PROFILE_COMPARE === '1') {
  const reference = await import('../test/services/market-rent/reference/render.ts');
  const { writeReport } = await import('../test/services/market-rent/reference/report.ts');
  const before = () => {
    const out =
      FORMAT === 'csv'
        ? reference.csvWriter()
        : reference.jsonWriter(query.areaDefinition, query.period.periodCovered);
    writeReport(input, (items) => out.add(items));
    return Buffer.from(out.finish());
  };
  const cpuOf = (work: () => Buffer) => {
    const started = process.cpuUsage();
    const answer = work();
    const used = process.cpuUsage(started);
    return { ms: (used.user + used.system) / 1000, answer };
  };
  const old: number[] = [];
  const now: number[] = [];
  let same = true;
  for (let round = 0; round < ROUNDS; round++) {
    const a = cpuOf(before);
    const b = cpuOf(() => encodeNow(input, FORMAT));
    old.push(a.ms);
    now.push(b.ms);
    if (!a.answer.equals(b.answer)) same = false;
  }
  const ratios = old.map((o, i) => o / (now[i] as number));
  process.stderr.write(
    `before ${list(old)} (median ${median(old).toFixed(0)}); now ${list(now)} (median ${median(now).toFixed(0)}); before ÷ now per round, median ${median(ratios).toFixed(2)}; same bytes: ${same}\n`,
  );
}
if (process.env.PROFILE_BASELINE) {
  const encodeBaseline = await encodeReportOf(process.env.PROFILE_BASELINE);
  const old: number[] = [];
  const now: number[] = [];
  let same = true;
  for (let round = 0; round < ROUNDS; round++) {
    // The order alternates round by round, so neither side always runs just after the other's garbage.
    const first = round % 2 === 0;
    for (const side of first ? ['old', 'new'] : ['new', 'old']) {
      const started = process.cpuUsage();
      const answer = side === 'old' ? encodeBaseline(input, FORMAT) : encodeNow(input, FORMAT);
      const used = process.cpuUsage(started);
      (side === 'old' ? old : now).push((used.user + used.system) / 1000);
      if (!answer.equals(lastAnswer)) same = false;
    }
  }
  // Whoever runs second in a round pays for the first one's garbage, so rounds are taken in pairs.
  const pairs: number[] = [];
  for (let r = 0; r + 1 < ROUNDS; r += 2)
    pairs.push(((old[r] as number) + (old[r + 1] as number)) / ((now[r] as number) + (now[r + 1] as number)));
  process.stderr.write(
    `baseline ${list(old)} (median ${median(old).toFixed(0)}); now ${list(now)} (median ${median(now).toFixed(0)}); baseline ÷ now: medians ${(median(old) / median(now)).toFixed(2)}, per pair of rounds median ${median(pairs).toFixed(2)}; same bytes: ${same}\n`,
  );
}
if (process.env.PROFILE_THREAD === '1') {
  // One thread against two (engine/report-thread.ts), wall clock, interleaved; the same bytes.
  const { ReportThread } = await import('../src/services/market-rent/engine/report-thread.ts');
  const { encodeReportLent } = await import('../src/services/market-rent/engine/report.ts');
  const thread = await ReportThread.start({
    warn: (details, message) => process.stderr.write(`${message} ${JSON.stringify(details)}\n`),
  });
  if (thread === null) throw new Error('no report thread');
  const one: number[] = [];
  const two: number[] = [];
  const thrash = new Uint8Array(64 * 1024 * 1024);
  let same = true;
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 === 0 ? ['one', 'two'] : ['two', 'one']) {
      // PROFILE_THRASH=1: 64 MB written first, as a server's sending of its last answer (12.5 MB through
      // the kernel, and the client reading it) leaves the caches: the computation starts cold.
      if (process.env.PROFILE_THRASH === '1') thrash.fill(round);
      const started = performance.now();
      const answer = side === 'one' ? encodeReportLent(input, FORMAT) : thread.encode(input, FORMAT);
      (side === 'one' ? one : two).push(performance.now() - started);
      if (!answer.bytes.equals(lastAnswer)) same = false;
      answer.release();
    }
  }
  process.stderr.write(
    `one thread ${list(one)} (median ${median(one).toFixed(0)}); two ${list(two)} (median ${median(two).toFixed(0)}); one ÷ two ${(median(one) / median(two)).toFixed(2)}; jobs ${thread.jobs}; same bytes: ${same}\n`,
  );
  await thread.close();
}
if (process.env.PROFILE_OUT) writeFileSync(process.env.PROFILE_OUT, lastAnswer);
