import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { type Parser, parse } from 'csv-parse';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import type { Geography } from '../domain/areas.ts';
import {
  type ImportColumn,
  isBlankRecord,
  RECORD_SPANS_LINES,
  readHeader,
  validateRow,
} from '../domain/bond-rows.ts';
import { CSV_DIALECT, csvFault, lineBreaksIn } from '../domain/csv.ts';
import { copyField } from '../store/copy.ts';
import { marketRentGeography } from '../store/geography.ts';
import { importStagedBonds } from '../store/import.ts';

/**
 * `rsg import bonds FILE.csv`: every row is validated (all problems of a line reported, with its line
 * number), and the file goes in whole or not at all — one transaction with the monthly cells. A bond id
 * already present is replaced by the file's version (a later extract closes bonds); a row identical to
 * the stored bond changes nothing, so importing the same file twice is harmless.
 */
export interface LineError {
  line: number;
  message: string;
}

export class ImportError extends Error {
  constructor(
    readonly errors: LineError[],
    /** Problems found in all, of which `errors` holds the first ones. */
    readonly total: number,
  ) {
    super(`${total} problem(s) in the file; nothing was imported`);
    this.name = 'ImportError';
  }
}

export interface ImportResult {
  rows: number;
  inserted: number;
  updated: number;
  unchanged: number;
  /** How the monthly cells were brought up to date. */
  aggregates: 'incremental' | 'rebuilt';
}

export interface ImportOptions {
  geography?: Geography;
  /** Called as the file is read: bytes read so far, file size, rows so far. */
  progress?: (bytes: number, size: number, rows: number) => void;
  /** At most this many problems are kept for the report (all are counted). */
  maxErrors?: number;
}

/** What an import names: the CSV file of bonds. */
export interface ImportInput {
  file: string;
}

/**
 * `rsg import bonds`: the file's bonds into the environment's register, with the monthly cells, in one
 * transaction (store/import.ts); any problem of the file is an ImportError and nothing is written.
 */
export async function importBonds(
  context: Pick<ServiceContext, 'database'>,
  input: ImportInput,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const { file } = input;
  const geography = options.geography ?? marketRentGeography();
  const maxErrors = options.maxErrors ?? 50;
  const size = (await stat(file)).size;
  const errors: LineError[] = [];
  let problemCount = 0;
  const problem = (line: number, message: string) => {
    problemCount++;
    if (errors.length < maxErrors) errors.push({ line, message });
  };
  let rows = 0;
  async function* staged(): AsyncGenerator<string> {
    rows = yield* readBondFile(file, geography, {
      problem,
      progress: (bytes, sofar) => options.progress?.(bytes, size, sofar),
    });
    options.progress?.(size, size, rows);
  }

  const merged = await importStagedBonds(context.database.pool, staged(), maxErrors, (duplicates) => {
    for (const d of duplicates) {
      for (const line of d.lines.slice(1)) {
        problem(line, `bond_id "${d.bondId}" is also on line ${d.lines[0]}; a bond may appear once`);
      }
    }
    if (problemCount > 0) {
      errors.sort((a, b) => a.line - b.line);
      throw new ImportError(errors, problemCount);
    }
  });
  return { rows, ...merged, unchanged: rows - merged.inserted - merged.updated };
}

/** What reading a bond file reports as it goes. */
export interface BondFileListener {
  /** A problem of a line: every one of every line is reported (the import then writes nothing). */
  problem(line: number, message: string): void;
  /** Bytes read and rows so far, every few thousand rows. */
  progress?(bytes: number, rows: number): void;
}

/**
 * The rows of a bond file, checked (domain/bond-rows.ts), as COPY text lines for the import's staging
 * table (the line number, then the bond's fields), a few thousand at a time; returns the number of data
 * rows. The file is read as it streams, through csv-parse. A row with problems is reported to
 * `listener.problem` with its line and left out; a refused header or a fault of the CSV ends the reading.
 */
export async function* readBondFile(
  file: string,
  geography: Geography,
  listener: BondFileListener,
): AsyncGenerator<string, number> {
  let rows = 0;
  let problems = 0;
  const problem = (line: number, message: string) => {
    problems++;
    listener.problem(line, message);
  };
  let columns: Map<ImportColumn, number> | undefined;
  let chunk: string[] = [];
  /** The line the next record starts on (blank lines are records too, so every line is counted). */
  let nextLine = 1;
  /** A header that is refused ends the reading. */
  let refused = false;
  const take = (line: number, fields: string[], spansLines: boolean) => {
    if (isBlankRecord(fields)) return;
    if (spansLines) return problem(line, RECORD_SPANS_LINES);
    if (!columns) {
      try {
        columns = readHeader(fields);
      } catch (error) {
        problem(line, `header: ${(error as Error).message}`);
        refused = true;
      }
      return;
    }
    rows++;
    const result = validateRow(fields, columns, geography.sa2Index);
    if (Array.isArray(result)) {
      for (const message of result) problem(line, message);
      return;
    }
    chunk.push(
      [
        line,
        result.bondId,
        result.tenancyStart,
        result.lodged,
        result.closed,
        result.sa2Code,
        result.dwellingType,
        result.bedrooms,
        result.weeklyRent,
        result.bondAmount,
      ]
        .map(copyField)
        .join('\t'),
    );
  };
  // Each record is taken as csv-parse finds it (on_record, which then drops it), not read from the
  // parser's output: a fault of the CSV ends that output at once, and the problems of the records
  // before it would be lost with the records it still held.
  const parser = parse({
    ...CSV_DIALECT,
    on_record: (fields: string[]) => {
      const line = nextLine;
      const breaks = lineBreaksIn(fields);
      nextLine += 1 + breaks;
      if (!refused) take(line, fields, breaks > 0);
      return null;
    },
  });
  let fault: unknown;
  parser.on('error', (error) => {
    fault ??= error;
  });
  for await (const bytes of createReadStream(file)) {
    if (fault !== undefined || refused) break;
    // Parsed at once: every whole record of these bytes goes through `take` before write returns.
    parser.write(bytes);
    if (chunk.length >= 2000) {
      listener.progress?.(parser.info.bytes, rows);
      yield `${chunk.join('\n')}\n`;
      chunk = [];
    }
  }
  if (refused) return rows;
  // The last record, when the file does not end with a line break.
  if (fault === undefined) await finish(parser).catch((error: unknown) => (fault ??= error));
  if (fault !== undefined) {
    // A fault of the file's CSV (a quote not closed, text after a closing quote) is named on the first
    // line of the record it is in; csv-parse reads no further.
    const message = csvFault(fault);
    if (message === undefined) throw fault;
    problem(nextLine, message);
    return rows;
  }
  if (!columns && problems === 0) problem(1, 'the file is empty: it needs a header row');
  if (chunk.length > 0) yield `${chunk.join('\n')}\n`;
  return rows;
}

/** Ends a parser's input; resolves once it has taken its last record, rejects with its fault. */
function finish(parser: Parser): Promise<void> {
  return new Promise((resolve, reject) => {
    parser.once('finish', resolve);
    parser.once('error', reject);
    parser.end();
  });
}
