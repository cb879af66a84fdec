/**
 * Rate limits (sliding window: the (N+1)th call inside any window is refused) and quotas (calls per
 * fixed period, aligned to the epoch) checked together in one step, so the Redis store needs one round
 * trip. A refused call does not count against either.
 */
export interface LimitRequest {
  key: string;
  rate: { limit: number; windowMs: number };
  quota?: { limit: number; periodMs: number } | undefined;
  /**
   * A second sliding log checked in the same step, under its own key: one that several `key`s share
   * (the gateway's per-user limit, counted across all of a user's subscriptions). The call must fit
   * both logs; an allowed call is counted in both, a refused one in neither. Absent: the store does
   * exactly what it does without it, at no cost.
   */
  shared?: { key: string; limit: number; windowMs: number } | undefined;
}

export type LimitOutcome =
  | { allowed: true }
  | {
      allowed: false;
      reason: 'rate' | 'quota';
      /** Until the call would fit every log that refused it (the later of the two when both are full). */
      retryAfterMs: number;
      /** Present (true) when the `shared` log is full: the refusal is that limit's, maybe also the key's. */
      shared?: true;
    };

/**
 * Where a store's counting stands. `redis`: `up` while decisions are made on Redis, `down` during an
 * outage (decisions made in this process alone), `connecting` before the first connection.
 * `localDecisions` counts the decisions made in this process because Redis could not be used.
 */
export interface LimitHealth {
  redis: 'up' | 'down' | 'connecting';
  localDecisions: number;
}

/** Announced once when an outage begins (`down`) and once when exact counting resumes (`up`). */
export type LimitEvent = { state: 'down'; error: string } | { state: 'up' };

export interface LimitStore {
  readonly kind: 'memory' | 'redis';
  check(request: LimitRequest): Promise<LimitOutcome>;
  /** Resolves once a server-backed store has connected or failed to (bounded: then it counts locally). */
  ready?(timeoutMs?: number): Promise<void>;
  /** Stores that depend on a server report its state; the in-memory store has none. */
  health?(): LimitHealth;
  /** Calls `listener` on every change of state (at once with `down` if an outage is under way). */
  watch?(listener: (event: LimitEvent) => void): () => void;
  /** The same decision at once, for stores that need no round trip (the in-memory one). */
  checkSync?(request: LimitRequest): LimitOutcome;
  /**
   * Forgets every count kept under a key that starts with `prefix` (sliding logs and quotas): the
   * counts of one environment when the sandbox is reset. In this process, and on Redis for every process.
   */
  forget(prefix: string): Promise<void>;
  close(): Promise<void>;
}
