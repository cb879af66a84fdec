import type { LimitOutcome, LimitRequest, LimitStore } from './types.ts';

/** A log of call times per key; exact within one process. */
class SlidingLog {
  private times: number[] = [];
  private head = 0;

  count(now: number, windowMs: number): number {
    const edge = now - windowMs;
    while (this.head < this.times.length && (this.times[this.head] ?? 0) <= edge) this.head++;
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
    return this.times.length - this.head;
  }

  oldest(): number {
    return this.times[this.head] ?? 0;
  }

  add(now: number): void {
    this.times.push(now);
  }
}

export class MemoryLimitStore implements LimitStore {
  readonly kind = 'memory' as const;
  private readonly logs = new Map<string, SlidingLog>();
  private readonly quotas = new Map<string, { period: number; count: number }>();
  private sweepAt = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async check(request: LimitRequest): Promise<LimitOutcome> {
    return this.checkSync(request);
  }

  checkSync({ key, rate, quota }: LimitRequest): LimitOutcome {
    const now = this.now();
    this.sweep(now, rate.windowMs);
    let log = this.logs.get(key);
    if (!log) {
      log = new SlidingLog();
      this.logs.set(key, log);
    }
    if (log.count(now, rate.windowMs) >= rate.limit) {
      return { allowed: false, reason: 'rate', retryAfterMs: log.oldest() + rate.windowMs - now };
    }
    if (quota) {
      const period = Math.floor(now / quota.periodMs);
      let used = this.quotas.get(key);
      if (!used || used.period !== period) {
        used = { period, count: 0 };
        this.quotas.set(key, used);
      }
      if (used.count >= quota.limit) {
        return { allowed: false, reason: 'quota', retryAfterMs: (period + 1) * quota.periodMs - now };
      }
      used.count++;
    }
    log.add(now);
    return { allowed: true };
  }

  /** Forget keys idle for a whole window, so memory follows active callers only. */
  private sweep(now: number, windowMs: number): void {
    if (now < this.sweepAt) return;
    this.sweepAt = now + windowMs;
    for (const [key, log] of this.logs) if (log.count(now, windowMs) === 0) this.logs.delete(key);
  }

  async close(): Promise<void> {}
}
