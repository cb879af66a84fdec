/**
 * An import of one register from NDJSON files (gzip or not), streamed: every line is checked with the
 * register's API rules; a file with errors lists them all (up to a bound) and nothing is written.
 *
 * - By default the whole import is one transaction: the records are written as they are read, and the
 *   first bad record stops the writing (the rest are only checked, so every error is listed) and rolls
 *   everything back at the end.
 * - With `batch`, every file is checked first (a pass of its own, writing nothing), then the records are
 *   committed `batch` at a time, each commit with its checkpoint (`transfer_checkpoints`) in the same
 *   transaction: what is committed is visible at once, and `resume` continues after the last commit.
 *
 * Records are handed to the register `CHUNK` at a time, so memory stays flat whatever the files' size.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type pg from 'pg';
import type { Database } from '../db/pool.ts';
import { RuleError } from '../errors.ts';
import {
  analyzeGrown,
  beginImport,
  type Checkpoint,
  commitImport,
  deleteCheckpoint,
  readCheckpoint,
  rollbackImport,
  writeCheckpoint,
} from '../store/transfer-checkpoints.ts';
import type { RecordProblem } from './check.ts';
import { fileLines } from './ndjson.ts';
import { type Progress, silentProgress } from './progress.ts';
import {
  type OptionValues,
  type RecordImporter,
  SKIP_LINE,
  type TransferEnvironment,
  type TransferRegister,
  type WriteCounts,
} from './register.ts';

/** Records handed to the register's `write` at once: at most this many … */
const CHUNK = 500;
/** … and lines of at most about this much text (a register's record may be large: a fund's holdings). */
const CHUNK_TEXT = 8 * 1024 * 1024;
/**
 * While a chunk is written, the next is read and checked; after about this much of its text the reading
 * lets the event loop take a turn, so that the write's answers from the database are seen within a few
 * records rather than after the whole read-ahead of a file (256 KiB), and the database is not left
 * waiting between the write's statements. A turn costs microseconds; it made the secured interests
 * register's import about a seventh quicker.
 */
const TURN_TEXT = 8 * 1024;
/** Errors listed at most (the rest are counted). */
export const DEFAULT_MAX_ERRORS = 100;

export interface ImportOptions {
  files: readonly string[];
  /** The environment imported into (production when not given). */
  environment?: TransferEnvironment;
  /** Commit every `batch` records with a checkpoint; absent: all or nothing in one transaction. */
  batch?: number;
  /** Continue after the checkpoint of an earlier run of the same import (with `batch`). */
  resume?: boolean;
  emitChanges?: boolean;
  maxErrors?: number;
  options?: OptionValues;
  progress?: Progress;
  say?: (text: string) => void;
}

export interface ImportResult extends WriteCounts {
  records: number;
  /** Records skipped because an earlier run committed them (`resume`). */
  resumedAfter: number;
  /** The register's lines for the operator (a report file written). */
  notes: string[];
}

/** One broken rule of one line: `FILE:LINE field: rule`. */
export interface LineProblem extends RecordProblem {
  file: string;
  line: number;
}

export const describeProblem = (p: LineProblem): string => `${p.file}:${p.line} ${p.field}: ${p.rule}`;

/** The import was refused: its problems (the first `maxErrors`) and how many there were. */
export class ImportRefused extends Error {
  override readonly name = 'ImportRefused';
  constructor(
    readonly problems: readonly LineProblem[],
    readonly total: number,
  ) {
    super(`${total} error${total === 1 ? '' : 's'}: nothing was imported`);
  }
}

/** The files' identity for checkpoints: resolved paths, sizes and modification times. */
export function filesFingerprint(files: readonly string[]): string {
  const hash = createHash('sha256');
  for (const file of files) {
    const stat = statSync(file);
    hash.update(`${resolve(file)}\u0000${stat.size}\u0000${stat.mtimeMs}\u0000`);
  }
  return hash.digest('hex');
}

interface Line {
  fileIndex: number;
  file: string;
  line: number;
  value: unknown;
  /** The line's length in characters. */
  size: number;
}

/** Every non-blank line of the files, parsed (a line that is not JSON: `value` is a problem). */
async function* records(
  files: readonly string[],
  onBytes: (bytes: number) => void,
  from: Checkpoint | undefined,
  importer: RecordImporter<unknown>,
): AsyncGenerator<Line | LineProblem> {
  const parse = importer.parseLine?.bind(importer);
  let before = 0;
  for (const [fileIndex, file] of files.entries()) {
    if (from && fileIndex < from.fileIndex) {
      before += statSync(file).size;
      continue;
    }
    const read = importer.readFile?.(file, (bytes) => onBytes(before + bytes));
    if (read) {
      for await (const item of read) {
        if (from && fileIndex === from.fileIndex && item.line <= from.line) continue;
        yield 'rule' in item ? { file, ...item } : { fileIndex, file, ...item };
      }
      before += statSync(file).size;
      continue;
    }
    for await (const { line, text } of fileLines(file, (bytes) => onBytes(before + bytes))) {
      if (from && fileIndex === from.fileIndex && line <= from.line) continue;
      if (text.trim() === '') continue;
      if (!parse) {
        try {
          yield { fileIndex, file, line, value: JSON.parse(text), size: text.length };
        } catch {
          yield { file, line, field: '(line)', rule: 'must be one JSON value' };
        }
        continue;
      }
      try {
        const value = parse(text, line);
        if (value !== SKIP_LINE) yield { fileIndex, file, line, value, size: text.length };
      } catch (error) {
        if (!(error instanceof RuleError)) throw error;
        yield { file, line, field: error.field, rule: error.rule };
      }
    }
    before += statSync(file).size;
  }
}

const isProblem = (item: Line | LineProblem): item is LineProblem => 'rule' in item;

class Problems {
  readonly listed: LineProblem[] = [];
  total = 0;
  constructor(private readonly max: number) {}
  add(problem: LineProblem) {
    this.total++;
    if (this.listed.length < this.max) this.listed.push(problem);
  }
  /** The problems of one line (a record's check, or a line that is not JSON). */
  of(item: Line | LineProblem, importer: RecordImporter<unknown>): unknown | undefined {
    if (isProblem(item)) {
      this.add(item);
      return undefined;
    }
    const checked = importer.check(item.value);
    if (checked.ok) return checked.record;
    for (const p of checked.problems) this.add({ file: item.file, line: item.line, ...p });
    return undefined;
  }
  refuse(): never {
    throw new ImportRefused(this.listed, this.total);
  }
}

const addCounts = (into: WriteCounts, counts: WriteCounts) => {
  into.inserted += counts.inserted;
  into.updated += counts.updated;
  into.unchanged += counts.unchanged;
};

/**
 * The register's writes on the import's connection: one at a time, in order, while the framework reads
 * and checks the next chunk (the reading and checking are the process's work, the writing mostly the
 * database's: overlapped, neither waits on the other). A failed write is thrown by the next `add` or by
 * `done`; `settle` waits for a write still running before the transaction is rolled back.
 */
class Writes {
  private running: Promise<void> = Promise.resolve();
  private writing = false;
  private sinceTurn = 0;
  readonly counts: WriteCounts = { inserted: 0, updated: 0, unchanged: 0 };

  constructor(
    private readonly importer: RecordImporter<unknown>,
    private readonly client: pg.PoolClient,
  ) {}

  /** Starts writing `chunk` once the write before it is done. */
  async add(chunk: unknown[]): Promise<void> {
    await this.running;
    const write = this.importer.write(this.client, chunk).then(async (counts) => {
      addCounts(this.counts, counts);
      // The statistics of the tables a foreign key looks in follow them as they grow (analyzeGrown).
      await analyzeGrown(this.client);
    });
    // Seen by the next `add` or by `done`: not an unhandled rejection while the next chunk is read.
    write.catch(() => {});
    this.running = write;
    this.writing = true;
    void write
      .finally(() => {
        if (this.running === write) this.writing = false;
      })
      .catch(() => {});
  }

  /** After each line read: a turn of the event loop once `TURN_TEXT` has been read while a write runs. */
  async read(size: number): Promise<void> {
    this.sinceTurn += size;
    if (this.sinceTurn < TURN_TEXT) return;
    this.sinceTurn = 0;
    if (this.writing) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /** Every write made; throws what a write threw. */
  async done(): Promise<void> {
    await this.running;
  }

  /** Waits for the write running, whatever its end (before the connection is used for anything else). */
  async settle(): Promise<void> {
    await this.running.catch(() => {});
  }
}

/** Imports the files into the register; throws `ImportRefused` (nothing written) for bad records. */
export async function importFiles(
  database: Database,
  register: TransferRegister,
  options: ImportOptions,
): Promise<ImportResult> {
  const bar = options.progress ?? silentProgress;
  const total = options.files.reduce((sum, file) => sum + statSync(file).size, 0);
  const importer = register.importer({
    database,
    environment: options.environment ?? 'production',
    options: options.options ?? {},
    emitChanges: options.emitChanges ?? false,
    files: options.files,
    say: options.say ?? (() => {}),
  });
  const problems = new Problems(options.maxErrors ?? DEFAULT_MAX_ERRORS);
  let committed = false;
  try {
    const result = options.batch
      ? await batched(
          database,
          register.name,
          importer,
          problems,
          { ...options, batch: options.batch },
          total,
          bar,
        )
      : await allOrNothing(database, importer, problems, options.files, total, bar);
    committed = true;
    bar.finish();
    return { ...result, notes: (await importer.finish?.(true)) ?? [] };
  } finally {
    bar.finish();
    if (!committed) await importer.finish?.(false);
  }
}

type Counted = Omit<ImportResult, 'notes'>;

async function allOrNothing(
  database: Database,
  importer: RecordImporter<unknown>,
  problems: Problems,
  files: readonly string[],
  total: number,
  bar: Progress,
): Promise<Counted> {
  const client = await database.pool.connect();
  const writes = new Writes(importer, client);
  let count = 0;
  let bytes = 0;
  let broken: Error | undefined;
  try {
    await beginImport(client);
    let chunk: unknown[] = [];
    let text = 0;
    for await (const item of records(files, (b) => (bytes = b), undefined, importer)) {
      count++;
      const record = problems.of(item, importer);
      if (record !== undefined && problems.total === 0) {
        chunk.push(record);
        text += (item as Line).size;
      }
      if (chunk.length >= CHUNK || text >= CHUNK_TEXT) {
        await writes.add(chunk);
        chunk = [];
        text = 0;
      }
      await writes.read((item as Partial<Line>).size ?? 0);
      bar.update(bytes, total, count);
    }
    if (problems.total > 0) problems.refuse();
    if (chunk.length > 0) await writes.add(chunk);
    await writes.done();
    await importer.beforeCommit?.();
    await commitImport(client);
    return { ...writes.counts, records: count, resumedAfter: 0 };
  } catch (error) {
    await writes.settle();
    await rollbackImport(client).catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

async function checkAll(
  importer: RecordImporter<unknown>,
  problems: Problems,
  files: readonly string[],
  total: number,
  bar: Progress,
): Promise<void> {
  let count = 0;
  let bytes = 0;
  for await (const item of records(files, (b) => (bytes = b), undefined, importer)) {
    count++;
    problems.of(item, importer);
    bar.update(bytes, total, count);
  }
  if (problems.total > 0) problems.refuse();
}

async function batched(
  database: Database,
  name: string,
  importer: RecordImporter<unknown>,
  problems: Problems,
  options: ImportOptions & { batch: number },
  total: number,
  bar: Progress,
): Promise<Counted> {
  const say = options.say ?? (() => {});
  const fingerprint = filesFingerprint(options.files);
  const from = options.resume ? await readCheckpoint(database.pool, name, fingerprint) : undefined;
  if (options.resume && !from) say('no checkpoint for these files: importing from the start');
  if (from) say(`resuming after ${from.records.toLocaleString('en-NZ')} committed records`);
  bar.phase(`checking ${name}`);
  await checkAll(importer, problems, options.files, total, bar);
  bar.phase(`importing ${name}`);

  const client = await database.pool.connect();
  const writes = new Writes(importer, client);
  let count = from?.records ?? 0;
  let bytes = 0;
  let broken: Error | undefined;
  try {
    let chunk: unknown[] = [];
    let text = 0;
    let inBatch = 0;
    let last: Line | undefined;
    const commit = async () => {
      if (chunk.length > 0) await writes.add(chunk);
      chunk = [];
      text = 0;
      await writes.done();
      if (last)
        await writeCheckpoint(client, name, fingerprint, {
          fileIndex: last.fileIndex,
          line: last.line,
          records: count,
        });
      await importer.beforeCommit?.();
      await commitImport(client);
      if (last) bar.note(`committed ${count.toLocaleString('en-NZ')} records (${last.file}:${last.line})`);
      inBatch = 0;
      await beginImport(client);
    };
    await beginImport(client);
    for await (const item of records(options.files, (b) => (bytes = b), from, importer)) {
      if (isProblem(item)) continue;
      const checked = importer.check(item.value);
      if (!checked.ok) continue;
      chunk.push(checked.record);
      text += item.size;
      count++;
      inBatch++;
      last = item;
      if (chunk.length >= CHUNK || text >= CHUNK_TEXT) {
        await writes.add(chunk);
        chunk = [];
        text = 0;
      }
      if (inBatch >= options.batch) await commit();
      await writes.read(item.size);
      bar.update(bytes, total, count);
    }
    if (chunk.length > 0) await writes.add(chunk);
    await writes.done();
    await deleteCheckpoint(client, name, fingerprint);
    await importer.beforeCommit?.();
    await commitImport(client);
    return { ...writes.counts, records: count, resumedAfter: from?.records ?? 0 };
  } catch (error) {
    await writes.settle();
    await rollbackImport(client).catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

/** For registers' `write`: the client type the framework hands them. */
export type ImportClient = pg.PoolClient;
