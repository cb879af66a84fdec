/**
 * What the import benchmarks share (import-nzbn.ts, import-ppsr.ts, import-disclose.ts, import-iponz.ts): the rounds — the import through the
 * transfer framework (`importFiles`, all or nothing, as `rsg import` runs it) against `COPY` of the same
 * rows into the same tables, interleaved, the order alternating, the tables emptied before each — and
 * the peak RSS of this process during each contender (sampled every 50 ms); then the import once more as
 * an operator runs it, `rsg import` in a process of its own, for its peak RSS (what the goal is about:
 * this process also holds the benchmark's modules and the generated data's writer).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import type { Database } from '../src/platform/db/pool.ts';
import type { DatabaseUrls } from '../src/platform/db/urls.ts';
import { analyzeGrown } from '../src/platform/store/transfer-checkpoints.ts';
import { boundHeapForStreaming } from '../src/platform/transfer/heap.ts';
import { median, root } from './support.ts';

// The rounds run in this process as `rsg import` runs: with the Node flags of bin/rsg.js's first line
// (package.json's bench:import-* scripts give them) and the heap bounded as the command bounds it.
boundHeapForStreaming();

/** The Node flags `rsg` runs with: those of bin/rsg.js's first line (`#!/usr/bin/env -S node …`). */
const RSG_NODE_FLAGS = readFileSync(path.join(root, 'bin/rsg.js'), 'utf8')
  .split('\n', 1)[0]!
  .split(' ')
  .filter((word) => word.startsWith('--'));

export interface Contender {
  name: string;
  /** Empties what the contender fills (not timed). */
  reset(): Promise<void>;
  run(): Promise<void>;
  /** Checks what it wrote (not timed): throws when wrong. */
  check(): Promise<void>;
}

export interface Measured {
  seconds: number[];
  /** The process's peak RSS while the contender ran, and how far above its RSS at the start. */
  peakRssMb: number[];
  growthMb: number[];
}

async function measure(
  contender: Contender,
): Promise<{ seconds: number; peakRssMb: number; growthMb: number }> {
  await contender.reset();
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 50);
  const started = performance.now();
  try {
    await contender.run();
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  peak = Math.max(peak, process.memoryUsage.rss());
  await contender.check();
  return { seconds, peakRssMb: peak / 2 ** 20, growthMb: (peak - before) / 2 ** 20 };
}

/** Runs `rounds` rounds of both contenders, the order alternating; every measurement by name. */
export async function rounds(
  contenders: readonly Contender[],
  count: number,
): Promise<Map<string, Measured>> {
  const results = new Map(
    contenders.map((c) => [c.name, { seconds: [], peakRssMb: [], growthMb: [] } as Measured]),
  );
  for (let round = 0; round < count; round++) {
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    for (const contender of order) {
      const { seconds, peakRssMb, growthMb } = await measure(contender);
      const measured = results.get(contender.name)!;
      measured.seconds.push(seconds);
      measured.peakRssMb.push(peakRssMb);
      measured.growthMb.push(growthMb);
      process.stderr.write(
        `round ${round + 1}: ${contender.name} ${seconds.toFixed(2)} s, peak RSS ${peakRssMb.toFixed(0)} MB (+${growthMb.toFixed(0)})\n`,
      );
    }
  }
  return results;
}

/** `rsg import` in a process of its own: its wall time (Node's start included) and its peak RSS. */
export interface CommandRun {
  seconds: number;
  peakRssMb: number;
}

/** The peak RSS of a live process (VmHWM), in bytes; 0 once it is gone. */
async function peakRssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1];
  return kb === undefined ? 0 : Number(kb) * 1024;
}

/**
 * `rsg import <args>` as an operator runs it (bin/rsg.js with its first line's flags, a process of its own) into `urls`' databases,
 * after `reset` and followed by `check`: its wall time, and its peak RSS read from /proc every 20 ms
 * while it runs (Linux; the high-water mark, so the last reading is the peak up to then).
 */
export async function importAsCommand(
  args: readonly string[],
  urls: DatabaseUrls,
  contender: Pick<Contender, 'reset' | 'check'>,
): Promise<CommandRun> {
  await contender.reset();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [...RSG_NODE_FLAGS, path.join(root, 'bin/rsg.js'), 'import', ...args],
    {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: urls.gateway,
        SANDBOX_DATABASE_URL: urls.sandbox,
        PRODUCTION_DATABASE_URL: urls.production,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (piece: Buffer) => {
    stderr = (stderr + piece.toString()).slice(-4_000);
  });
  let peak = 0;
  const sampler = setInterval(async () => {
    if (child.pid !== undefined) peak = Math.max(peak, await peakRssOf(child.pid));
  }, 20);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`rsg import ${args.join(' ')} ended ${code}:\n${stderr}`);
  if (peak === 0) throw new Error("the import's peak RSS could not be read from /proc");
  await contender.check();
  process.stderr.write(
    `rsg import in a process of its own: ${seconds.toFixed(2)} s, peak RSS ${(peak / 2 ** 20).toFixed(0)} MB\n`,
  );
  return { seconds, peakRssMb: peak / 2 ** 20 };
}

/** The result table: medians, records a second, the import's rate as a share of COPY's, met or not. */
export function report(
  title: string,
  records: number,
  results: Map<string, Measured>,
  /** The time goal for the register's full size (that many records), when it has one. */
  goal: { seconds: number; records: number } | undefined,
  command: CommandRun,
): string {
  const [importName, copyName] = [...results.keys()] as [string, string];
  const imported = results.get(importName)!;
  const copied = results.get(copyName)!;
  const rate = (name: string) => records / median(results.get(name)!.seconds);
  const ratio = rate(importName) / rate(copyName);
  const perRound = imported.seconds.map((s, i) => `${((100 * copied.seconds[i]!) / s).toFixed(0)}%`);
  const rows = [...results.entries()].map(
    ([name, m]) =>
      `| ${name} | ${median(m.seconds).toFixed(2)} | ${Math.round(records / median(m.seconds)).toLocaleString('en-NZ')} | ${Math.max(...m.peakRssMb).toFixed(0)} | ${Math.max(...m.growthMb).toFixed(0)} |`,
  );
  rows.push(
    `| \`rsg import\` in a process of its own (once; Node's start included) | ${command.seconds.toFixed(2)} | ${Math.round(records / command.seconds).toLocaleString('en-NZ')} | **${command.peakRssMb.toFixed(0)}** | |`,
  );
  const seconds = median(imported.seconds).toFixed(1);
  const peak = command.peakRssMb;
  const met = (ok: boolean) => (ok ? 'met' : '**not met**');
  const time =
    goal === undefined
      ? `${seconds} s for this file.`
      : records >= goal.records
        ? `${seconds} s for the full size (goal ≤ ${goal.seconds} s): ${met(median(imported.seconds) <= goal.seconds)}; COPY of the same rows ${median(copied.seconds).toFixed(1)} s.`
        : `${seconds} s for this file (goal ≤ ${goal.seconds} s at the full size, ${goal.records.toLocaleString('en-NZ')} records).`;
  return `### ${title}

${records.toLocaleString('en-NZ')} records, ${imported.seconds.length} rounds (the order alternating), medians; ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} at the end (the machine is shared).

| contender | seconds | records/s | peak RSS (MB) | RSS growth (MB) |
|---|---|---|---|---|
${rows.join('\n')}

Import at ${(ratio * 100).toFixed(0)}% of COPY's rate (goal ≥ 50%): ${met(ratio >= 0.5)}; per round ${perRound.join(', ')}. ${time} Peak RSS of \`rsg import\` in a process of its own ${peak.toFixed(0)} MB (goal ≤ 300 MB): ${met(peak <= 300)}; the first two rows' RSS is the benchmark's process, which also holds its own modules and the generated data's writer.
`;
}

/**
 * The COPY baseline's load of one table from a COPY text file, followed by the statistics care the import
 * takes (`analyzeGrown`): without it, the foreign keys' checks of the next table were planned for an
 * empty table, and a load of the full business number register scanned it for every row.
 */
export async function copyTableFrom(client: pg.PoolClient, table: string, file: string): Promise<void> {
  await pipeline(createReadStream(file), client.query(copyFrom(`COPY ${table} FROM STDIN`)));
  await analyzeGrown(client);
}

/**
 * The COPY contender of an import benchmark made from the import's own rows: after a first, untimed
 * import (`importOnce`), every table named `<prefix>…` that was empty before and has rows after it is
 * copied out (`COPY … TO`) into `folder`, and the contender loads those files in one transaction. Tables
 * in `derived` are left out of the copy (their rows are made by triggers on the others) but emptied and
 * checked too. `reset` empties them all (and the import checkpoints), `check` counts their rows.
 */
export async function copyOfImport(
  database: Database,
  folder: string,
  prefix: string,
  importOnce: () => Promise<void>,
  derived: readonly string[] = [],
): Promise<Pick<Contender, 'reset' | 'check'> & { copy(): Promise<void> }> {
  const exact = async (table: string) =>
    (await database.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;
  const { rows: named } = await database.pool.query<{ table: string }>(
    `SELECT relname AS table FROM pg_stat_user_tables WHERE relname LIKE $1 ORDER BY relid`,
    [`${prefix.replaceAll('_', '\\_')}%`],
  );
  const before = new Map<string, number>();
  for (const { table } of named) before.set(table, await exact(table));
  await importOnce();
  const tables: { table: string; rows: number; file: string }[] = [];
  for (const [table, rows] of before) {
    const after = await exact(table);
    if (rows === 0 && after > 0)
      tables.push({ table, rows: after, file: path.join(folder, `${table}.copy`) });
  }
  const copied = tables.filter((t) => !derived.includes(t.table));
  const client = await database.pool.connect();
  try {
    for (const t of copied)
      await pipeline(client.query(copyTo(`COPY ${t.table} TO STDOUT`)), createWriteStream(t.file));
  } finally {
    client.release();
  }
  process.stderr.write(`tables: ${tables.map((t) => `${t.table} ${t.rows}`).join(', ')}\n`);
  return {
    async reset() {
      await database.pool.query(
        `TRUNCATE ${copied.map((t) => t.table).join(', ')}, transfer_checkpoints RESTART IDENTITY CASCADE`,
      );
      // A derived table's own trigger may empty it with the others; a statement of its own either way.
      for (const t of tables) if (derived.includes(t.table)) await database.pool.query(`TRUNCATE ${t.table}`);
    },
    async check() {
      for (const t of tables) {
        const rows = await exact(t.table);
        if (rows !== t.rows) throw new Error(`${t.table}: expected ${t.rows} rows, found ${rows}`);
      }
    },
    async copy() {
      const copier = await database.pool.connect();
      try {
        await copier.query('BEGIN');
        for (const t of copied) await copyTableFrom(copier, t.table, t.file);
        await copier.query('COMMIT');
      } finally {
        copier.release();
      }
    },
  };
}

/**
 * Writes `groups` groups of records to `file`, one a line, kind by kind in the order of `kinds` (the
 * order an export writes them: a record after those it names); `group(i)` is the i-th group's records.
 */
export async function writeGroups(
  file: string,
  kinds: readonly string[],
  groups: number,
  group: (i: number) => { kind: string; line: string }[],
): Promise<string> {
  const out = createWriteStream(file);
  let records = 0;
  for (const kind of kinds) {
    for (let i = 0; i < groups; i++) {
      for (const line of group(i)) {
        if (line.kind !== kind) continue;
        records++;
        if (!out.write(line.line)) await once(out, 'drain');
      }
    }
  }
  await new Promise((resolve) => out.end(resolve));
  process.stderr.write(`${records.toLocaleString('en-NZ')} records\n`);
  return file;
}
