import { CsvError, type Options } from 'csv-parse/sync';

/**
 * The CSV the service reads (the geography's files, the bond files of `rsg import bonds`), as options of
 * csv-parse: RFC 4180 quoting (a quoted field may hold commas, doubled quotes and line breaks), UTF-8
 * with or without a byte-order mark, records ending in CRLF, LF or CR (mixed too, as a spreadsheet's
 * re-export leaves them), and records of any number of fields (the readers name a record that has too
 * few or too many, with its line). A quote inside an unquoted field, or text after a closing quote, is
 * refused.
 */
export const CSV_DIALECT = {
  bom: true,
  relax_column_count: true,
  record_delimiter: ['\r\n', '\n', '\r'],
} as const satisfies Options;

/** The line breaks inside a record's fields (CRLF counts once): the lines it spans, less one. */
export function lineBreaksIn(fields: readonly string[]): number {
  let breaks = 0;
  for (const field of fields) {
    if (!field.includes('\n') && !field.includes('\r')) continue;
    breaks += field.match(/\r\n|\r|\n/g)?.length ?? 0;
  }
  return breaks;
}

/**
 * What csv-parse refused, as a sentence (its own messages name csv-parse's line count, which counts a
 * CRLF inside a quoted field twice; the readers say which line they mean). Anything else is not a fault
 * of the file: undefined.
 */
export function csvFault(error: unknown): string | undefined {
  if (!(error instanceof CsvError)) return undefined;
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'unterminated quoted field: a field opened with a quote is not closed before the end of the file';
    case 'INVALID_OPENING_QUOTE':
      return 'a quote inside a field that does not start with one (quote the whole field and double the quote)';
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'text after the closing quote of a field (a quote inside a quoted field is written twice)';
    default:
      return error.message;
  }
}
