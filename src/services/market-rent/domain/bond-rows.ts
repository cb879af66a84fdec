import { withoutLeadingZeros } from './areas.ts';
import { canonicalDwelling, DWELLING_TYPES } from './factors.ts';

/**
 * The bond CSV accepted by `rsg import bonds`: one header row naming these columns (any order; extra
 * columns are refused so a misspelt one cannot be silently dropped), then one bond per row.
 */
export const IMPORT_COLUMNS = [
  'bond_id',
  'tenancy_start_date',
  'lodgement_date',
  'closed_date',
  'sa2_code',
  'dwelling_type',
  'bedrooms',
  'weekly_rent',
  'bond_amount',
] as const;
export type ImportColumn = (typeof IMPORT_COLUMNS)[number];

/** Optional columns may be left out of the header; a missing value is then empty. */
const OPTIONAL: ReadonlySet<ImportColumn> = new Set(['closed_date', 'dwelling_type', 'bedrooms']);

/** Lodgement is at most this many working days after the tenancy starts (spec part B). */
export const MAX_LODGEMENT_WORKING_DAYS = 23;
/** Bonds are often paid before the tenancy starts; earlier than this is taken as a data error. */
export const MAX_LODGEMENT_DAYS_BEFORE_START = 90;

export interface BondRow {
  bondId: string;
  tenancyStart: string;
  lodged: string;
  closed: string | null;
  sa2Code: number;
  dwellingType: string;
  bedrooms: number | null;
  weeklyRent: number;
  bondAmount: number;
}

/** Positions of the columns in the file; throws a message when the header is wrong. */
export function readHeader(fields: string[]): Map<ImportColumn, number> {
  const positions = new Map<ImportColumn, number>();
  fields.forEach((raw, i) => {
    const name = raw.trim().toLowerCase() as ImportColumn;
    if (!(IMPORT_COLUMNS as readonly string[]).includes(name)) {
      throw new Error(`unknown column "${raw.trim()}"; the columns are ${IMPORT_COLUMNS.join(', ')}`);
    }
    if (positions.has(name)) throw new Error(`column "${name}" appears twice`);
    positions.set(name, i);
  });
  const missing = IMPORT_COLUMNS.filter((c) => !positions.has(c) && !OPTIONAL.has(c));
  if (missing.length > 0) throw new Error(`missing column(s) ${missing.join(', ')}`);
  return positions;
}

/**
 * The file is CSV in the service's dialect (csv.ts: RFC 4180 quoting, UTF-8, an optional byte-order
 * mark, CRLF, LF or CR). A record must fit on its line: no column holds a line break, so a quoted field
 * with one is refused, on the record's first line. A line blank but for spaces is skipped.
 */
export const RECORD_SPANS_LINES = 'a quoted field holds a line break: a record may not span lines';

/** Whether a record is a blank line (one field, spaces at most): skipped. */
export function isBlankRecord(fields: readonly string[]): boolean {
  return fields.length === 1 && (fields[0] as string).trim() === '';
}

const DAY_MS = 86_400_000;

function dayNumber(text: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const time = Date.UTC(year, month - 1, day);
  const date = new Date(time);
  if (year < 1900 || year > 2199 || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    return undefined;
  }
  return time / DAY_MS;
}

/** Working days (Monday to Friday) after `from` up to and including `to`; negative when `to` is earlier. */
export function workingDaysBetween(from: number, to: number): number {
  if (to <= from) return to - from;
  let count = 0;
  for (let d = from + 1; d <= to; d++) {
    const weekday = (d + 4) % 7; // day 0 (1970-01-01) was a Thursday
    if (weekday !== 0 && weekday !== 6) count++;
  }
  return count;
}

const BOND_ID = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,39}$/;
const WHOLE_DOLLARS = /^\d{1,9}(?:\.0{1,2})?$/;

/**
 * Validates one data row. Returns the bond, or the list of broken rules (each naming its column), so
 * the importer can report every problem of a line at once.
 */
export function validateRow(
  fields: string[],
  columns: Map<ImportColumn, number>,
  sa2Index: ReadonlyMap<string, number>,
): BondRow | string[] {
  const problems: string[] = [];
  const value = (column: ImportColumn) => {
    const at = columns.get(column);
    return at === undefined ? '' : (fields[at] ?? '').trim();
  };
  if (fields.length !== columns.size) {
    return [`${fields.length} fields, the header has ${columns.size}`];
  }
  const bondId = value('bond_id');
  if (!BOND_ID.test(bondId)) {
    problems.push(
      `bond_id "${bondId}" must be 1–40 letters, digits, ".", "_", "/" or "-", starting with a letter or digit`,
    );
  }
  const start = dayNumber(value('tenancy_start_date'));
  if (start === undefined)
    problems.push(`tenancy_start_date "${value('tenancy_start_date')}" is not a date yyyy-mm-dd`);
  const lodged = dayNumber(value('lodgement_date'));
  if (lodged === undefined)
    problems.push(`lodgement_date "${value('lodgement_date')}" is not a date yyyy-mm-dd`);
  if (start !== undefined && lodged !== undefined) {
    if (workingDaysBetween(start, lodged) > MAX_LODGEMENT_WORKING_DAYS) {
      problems.push(
        `lodgement_date is more than ${MAX_LODGEMENT_WORKING_DAYS} working days after tenancy_start_date`,
      );
    } else if (start - lodged > MAX_LODGEMENT_DAYS_BEFORE_START) {
      problems.push(
        `lodgement_date is more than ${MAX_LODGEMENT_DAYS_BEFORE_START} days before tenancy_start_date`,
      );
    }
  }
  const closedText = value('closed_date');
  const closed = closedText === '' ? null : dayNumber(closedText);
  if (closed === undefined)
    problems.push(`closed_date "${closedText}" is not a date yyyy-mm-dd (or empty for an open bond)`);
  else if (closed !== null && start !== undefined && closed < start) {
    problems.push('closed_date is before tenancy_start_date');
  }
  const sa2 = withoutLeadingZeros(value('sa2_code'));
  if (!/^\d+$/.test(sa2) || !sa2Index.has(sa2)) {
    problems.push(`sa2_code "${value('sa2_code')}" is not a statistical area 2 (2019) code`);
  }
  const dwellingText = value('dwelling_type');
  // A bond recorded without a dwelling type is taken as a House, as the spec says.
  const dwelling = dwellingText === '' ? 'House' : canonicalDwelling(dwellingText);
  if (dwelling === undefined) {
    problems.push(`dwelling_type "${dwellingText}" is not one of ${DWELLING_TYPES.join(', ')} (or empty)`);
  }
  const bedroomsText = value('bedrooms');
  let bedrooms: number | null = null;
  if (bedroomsText !== '' && bedroomsText.toUpperCase() !== 'NA') {
    if (/^\d{1,2}$/.test(bedroomsText) && Number(bedroomsText) >= 1) bedrooms = Number(bedroomsText);
    else problems.push(`bedrooms "${bedroomsText}" must be a whole number from 1 to 99, NA or empty`);
  }
  const rentText = value('weekly_rent');
  const rent = WHOLE_DOLLARS.test(rentText) ? Math.trunc(Number(rentText)) : Number.NaN;
  if (!(rent >= 1 && rent <= 100_000)) {
    problems.push(`weekly_rent "${rentText}" must be whole dollars from 1 to 100000`);
  }
  const bondText = value('bond_amount');
  const bond = WHOLE_DOLLARS.test(bondText) ? Math.trunc(Number(bondText)) : Number.NaN;
  if (!(bond >= 0 && bond <= 10_000_000)) {
    problems.push(`bond_amount "${bondText}" must be whole dollars from 0 to 10000000`);
  }
  if (problems.length > 0) return problems;
  return {
    bondId,
    tenancyStart: value('tenancy_start_date'),
    lodged: value('lodgement_date'),
    closed: closed === null ? null : closedText,
    sa2Code: Number(sa2),
    dwellingType: dwelling as string,
    bedrooms,
    weeklyRent: rent,
    bondAmount: bond,
  };
}
