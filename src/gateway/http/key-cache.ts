import type { Pool } from 'pg';
import type { ChangeFeed } from '../../platform/db/notify.ts';
import type { KeyOwner } from '../domain/subscriptions.ts';
import { findKeyOwner } from '../operations/subscriptions.ts';

/**
 * Key lookups served from memory for `ttlMs`, so the hot path does not wait on the database.
 * A changed subscription (new key, new state) is dropped from every process at once through the change
 * feed, so a regenerated key is refused immediately, not after the TTL. Unknown keys are remembered
 * briefly too, so a flood of bad keys does not become a flood of queries.
 */
interface Entry {
  owner: KeyOwner | undefined;
  expires: number;
}

const MAX_ENTRIES = 50_000;
const NEGATIVE_TTL_MS = 2_000;

export class KeyCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly pool: Pool,
    private readonly ttlMs: number,
    feed?: ChangeFeed,
  ) {
    feed?.on((notice) => {
      if (notice.kind === 'subscription') this.forgetSubscription(notice.id);
      else if (notice.kind === 'reset' || notice.kind === 'product') this.entries.clear();
    });
  }

  async lookup(key: string): Promise<KeyOwner | undefined> {
    // Keyed by the key itself: the process holds it in the request anyway, and hashing on every hit
    // was a measurable share of the hot path. Only the database sees hashes.
    const cacheKey = key;
    const now = Date.now();
    const hit = this.cached(key, now);
    if (hit) return hit.owner;
    const owner = await findKeyOwner(this.pool, key);
    if (this.ttlMs > 0) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(cacheKey, {
        owner,
        expires: now + (owner ? this.ttlMs : Math.min(this.ttlMs, NEGATIVE_TTL_MS)),
      });
    }
    return owner;
  }

  /** The cached answer for a key while it is fresh (`owner` undefined: a key known not to exist). */
  cached(key: string, now: number = Date.now()): Entry | undefined {
    const hit = this.entries.get(key);
    return hit && hit.expires > now ? hit : undefined;
  }

  forgetSubscription(subscriptionId: string): void {
    for (const [cacheKey, entry] of this.entries) {
      if (entry.owner?.subscriptionId === subscriptionId) this.entries.delete(cacheKey);
    }
  }
}
