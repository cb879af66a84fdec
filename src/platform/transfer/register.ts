/**
 * What a register gives the transfer framework: how one line's record is checked, how a batch of
 * checked records is written (in the framework's transaction), and how every record is exported. The
 * framework (import.ts, export.ts, command.ts) does the rest: files, gzip, errors, transactions, batches,
 * checkpoints, progress and the command line.
 */
import type pg from 'pg';
import type { Database } from '../db/pool.ts';
import type { RecordProblem } from './check.ts';
import type { NdjsonOutput } from './ndjson.ts';

/** An option a register's import or export adds (`--include-secrets`, `--pin-report FILE`). */
export interface TransferOption {
  type: 'string' | 'boolean';
  /** Its part of the usage line, e.g. `[--pin-report FILE]`. */
  usage: string;
}

export type OptionValues = Readonly<Record<string, string | boolean | undefined>>;

/** The environment an import or export works on (a register keeps files of its own per environment). */
export type TransferEnvironment = 'sandbox' | 'production';

/** What one import of a register is given. */
export interface ImportSession {
  database: Database;
  environment: TransferEnvironment;
  /** The import's options, the register's own among them. */
  options: OptionValues;
  /** Watchlists' change events for what the import changes (`--emit-changes`; off by default). */
  emitChanges: boolean;
  /** The files imported, in order (a register's report file goes beside the first). */
  files: readonly string[];
  /** A line for the operator (stderr), e.g. where a report was written. */
  say(text: string): void;
}

export interface WriteCounts {
  inserted: number;
  updated: number;
  unchanged: number;
}

/** One import's work for a register: built once per import by `TransferRegister.importer`. */
export interface RecordImporter<R> {
  /**
   * A line's value from its text, for a format that is not NDJSON (a register's CSV file); `SKIP_LINE`
   * for a line that holds no record (a header). Throws `RuleError` for a line it cannot read. Absent:
   * `JSON.parse`.
   */
  parseLine?(text: string, line: number): unknown;
  /**
   * The records of a file that is not one record a line (a register's XML documents), each with the line
   * it begins on; undefined for a file of lines (`parseLine`, else JSON). `onBytes` is told the file's
   * bytes read so far, for progress. A record it cannot read is a problem naming its line.
   */
  readFile?(file: string, onBytes: (bytes: number) => void): AsyncIterable<FileRecord> | undefined;
  /**
   * The record a line holds, checked with the API's rules: the record, or the rules it breaks (never
   * throws for a bad record). `line` is the line's parsed JSON value.
   */
  check(value: unknown): Checked<R>;
  /** Writes checked records on `client`, inside the framework's transaction; idempotent by identifier. */
  write(client: pg.PoolClient, records: readonly R[]): Promise<WriteCounts>;
  /** Called just before each commit (a report file is made durable before what it reports commits). */
  beforeCommit?(): Promise<void>;
  /** Called once the last commit is made (or the import failed); lines for the operator. */
  finish?(committed: boolean): Promise<string[]>;
}

/** What `rsg export` is given. */
export interface ExportSession {
  database: Database;
  environment: TransferEnvironment;
  options: OptionValues;
  output: NdjsonOutput;
  /** The file written (`--output`); absent: standard output. */
  file: string | undefined;
}

export interface TransferRegister {
  /** The word after `rsg import` / `rsg export`: the register's service id. */
  name: string;
  /** What a record is, for the usage line. */
  records: string;
  importOptions?: Readonly<Record<string, TransferOption>>;
  exportOptions?: Readonly<Record<string, TransferOption>>;
  importer(session: ImportSession): RecordImporter<unknown>;
  /**
   * Why the files cannot be what the options say they are, before anything is read (a CSV given without
   * the option that reads it): one line for the operator, or undefined.
   */
  refuseFiles?(files: readonly string[], options: OptionValues): string | undefined;
  /** Writes every record, in identifier order (the same register, the same bytes); returns the count. */
  exportAll(session: ExportSession): Promise<number>;
}

/** One record of a file `readFile` reads: its value and the line it begins on, or what is wrong there. */
export type FileRecord =
  | { line: number; value: unknown; size: number }
  | { line: number; field: string; rule: string };

/** What `parseLine` gives for a line that holds no record. */
export const SKIP_LINE: unique symbol = Symbol('skip line');

/** A checked line: its record, or the rules it breaks (at least one). */
export type Checked<R> = { ok: true; record: R } | { ok: false; problems: RecordProblem[] };

export const accepted = <R>(record: R): Checked<R> => ({ ok: true, record });
export const refused = <R>(problems: RecordProblem[]): Checked<R> => ({ ok: false, problems });
