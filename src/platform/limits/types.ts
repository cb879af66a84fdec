/**
 * Rate limits (sliding window: the (N+1)th call inside any window is refused) and quotas (calls per
 * fixed period, aligned to the epoch) checked together in one step, so the Redis store needs one round
 * trip. A refused call does not count against either.
 */
export interface LimitRequest {
  key: string;
  rate: { limit: number; windowMs: number };
  quota?: { limit: number; periodMs: number } | undefined;
}

export type LimitOutcome =
  | { allowed: true }
  | { allowed: false; reason: 'rate' | 'quota'; retryAfterMs: number };

export interface LimitStore {
  readonly kind: 'memory' | 'redis';
  check(request: LimitRequest): Promise<LimitOutcome>;
  /** The same decision at once, for stores that need no round trip (the in-memory one). */
  checkSync?(request: LimitRequest): LimitOutcome;
  close(): Promise<void>;
}
