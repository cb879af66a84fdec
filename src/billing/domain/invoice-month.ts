/**
 * Billing months in New Zealand time (Pacific/Auckland, daylight saving included). A month is the
 * half-open interval [first instant of the month, first instant of the next month), both in New
 * Zealand time, so a fee charged at 23:59:59.999 on the last day belongs to that month and one charged
 * at 00:00:00.000 on the first belongs to the next. New Zealand changes its clocks at 02:00/03:00, never
 * at midnight, so the first instant of a month always exists and is unique.
 */
export const BILLING_TIME_ZONE = 'Pacific/Auckland';

/** A billing month, `YYYY-MM`. */
export type Period = string;

const PERIOD = /^(\d{4})-(0[1-9]|1[0-2])$/;

const parts = new Intl.DateTimeFormat('en-NZ', {
  timeZone: BILLING_TIME_ZONE,
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** The wall-clock reading in New Zealand of an instant, as if it were UTC (milliseconds). */
function wallClock(instant: number): number {
  const values: Record<string, number> = {};
  for (const part of parts.formatToParts(new Date(instant))) {
    if (part.type !== 'literal') values[part.type] = Number(part.value);
  }
  return Date.UTC(
    values.year!,
    values.month! - 1,
    values.day!,
    values.hour!,
    values.minute!,
    values.second!,
    instant - Math.floor(instant / 1000) * 1000,
  );
}

/** New Zealand's offset from UTC at an instant, in milliseconds (+12 h or +13 h). */
export function nzOffsetMs(instant: Date): number {
  return wallClock(instant.getTime()) - instant.getTime();
}

export function isPeriod(text: string): boolean {
  return PERIOD.test(text);
}

function split(period: Period): [number, number] {
  const match = PERIOD.exec(period);
  if (!match) throw new RangeError(`"${period}" is not a billing month such as 2026-11`);
  return [Number(match[1]), Number(match[2])];
}

const format = (year: number, month: number): Period =>
  `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`;

/** The billing month an instant falls in. */
export function periodOf(instant: Date): Period {
  const wall = new Date(wallClock(instant.getTime()));
  return format(wall.getUTCFullYear(), wall.getUTCMonth() + 1);
}

/** The month after. */
export function nextPeriod(period: Period): Period {
  const [year, month] = split(period);
  return month === 12 ? format(year + 1, 1) : format(year, month + 1);
}

export function previousPeriod(period: Period): Period {
  const [year, month] = split(period);
  return month === 1 ? format(year - 1, 12) : format(year, month - 1);
}

/** The first instant of the month: 00:00 on the 1st in New Zealand. */
export function periodStart(period: Period): Date {
  const [year, month] = split(period);
  const wall = Date.UTC(year, month - 1, 1);
  // The offset at the guess, then at the corrected instant (they differ only near a change).
  let instant = wall - nzOffsetMs(new Date(wall - 12 * 3_600_000));
  instant = wall - nzOffsetMs(new Date(instant));
  return new Date(instant);
}

/** The first instant after the month (the start of the next); the month is [start, end). */
export function periodEnd(period: Period): Date {
  return periodStart(nextPeriod(period));
}

/** The month's bounds and a label for people (`November 2026`). */
export function describePeriod(period: Period): { start: Date; end: Date; label: string } {
  const [year, month] = split(period);
  const label = new Date(Date.UTC(year, month - 1, 15)).toLocaleString('en-NZ', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
  return { start: periodStart(period), end: periodEnd(period), label };
}

/** A date and time in New Zealand for documents: `2026-11-30 23:59:59 NZDT`. */
export function formatNz(instant: Date): string {
  const wall = new Date(wallClock(instant.getTime()));
  const offset = nzOffsetMs(instant) / 3_600_000;
  return `${wall.toISOString().slice(0, 19).replace('T', ' ')} ${offset === 13 ? 'NZDT' : 'NZST'}`;
}

/** A date in New Zealand: `2026-11-30`. */
export function formatNzDate(instant: Date): string {
  return new Date(wallClock(instant.getTime())).toISOString().slice(0, 10);
}
