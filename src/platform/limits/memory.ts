import type { LimitOutcome, LimitRequest, LimitStore } from './types.ts';

/**
 * A log of call times per key; exact within one process. Calls in the same millisecond share one entry
 * (the time and how many), so a busy key keeps one entry per millisecond, not one per call (at 40,000
 * calls a second, a 60-second window holds at most 60,000 entries instead of 2.4 million numbers). The
 * clock is read in whole milliseconds, so nothing is lost by it.
 */
class SlidingLog {
  private times: number[] = [];
  private counts: number[] = [];
  private head = 0;
  private total = 0;

  count(now: number, windowMs: number): number {
    const edge = now - windowMs;
    while (this.head < this.times.length && (this.times[this.head] ?? 0) <= edge) {
      this.total -= this.counts[this.head] ?? 0;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.counts = this.counts.slice(this.head);
      this.head = 0;
    }
    return this.total;
  }

  oldest(): number {
    return this.times[this.head] ?? 0;
  }

  add(now: number): void {
    const last = this.times.length - 1;
    if (last >= this.head && this.times[last] === now) this.counts[last] = (this.counts[last] ?? 0) + 1;
    else {
      this.times.push(now);
      this.counts.push(1);
    }
    this.total++;
  }
}

export class MemoryLimitStore implements LimitStore {
  readonly kind = 'memory' as const;
  private readonly logs = new Map<string, SlidingLog>();
  private readonly quotas = new Map<string, { period: number; count: number }>();
  private sweepAt = 0;
  private longestWindow = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async check(request: LimitRequest): Promise<LimitOutcome> {
    return this.checkSync(request);
  }

  checkSync(request: LimitRequest): LimitOutcome {
    if (request.shared) return this.checkShared(request, request.shared);
    const { key, rate, quota } = request;
    const now = this.now();
    this.sweep(now, rate.windowMs);
    const log = this.log(key);
    if (log.count(now, rate.windowMs) >= rate.limit) {
      return { allowed: false, reason: 'rate', retryAfterMs: log.oldest() + rate.windowMs - now };
    }
    if (!this.spendQuota(key, quota, now)) return this.quotaRefusal(quota!, now);
    log.add(now);
    return { allowed: true };
  }

  /** The call must fit the key's log and the shared one; it is counted in both or in neither. */
  private checkShared(
    { key, rate, quota }: LimitRequest,
    shared: NonNullable<LimitRequest['shared']>,
  ): LimitOutcome {
    const now = this.now();
    this.sweep(now, Math.max(rate.windowMs, shared.windowMs));
    const log = this.log(key);
    const sharedLog = this.log(shared.key);
    const keyFull = log.count(now, rate.windowMs) >= rate.limit;
    const sharedFull = sharedLog.count(now, shared.windowMs) >= shared.limit;
    if (keyFull || sharedFull) {
      const keyWait = keyFull ? log.oldest() + rate.windowMs - now : 0;
      const sharedWait = sharedFull ? sharedLog.oldest() + shared.windowMs - now : 0;
      const retryAfterMs = Math.max(keyWait, sharedWait);
      return sharedFull
        ? { allowed: false, reason: 'rate', retryAfterMs, shared: true }
        : { allowed: false, reason: 'rate', retryAfterMs };
    }
    if (!this.spendQuota(key, quota, now)) return this.quotaRefusal(quota!, now);
    log.add(now);
    sharedLog.add(now);
    return { allowed: true };
  }

  private log(key: string): SlidingLog {
    let log = this.logs.get(key);
    if (!log) {
      log = new SlidingLog();
      this.logs.set(key, log);
    }
    return log;
  }

  /** Counts one call against the quota when it has room (or there is none); false when it is spent. */
  private spendQuota(key: string, quota: LimitRequest['quota'], now: number): boolean {
    if (!quota) return true;
    const period = Math.floor(now / quota.periodMs);
    let used = this.quotas.get(key);
    if (!used || used.period !== period) {
      used = { period, count: 0 };
      this.quotas.set(key, used);
    }
    if (used.count >= quota.limit) return false;
    used.count++;
    return true;
  }

  private quotaRefusal(quota: NonNullable<LimitRequest['quota']>, now: number): LimitOutcome {
    const period = Math.floor(now / quota.periodMs);
    return { allowed: false, reason: 'quota', retryAfterMs: (period + 1) * quota.periodMs - now };
  }

  /**
   * Forget keys idle for a whole window, so memory follows active callers only. The longest window
   * seen decides, so a log is never forgotten while calls in its own window still count.
   */
  private sweep(now: number, windowMs: number): void {
    if (windowMs > this.longestWindow) this.longestWindow = windowMs;
    if (now < this.sweepAt) return;
    this.sweepAt = now + this.longestWindow;
    for (const [key, log] of this.logs) if (log.count(now, this.longestWindow) === 0) this.logs.delete(key);
  }

  async forget(prefix: string): Promise<void> {
    this.forgetSync(prefix);
  }

  forgetSync(prefix: string): void {
    for (const key of this.logs.keys()) if (key.startsWith(prefix)) this.logs.delete(key);
    for (const key of this.quotas.keys()) if (key.startsWith(prefix)) this.quotas.delete(key);
  }

  async close(): Promise<void> {}
}
