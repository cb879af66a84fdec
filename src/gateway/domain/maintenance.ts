/**
 * The source registers' weekly maintenance window, Wednesday 21:00 to 23:00 New Zealand time, which
 * the sandbox can simulate (`RSG_SANDBOX_MAINTENANCE=on`). The window follows New Zealand's wall clock,
 * so it is 08:00–10:00 UTC under daylight time (NZDT, +13) and 09:00–11:00 UTC under standard time
 * (NZST, +12). Daylight-saving changes happen on Sunday mornings, never inside a window.
 */
export const MAINTENANCE_TIME_ZONE = 'Pacific/Auckland';
const WEDNESDAY = 3;
const START_HOUR = 21;
const END_HOUR = 23;

interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const wallFormat = new Intl.DateTimeFormat('en-NZ', {
  timeZone: MAINTENANCE_TIME_ZONE,
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
});

/** New Zealand's wall-clock reading at `instant` (whole seconds). */
function wallTime(instant: Date): WallTime {
  const parts: Record<string, number> = {};
  for (const part of wallFormat.formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 0,
    day: parts.day ?? 0,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

const wallAsUtc = (wall: WallTime): number =>
  Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);

/** New Zealand's offset from UTC at `instant`, in milliseconds (+13 h or +12 h). */
export function newZealandOffsetMs(instant: Date): number {
  const whole = new Date(Math.floor(instant.getTime() / 1000) * 1000);
  return wallAsUtc(wallTime(whole)) - whole.getTime();
}

/** The instant at which New Zealand's wall clock reads `wall` (an hour that exists on that day). */
function instantOf(wall: WallTime): Date {
  const guess = wallAsUtc(wall);
  let instant = guess - newZealandOffsetMs(new Date(guess));
  // The offset at the guess may differ from the offset at the answer near a change; one step settles it.
  instant = guess - newZealandOffsetMs(new Date(instant));
  return new Date(instant);
}

/** The maintenance window that contains `now` (start inclusive, end exclusive), or null. */
export function maintenanceWindowAt(now: Date): { start: Date; end: Date } | null {
  const wall = wallTime(now);
  const weekday = new Date(Date.UTC(wall.year, wall.month - 1, wall.day)).getUTCDay();
  if (weekday !== WEDNESDAY || wall.hour < START_HOUR || wall.hour >= END_HOUR) return null;
  const day = { year: wall.year, month: wall.month, day: wall.day, minute: 0, second: 0 };
  return { start: instantOf({ ...day, hour: START_HOUR }), end: instantOf({ ...day, hour: END_HOUR }) };
}

/** `2026-01-14T23:00:00+13:00`: an instant as New Zealand's wall clock reads it, with the offset. */
export function newZealandIso(instant: Date): string {
  const offsetMinutes = Math.round(newZealandOffsetMs(instant) / 60_000);
  const local = new Date(instant.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 19);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const hours = String(Math.floor(abs / 60)).padStart(2, '0');
  const minutes = String(abs % 60).padStart(2, '0');
  return `${local}${sign}${hours}:${minutes}`;
}
