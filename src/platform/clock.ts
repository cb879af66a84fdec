/**
 * Time comes from a clock, never from Date.now() in rules. Production runs on real time; the sandbox
 * may run on a virtual clock: real time plus an offset that users advance, or frozen at an instant,
 * so a five-hour retry schedule or a month's suspension can be walked through in seconds.
 */
export interface Clock {
  now(): Date;
}

/** Production is always `real`; the sandbox's clock is `virtual` when it may be moved. */
export type ClockMode = 'real' | 'virtual';

export interface VirtualState {
  offsetMs: number;
  frozenAt: Date | null;
}

export const realClock: Clock = { now: () => new Date() };

export class VirtualClock implements Clock {
  constructor(
    private state: VirtualState = { offsetMs: 0, frozenAt: null },
    private readonly wall: () => number = Date.now,
  ) {}

  now(): Date {
    return this.state.frozenAt ? new Date(this.state.frozenAt) : new Date(this.wall() + this.state.offsetMs);
  }

  get snapshot(): VirtualState {
    return { ...this.state };
  }

  replace(state: VirtualState): void {
    this.state = { ...state };
  }
}

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/**
 * The target instant of "advance by <duration>" from `from`. Accepts compact forms (`90m`, `2h30m`,
 * `7d`, `1mo`) and ISO 8601 durations (`PT2H`, `P1M`, `P1DT12H`). Months are calendar months.
 */
export function addDuration(from: Date, text: string): Date {
  const trimmed = text.trim();
  const iso =
    /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(
      trimmed,
    );
  if (iso && trimmed.length > 1 && !/T$/i.test(trimmed)) {
    const [, y, mo, w, d, h, mi, s] = iso.map((v) => (v === undefined ? 0 : Number(v))) as number[];
    const target = new Date(from);
    target.setUTCMonth(target.getUTCMonth() + (y ?? 0) * 12 + (mo ?? 0));
    return new Date(
      target.getTime() +
        ((w ?? 0) * 7 + (d ?? 0)) * 86_400_000 +
        (h ?? 0) * 3_600_000 +
        (mi ?? 0) * 60_000 +
        (s ?? 0) * 1000,
    );
  }
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)\s*(ms|mo|min|s|m|h|d|w)/gi)];
  const consumed = parts.map((p) => p[0]).join('');
  if (parts.length === 0 || consumed.replace(/\s+/g, '') !== trimmed.replace(/\s+/g, '')) {
    throw new RangeError(`"${text}" is not a duration: use forms like 90s, 20m, 2h30m, 7d, 1mo or PT2H, P1M`);
  }
  let target = new Date(from);
  for (const [, amount, rawUnit] of parts) {
    const unit = (rawUnit ?? '').toLowerCase();
    const value = Number(amount);
    if (unit === 'mo') {
      if (!Number.isInteger(value)) throw new RangeError('months must be whole');
      target = new Date(target);
      target.setUTCMonth(target.getUTCMonth() + value);
    } else {
      target = new Date(target.getTime() + value * (UNIT_MS[unit] ?? 0));
    }
  }
  return target;
}
