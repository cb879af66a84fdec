import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type pg from 'pg';
import type { Geography } from '../domain/areas.ts';
import { marketRentGeography } from '../geography.ts';
import {
  applyChanges,
  createChangesTable,
  INCREMENTAL_LIMIT,
  rebuildAggregates,
} from '../store/aggregates.ts';
import { copyField, copyFrom } from '../store/copy.ts';
import { type ImportColumn, readHeader, splitCsvLine, validateRow } from './rows.ts';

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

const STAGE_COLUMNS =
  'line, bond_id, tenancy_start, lodged, closed, sa2_code, dwelling_type, bedrooms, weekly_rent, bond_amount';
const BOND_FIELDS =
  'tenancy_start, lodged, closed, sa2_code, dwelling_type, bedrooms, weekly_rent, bond_amount';

export async function importBonds(
  pool: pg.Pool,
  file: string,
  options: ImportOptions = {},
): Promise<ImportResult> {
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

  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`
      CREATE TEMPORARY TABLE market_rent_import (
        line integer NOT NULL, bond_id text NOT NULL, tenancy_start date NOT NULL, lodged date NOT NULL,
        closed date, sa2_code integer NOT NULL, dwelling_type text NOT NULL, bedrooms smallint,
        weekly_rent integer NOT NULL, bond_amount integer NOT NULL) ON COMMIT DROP`);
    await copyFrom(client, `COPY market_rent_import (${STAGE_COLUMNS}) FROM STDIN`, stagedRows());
    const duplicates = await client.query<{ bond_id: string; lines: number[] }>(`
      SELECT bond_id, array_agg(line ORDER BY line) AS lines FROM market_rent_import
      GROUP BY bond_id HAVING count(*) > 1 ORDER BY min(line) LIMIT ${maxErrors}`);
    for (const d of duplicates.rows) {
      for (const line of d.lines.slice(1)) {
        problem(line, `bond_id "${d.bond_id}" is also on line ${d.lines[0]}; a bond may appear once`);
      }
    }
    if (problemCount > 0) {
      errors.sort((a, b) => a.line - b.line);
      throw new ImportError(errors, problemCount);
    }
    const result = await merge(client, rows);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** Moves the staged rows into the bonds and brings the monthly cells up to date. */
async function merge(client: pg.PoolClient, rows: number): Promise<ImportResult> {
  await client.query('CREATE INDEX ON market_rent_import (bond_id)');
  await client.query('ANALYZE market_rent_import');
  // Rows that differ from the stored bond of the same id, or are new.
  await client.query(`
    CREATE TEMPORARY TABLE market_rent_import_changed ON COMMIT DROP AS
    SELECT i.*, (b.bond_id IS NOT NULL) AS existing FROM market_rent_import i
    LEFT JOIN market_rent_bonds b ON b.bond_id = i.bond_id
    WHERE b.bond_id IS NULL OR (b.tenancy_start, b.lodged, b.closed, b.sa2_code, b.dwelling_type,
      b.bedrooms, b.weekly_rent, b.bond_amount) IS DISTINCT FROM (i.tenancy_start, i.lodged, i.closed,
      i.sa2_code, i.dwelling_type, i.bedrooms, i.weekly_rent, i.bond_amount)`);
  const counted = await client.query<{ inserted: number; updated: number }>(`
    SELECT count(*) FILTER (WHERE NOT existing)::integer AS inserted,
      count(*) FILTER (WHERE existing)::integer AS updated FROM market_rent_import_changed`);
  const { inserted, updated } = counted.rows[0] ?? { inserted: 0, updated: 0 };
  const unchanged = rows - inserted - updated;
  if (inserted + updated === 0) return { rows, inserted, updated, unchanged, aggregates: 'incremental' };

  const incremental = inserted + 2 * updated <= INCREMENTAL_LIMIT;
  if (incremental) {
    await createChangesTable(client);
    await client.query(`
      INSERT INTO market_rent_changes (sign, ${BOND_FIELDS})
      SELECT -1, ${prefixed('b')} FROM market_rent_bonds b
      JOIN market_rent_import_changed c ON c.bond_id = b.bond_id
      UNION ALL
      SELECT 1, ${BOND_FIELDS} FROM market_rent_import_changed`);
  }
  await client.query(`
    INSERT INTO market_rent_bonds (bond_id, ${BOND_FIELDS})
    SELECT bond_id, ${BOND_FIELDS} FROM market_rent_import_changed
    ON CONFLICT (bond_id) DO UPDATE SET ${BOND_FIELDS.split(', ')
      .map((f) => `${f} = excluded.${f}`)
      .join(', ')}`);
  if (incremental) await applyChanges(client);
  else await rebuildAggregates(client);
  return { rows, inserted, updated, unchanged, aggregates: incremental ? 'incremental' : 'rebuilt' };
}

const prefixed = (alias: string) =>
  BOND_FIELDS.split(', ')
    .map((f) => `${alias}.${f}`)
    .join(', ');
