import type { Pool } from 'pg';
import { isDatabaseUnavailable } from '../../platform/db/faults.ts';
import { addUsageMinutes, type UsageCounts as Counts } from '../store/usage.ts';

/**
 * Calls per subscription per minute (calls, 4xx, 5xx, 429), counted in memory and flushed to the
 * database every few seconds with additive upserts, so several processes can count the same minute.
 */
export class UsageRecorder {
  private pending = new Map<string, Counts>();
  /** Per subscription, the counts its last call went to: in which minute and which batch (`pending`). */
  private readonly last = new Map<string, { minute: number; batch: Map<string, Counts>; counts: Counts }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: Pool,
    flushEveryMs = 5_000,
  ) {
    if (flushEveryMs > 0) {
      this.timer = setInterval(() => this.flush().catch(() => {}), flushEveryMs);
      this.timer.unref();
    }
  }

  record(subscriptionId: string, status: number, at: number = Date.now()): void {
    const minute = Math.floor(at / 60_000) * 60_000;
    // Most calls count into the same subscription's same minute as its last call: the counts found then
    // are reused while that minute and that batch last (building and hashing the key string was most of
    // this method's cost).
    const last = this.last.get(subscriptionId);
    let counts: Counts | undefined;
    if (last && last.minute === minute && last.batch === this.pending) counts = last.counts;
    else {
      const key = `${subscriptionId}|${minute}`;
      counts = this.pending.get(key);
      if (!counts) {
        counts = { calls: 0, clientErrors: 0, serverErrors: 0, throttled: 0 };
        this.pending.set(key, counts);
      }
      if (this.last.size >= 10_000) this.last.clear();
      this.last.set(subscriptionId, { minute, batch: this.pending, counts });
    }
    counts.calls++;
    if (status === 429) counts.throttled++;
    else if (status >= 500) counts.serverErrors++;
    else if (status >= 400) counts.clientErrors++;
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.last.clear();
    const minutes = [...batch].map(([key, counts]) => {
      const [subscriptionId, minute] = key.split('|');
      return { subscriptionId: subscriptionId!, minute: new Date(Number(minute)), counts };
    });
    await addUsageMinutes(this.pool, minutes).catch((error: unknown) => {
      // The database is away: keep the counts for the next flush rather than lose them.
      if (isDatabaseUnavailable(error)) this.restore(batch);
      throw error;
    });
  }

  private restore(batch: Map<string, Counts>): void {
    for (const [key, counts] of batch) {
      const current = this.pending.get(key);
      if (!current) this.pending.set(key, counts);
      else {
        current.calls += counts.calls;
        current.clientErrors += counts.clientErrors;
        current.serverErrors += counts.serverErrors;
        current.throttled += counts.throttled;
      }
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush().catch(() => {});
  }
}
