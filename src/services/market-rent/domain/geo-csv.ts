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
  const [header, ...rows] = parseCsv(text);
  if (!header) throw new Error(`${file}: empty file`);
  const missing = required.filter((column) => !header.includes(column));
  if (missing.length > 0) throw new Error(`${file}: missing column(s) ${missing.join(', ')}`);
  return rows.map((cells, i) => {
    if (cells.length !== header.length) {
      throw new Error(`${file} line ${i + 2}: ${cells.length} fields, header has ${header.length}`);
    }
    const record: Record<string, string> = {};
    header.forEach((column, c) => {
      record[column] = (cells[c] as string).trim();
    });
    for (const column of required) {
      if (record[column] === '') {
        throw new Error(`${file} line ${i + 2}: empty ${column}`);
      }
    }
    return record;
  });
}

/**
 * RFC 4180 CSV: quoted fields may hold commas, quotes (doubled) and line breaks; CRLF or LF; a leading
 * byte-order mark is dropped; blank lines are skipped. The shipped files use no quotes, but a re-export
 * from a spreadsheet would.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const endRow = () => {
    row.push(field);
    if (row.length > 1 || row[0] !== '') rows.push(row);
    row = [];
    field = '';
  };
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (quoted) {
      if (ch !== '"') field += ch;
      else if (source[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n') endRow();
    else if (ch !== '\r') field += ch;
  }
  if (quoted) throw new Error('CSV: unterminated quoted field');
  if (field !== '' || row.length > 0) endRow();
  return rows;
}
