/**
 * New Zealand time for every register (one module: the business number register's date-times, the
 * calendar's "today", the secured interests register's dates). Date-times as the registers write them: New Zealand wall time with milliseconds
 * and a colon-free offset, `2009-03-24T00:00:00.000+1300`. Published clients parse every date field
 * with `%Y-%m-%dT%H:%M:%S.%f%z`, so a field without time, milliseconds or offset breaks them.
 *
 * Offsets come from the IANA rules for Pacific/Auckland (through Intl), so daylight saving and the
 * historical +11:30 / +12:30 offsets before 1946 are right. Asking Intl for every instant is slow
 * (≈ 5 µs); the sandbox generator formats millions of dates, so each year's transitions are found
 * once and cached.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;
const WEEK = 7 * DAY;

const offsetFormatter = new Intl.DateTimeFormat('en-NZ', {
  timeZone: 'Pacific/Auckland',
  timeZoneName: 'longOffset',
});

function intlOffsetMinutes(epochMs: number): number {
  const name = offsetFormatter.formatToParts(epochMs).find((part) => part.type === 'timeZoneName')?.value;
  const match = /^GMT(?:([+-])(\d{2}):(\d{2}))?/.exec(name ?? '');
  if (!match) throw new Error(`unexpected time zone name ${JSON.stringify(name)}`);
  if (match[1] === undefined) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

/**
 * The instant of a UTC calendar time (month 1–12; out-of-range parts roll over as in Date.UTC).
 * Date.UTC reads years 0–99 as 1900–1999, so those years are set with setUTCFullYear, which takes the
 * year as given; every other year keeps the allocation-free Date.UTC (the generator calls this often).
 */
function utcEpoch(
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
  millisecond = 0,
): number {
  if (year < 0 || year > 99) return Date.UTC(year, month - 1, day, hour, minute, second, millisecond);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millisecond);
  return date.getTime();
}

/** [start instant, offset in minutes] pairs covering one UTC year, in order. */
type YearSegments = readonly (readonly [number, number])[];
const FIRST_CACHED_YEAR = 1800;
const segmentsByYear: (YearSegments | undefined)[] = [];
/** Years before 1800 (rare, but a request may name any year 0000–9999): cached by year too. */
const earlySegments = new Map<number, YearSegments>();

function segmentsOf(year: number): YearSegments {
  const cached =
    year >= FIRST_CACHED_YEAR ? segmentsByYear[year - FIRST_CACHED_YEAR] : earlySegments.get(year);
  if (cached) return cached;
  const start = utcEpoch(year, 1, 1);
  const end = utcEpoch(year + 1, 1, 1);
  const segments: [number, number][] = [[start, intlOffsetMinutes(start)]];
  // New Zealand never changes offset twice within a week, so weekly samples see every change.
  let previous = start;
  let previousOffset = segments[0]![1];
  for (let sample = Math.min(start + WEEK, end); previous < end; sample = Math.min(sample + WEEK, end)) {
    const offset = intlOffsetMinutes(sample);
    if (offset !== previousOffset) segments.push([firstMinuteWithOffset(previous, sample, offset), offset]);
    previous = sample;
    previousOffset = offset;
  }
  if (year >= FIRST_CACHED_YEAR) segmentsByYear[year - FIRST_CACHED_YEAR] = segments;
  else earlySegments.set(year, segments);
  return segments;
}

/** Binary search on whole minutes for the first instant in (low, high] with the new offset. */
function firstMinuteWithOffset(low: number, high: number, offset: number): number {
  let lo = low;
  let hi = high;
  while (hi - lo > MINUTE) {
    const mid = lo + Math.floor((hi - lo) / 2 / MINUTE) * MINUTE;
    if (intlOffsetMinutes(mid) === offset) hi = mid;
    else lo = mid;
  }
  return hi;
}

const AVERAGE_YEAR = 31_556_952_000;
const YEAR_TABLE_FIRST = 1800;
const YEAR_TABLE_LAST = 2300;
const yearStarts: number[] = [];
for (let year = YEAR_TABLE_FIRST; year <= YEAR_TABLE_LAST + 1; year++) yearStarts.push(Date.UTC(year, 0, 1));

/** The UTC year of an instant, from a table of year starts (this runs millions of times in the generator). */
function utcYearOf(epochMs: number): number {
  let year = 1970 + Math.floor(epochMs / AVERAGE_YEAR);
  if (year < YEAR_TABLE_FIRST || year >= YEAR_TABLE_LAST) return new Date(epochMs).getUTCFullYear();
  if (epochMs < yearStarts[year - YEAR_TABLE_FIRST]!) year--;
  else if (epochMs >= yearStarts[year + 1 - YEAR_TABLE_FIRST]!) year++;
  return year;
}

/** The UTC offset of New Zealand (mainland) time at an instant, in minutes: 720 or 780 today. */
export function nzOffsetMinutes(epochMs: number): number {
  if (!Number.isFinite(epochMs)) throw new RangeError(`not an instant: ${epochMs}`);
  const segments = segmentsOf(utcYearOf(epochMs));
  let offset = segments[0]![1];
  for (let i = 1; i < segments.length && epochMs >= segments[i]![0]; i++) offset = segments[i]![1];
  return offset;
}

const pad2 = (n: number): string => (n < 10 ? '0' : '') + n;
const pad3 = (n: number): string => (n < 10 ? '00' : n < 100 ? '0' : '') + n;
const pad4 = (n: number): string => String(n).padStart(4, '0');

/** Formats an instant as New Zealand wall time, e.g. `2009-03-24T00:00:00.000+1300`. */
export function formatNzDateTime(epochMs: number): string {
  const offset = nzOffsetMinutes(epochMs);
  const wall = epochMs + offset * MINUTE;
  const days = Math.floor(wall / DAY);
  const timeOfDay = wall - days * DAY;
  const slot = days + DAY_CACHE_ORIGIN;
  const cacheable = slot >= 0 && slot < DAY_CACHE_SIZE;
  // Most dates in the register are midnights, and a day has one midnight (and so one offset).
  if (timeOfDay === 0 && cacheable) {
    const cached = midnightByDay[slot];
    if (cached !== undefined) return cached;
  }
  let date = cacheable ? dateByDay[slot] : undefined;
  if (date === undefined) {
    date = civilDate(days);
    if (cacheable) dateByDay[slot] = date;
  }
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const text =
    date +
    'T' +
    pad2(Math.floor(timeOfDay / 3_600_000)) +
    ':' +
    pad2(Math.floor(timeOfDay / MINUTE) % 60) +
    ':' +
    pad2(Math.floor(timeOfDay / 1000) % 60) +
    '.' +
    pad3(timeOfDay % 1000) +
    sign +
    pad2(Math.floor(abs / 60)) +
    pad2(abs % 60);
  if (timeOfDay === 0 && cacheable) midnightByDay[slot] = text;
  return text;
}

// Day-indexed caches from 1750 to 2297 (the generator formats millions of dates over ~45,000 days).
const DAY_CACHE_ORIGIN = 80_000;
const DAY_CACHE_SIZE = 200_000;
const midnightByDay: (string | undefined)[] = [];
const dateByDay: (string | undefined)[] = [];

/** yyyy-MM-dd of a count of days since 1970-01-01 (Howard Hinnant's civil_from_days; no Date allocated). */
function civilDate(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return pad4(year) + '-' + pad2(month) + '-' + pad2(day);
}

/**
 * The instant of a New Zealand wall time (month 1–12). A wall time that occurs twice (the hour
 * repeated when daylight saving ends) gives the earlier instant; one that never occurs (the hour
 * skipped when it starts) is read with the offset before the change, landing an hour later, as
 * Temporal's "compatible" disambiguation does.
 */
export function nzLocalToEpoch(
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
  millisecond = 0,
): number {
  const wall = utcEpoch(year, month, day, hour, minute, second, millisecond);
  const before = nzOffsetMinutes(wall - DAY);
  const after = nzOffsetMinutes(wall + DAY);
  // No change of offset within a day either side (all but two days a year): the wall time is unambiguous.
  if (before === after) return wall - before * MINUTE;
  let earliest = Number.POSITIVE_INFINITY;
  for (const offset of [before, after]) {
    const instant = wall - offset * MINUTE;
    if (nzOffsetMinutes(instant) === offset && instant < earliest) earliest = instant;
  }
  return earliest === Number.POSITIVE_INFINITY ? wall - before * MINUTE : earliest;
}

/**
 * Midnight (New Zealand) starting the day an instant falls in. New Zealand changes offset at 02:00 or
 * 03:00, never at midnight, so every day has exactly one midnight.
 */
export function nzStartOfDay(epochMs: number): number {
  const wall = epochMs + nzOffsetMinutes(epochMs) * MINUTE;
  const wallMidnight = wall - (((wall % DAY) + DAY) % DAY);
  // The offset at midnight may differ from the instant's when the day is a daylight saving change day.
  const offset = nzOffsetMinutes(wallMidnight - nzOffsetMinutes(epochMs) * MINUTE);
  return wallMidnight - offset * MINUTE;
}

/** Midnight at the start of a New Zealand calendar day (month 1–12). */
export function nzMidnight(year: number, month: number, day: number): number {
  return nzLocalToEpoch(year, month, day);
}

/** What `parseNzDateTime` accepts, for error messages that name the rule. */
export const NZ_DATE_TIME_RULE =
  'a date-time like 2009-03-24T00:00:00.000+1300 (offset as +hhmm, +hh:mm or Z; ' +
  'without an offset, or a bare date like 2009-03-24, it is read as New Zealand time)';

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Parses a date-time in the register's form and the common variants clients send. Returns the
 * instant in epoch milliseconds, or `null` when the text is not a real date-time.
 */
export function parseNzDateTime(text: string): number | null {
  const match = DATE_TIME.exec(text.trim());
  if (!match) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  const millisecond = Number(fraction.padEnd(3, '0').slice(0, 3));
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  if (zone === undefined) return nzLocalToEpoch(year, month, day, hour, minute, second, millisecond);
  const wall = utcEpoch(year, month, day, hour, minute, second, millisecond);
  let offset = 0;
  if (zone !== 'Z') {
    const offsetHours = Number(zone.slice(1, 3));
    const offsetMinutes = Number(zone.slice(-2));
    if (offsetHours > 14 || offsetMinutes > 59) return null;
    offset = (zone[0] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  }
  const epoch = wall - offset * MINUTE;
  // The register writes four-digit years: an offset must not move the instant out of the years
  // 0000–9999 of New Zealand time (0000-01-01T00:00:00.000+1400 is in the year before 0000 there).
  if (year === 0 || year === 9999) {
    const nzYear = new Date(epoch + nzOffsetMinutes(epoch) * MINUTE).getUTCFullYear();
    if (nzYear < 0 || nzYear > 9999) return null;
  }
  return epoch;
}

function daysInMonth(year: number, month: number): number {
  // Day 0 of the next month is the last day of this one.
  return new Date(utcEpoch(year, month + 1, 0)).getUTCDate();
}

/** Whether a string is exactly in the register's output form (what every date field must look like). */
export function isNzDateTimeString(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{4}$/.test(text) && parseNzDateTime(text) !== null;
}
