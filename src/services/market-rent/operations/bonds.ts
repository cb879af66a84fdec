import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import type { Geography } from '../domain/areas.ts';
import { type ImportColumn, readHeader, splitCsvLine, validateRow } from '../domain/bond-rows.ts';
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
  let bytes = 0;

  async function* stagedRows(): AsyncGenerator<string> {
    const input = createReadStream(file, { encoding: 'utf8' });
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    let columns: Map<ImportColumn, number> | undefined;
    let lineNumber = 0;
    let chunk: string[] = [];
    for await (const raw of lines) {
      lineNumber++;
      bytes += Buffer.byteLength(raw) + 1;
      const line = lineNumber === 1 ? raw.replace(/^\uFEFF/, '') : raw;
      if (line.trim() === '') continue;
      let fields: string[];
      try {
        fields = splitCsvLine(line);
      } catch (error) {
        problem(lineNumber, (error as Error).message);
        continue;
      }
      if (!columns) {
        try {
          columns = readHeader(fields);
        } catch (error) {
          problem(lineNumber, `header: ${(error as Error).message}`);
          return;
        }
        continue;
      }
      rows++;
      const result = validateRow(fields, columns, geography.sa2Index);
      if (Array.isArray(result)) {
        for (const message of result) problem(lineNumber, message);
        continue;
      }
      chunk.push(
        [
          lineNumber,
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
      if (chunk.length >= 2000) {
        options.progress?.(bytes, size, rows);
        yield `${chunk.join('\n')}\n`;
        chunk = [];
      }
    }
    if (!columns && problemCount === 0) problem(1, 'the file is empty: it needs a header row');
    if (chunk.length > 0) yield `${chunk.join('\n')}\n`;
    options.progress?.(size, size, rows);
  }

  const merged = await importStagedBonds(context.database.pool, stagedRows(), maxErrors, (duplicates) => {
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
