import { type Options, parse } from 'csv-parse/sync';
import { CSV_DIALECT, csvFault, lineBreaksIn } from './csv.ts';

/** One statistical area 2 (2019) with the higher geographies it belongs to, codes as in the source file. */
export interface Sa2Row {
  sa2Code: string;
  sa2Name: string;
  taCode: string;
  taName: string;
  regcCode: string;
  regcName: string;
}

export interface NamedRow {
  code: string;
  name: string;
}

/** The three tables of `reference-data/geo`, parsed but not yet checked against each other. */
export interface GeoTables {
  sa2: Sa2Row[];
  territorialAuthorities: NamedRow[];
  regions: NamedRow[];
}

export const GEO_FILES = { sa2: 'sa2_2019.csv', ta: 'ta2019.csv', regc: 'regc2019.csv' } as const;

export function parseGeoTables(texts: { sa2: string; ta: string; regc: string }): GeoTables {
  const sa2 = records(texts.sa2, GEO_FILES.sa2, [
    'sa2_code',
    'sa2_name',
    'ta_code',
    'ta_name',
    'regc_code',
    'regc_name',
  ]);
  const ta = records(texts.ta, GEO_FILES.ta, ['ta_code', 'ta_name']);
  const regc = records(texts.regc, GEO_FILES.regc, ['regc_code', 'regc_name']);
  return {
    sa2: sa2.map((r) => ({
      sa2Code: r['sa2_code'] as string,
      sa2Name: r['sa2_name'] as string,
      taCode: r['ta_code'] as string,
      taName: r['ta_name'] as string,
      regcCode: r['regc_code'] as string,
      regcName: r['regc_name'] as string,
    })),
    territorialAuthorities: ta.map((r) => ({ code: r['ta_code'] as string, name: r['ta_name'] as string })),
    regions: regc.map((r) => ({ code: r['regc_code'] as string, name: r['regc_name'] as string })),
  };
}

/** Rows of a CSV file as objects keyed by header, after checking the columns we need are there. */
function records(text: string, file: string, required: readonly string[]): Record<string, string>[] {
  const [header, ...rows] = csvRecords(text, file);
  if (!header) throw new Error(`${file}: empty file`);
  const columns = header.fields;
  const missing = required.filter((column) => !columns.includes(column));
  if (missing.length > 0) throw new Error(`${file}: missing column(s) ${missing.join(', ')}`);
  return rows.map(({ line, fields }) => {
    if (fields.length !== columns.length) {
      throw new Error(`${file} line ${line}: ${fields.length} fields, header has ${columns.length}`);
    }
    const record: Record<string, string> = {};
    columns.forEach((column, c) => {
      record[column] = (fields[c] as string).trim();
    });
    for (const column of required) {
      if (record[column] === '') {
        throw new Error(`${file} line ${line}: empty ${column}`);
      }
    }
    return record;
  });
}

/**
 * The records of a CSV text (csv-parse, in the service's dialect: domain/csv.ts), each with the line it
 * starts on; blank lines are skipped. The shipped files use no quotes, but a re-export from a
 * spreadsheet would. A fault of the text throws, naming the line of the record it is in.
 */
function csvRecords(text: string, file = 'CSV'): Numbered[] {
  let next = 1;
  const options: Options<Numbered, string[]> = {
    ...CSV_DIALECT,
    on_record: (fields) => {
      const line = next;
      next += 1 + lineBreaksIn(fields);
      return fields.length === 1 && fields[0] === '' ? null : { line, fields };
    },
  };
  try {
    // The records are what on_record makes of them (csv-parse's types have them as lists of fields).
    return parse(text, options as unknown as Options) as unknown as Numbered[];
  } catch (error) {
    throw new Error(`${file} line ${next}: ${csvFault(error) ?? String(error)}`);
  }
}

/** A record and the line it starts on. */
interface Numbered {
  line: number;
  fields: string[];
}

/**
 * RFC 4180 CSV: quoted fields may hold commas, quotes (doubled) and line breaks; CRLF, LF or CR; a
 * leading byte-order mark is dropped; blank lines are skipped.
 */
export function parseCsv(text: string): string[][] {
  return csvRecords(text).map((record) => record.fields);
}
