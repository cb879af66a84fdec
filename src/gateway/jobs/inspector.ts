import type { Pool } from 'pg';
import {
  CALLS_PER_SUBSCRIPTION,
  type InspectedCall,
  inspect,
  type PendingCall,
  RETENTION_MS,
} from '../domain/inspector.ts';
import { deleteCallsBefore, insertCalls } from '../store/inspector.ts';

/** Calls written in one statement at most. */
const BATCH = 500;

export interface InspectorOptions {
  /** How often the captured calls are written (ms; the portal also writes them before it reads); 0: only when `flush` is called. */
  flushEveryMs?: number;
  /** Calls waiting in memory at most, over every subscription (each holds at most `keep`). */
  capacity?: number;
  /** Calls kept per subscription. */
  keep?: number;
  retentionMs?: number;
  /** How often calls past the retention are removed (ms). */
  sweepEveryMs?: number;
  now?: () => number;
  /** One line when writing starts failing, one when it works again. */
  log?: (message: string, error?: unknown) => void;
}

export interface InspectorCounts {
  /** Calls written since start. */
  written: number;
  /** Calls dropped: more than `capacity` waited, or their batch could not be written. */
  dropped: number;
  /** Calls overwritten by newer ones of their subscription before a write (the table keeps 500 anyway). */
  superseded: number;
  /** Calls waiting in memory now. */
  waiting: number;
}

/** One subscription's calls waiting: at most `keep`, the oldest overwritten by the newest. */
interface Ring {
  calls: PendingCall[];
  /** Where the next call goes once `calls` is full (then also the oldest). */
  next: number;
}

/**
 * The request inspector's writer. `capture` is all a call pays: a map read and one store into its
 * subscription's ring of 500 (the bound: once full, the newest call overwrites the oldest, which the
 * table would have trimmed anyway), so a subscription calling thousands of times a second holds 500
 * calls, not thousands, and costs 500 redactions a write. At most `capacity` (2,000) calls wait in all:
 * half full, they are written at once; full, a call of a subscription with a ring not yet full is
 * dropped and counted. A waiting call holds at most 20 KiB of each body (http/inspector.ts). Every 5 s (and before the
 * portal reads) the rings are emptied, redacted (domain/inspector.ts) and written in statements of at
 * most 500 rows, and the subscriptions written trimmed to their newest 500; once a minute calls older
 * than 24 hours go. A batch the database refuses is dropped and counted (the inspector is a debugging
 * aid: it holds no memory for a database that is away), and a database fault never ends the process.
 */
export class Inspector {
  private rings = new Map<string, Ring>();
  private waiting = 0;
  private readonly capacity: number;
  private readonly keep: number;
  private readonly retentionMs: number;
  private readonly now: () => number;
  private readonly log: (message: string, error?: unknown) => void;
  private readonly timers: NodeJS.Timeout[] = [];
  private writing: Promise<void> = Promise.resolve();
  private failing = false;
  /** Whether the writer runs by itself (timers), and so also when half full. */
  private readonly flushing: boolean;
  private counts = { written: 0, dropped: 0, superseded: 0 };

  constructor(
    private readonly pool: Pool,
    options: InspectorOptions = {},
  ) {
    this.capacity = options.capacity ?? 2_000;
    this.keep = options.keep ?? CALLS_PER_SUBSCRIPTION;
    this.retentionMs = options.retentionMs ?? RETENTION_MS;
    this.now = options.now ?? Date.now;
    this.log = options.log ?? (() => {});
    const every = (ms: number, run: () => Promise<unknown>) => {
      const timer = setInterval(() => void run().catch(() => {}), ms);
      timer.unref();
      this.timers.push(timer);
    };
    const flushEveryMs = options.flushEveryMs ?? 5_000;
    this.flushing = flushEveryMs > 0;
    if (flushEveryMs > 0) {
      every(flushEveryMs, () => this.flush());
      every(options.sweepEveryMs ?? 60_000, () => this.sweep());
    }
  }

  /** Keeps a call for the next write, in its subscription's ring (over its oldest once it holds 500). */
  capture(call: PendingCall): void {
    let ring = this.rings.get(call.subscriptionId);
    if (ring === undefined) {
      ring = { calls: [], next: 0 };
      this.rings.set(call.subscriptionId, ring);
    }
    if (ring.calls.length < this.keep) {
      if (this.waiting >= this.capacity) {
        this.counts.dropped++;
        return;
      }
      ring.calls.push(call);
      // Half full: written now rather than at the next tick, so calls of many subscriptions are not dropped.
      if (++this.waiting === this.capacity >> 1 && this.flushing) void this.flush();
      return;
    }
    ring.calls[ring.next] = call;
    ring.next = ring.next + 1 === this.keep ? 0 : ring.next + 1;
    this.counts.superseded++;
  }

  stats(): InspectorCounts {
    const { written, dropped, superseded } = this.counts;
    return { written, dropped, superseded, waiting: this.waiting };
  }

  /** Writes what was captured until now (one write at a time: a flush asked for during one follows it). */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.drain());
    return this.writing;
  }

  private async drain(): Promise<void> {
    if (this.waiting === 0) return;
    const rings = this.rings;
    this.rings = new Map();
    this.waiting = 0;
    // Each subscription's calls in the order they came (its ring read from its oldest).
    const calls: PendingCall[] = [];
    for (const ring of rings.values()) {
      for (let i = 0; i < ring.calls.length; i++)
        calls.push(ring.calls[(ring.next + i) % ring.calls.length]!);
    }
    for (let from = 0; from < calls.length; from += BATCH) await this.write(calls.slice(from, from + BATCH));
  }

  private async write(batch: PendingCall[]): Promise<void> {
    const inspected: InspectedCall[] = [];
    for (const call of batch) {
      try {
        inspected.push(inspect(call.captured()));
      } catch (error) {
        // A call that cannot be redacted is never stored as it is.
        this.counts.dropped++;
        this.log('inspector: a call could not be redacted and was dropped', error);
      }
    }
    try {
      await insertCalls(this.pool, inspected, this.keep);
      this.counts.written += inspected.length;
      if (this.failing) this.log('inspector: writing calls again');
      this.failing = false;
    } catch (error) {
      this.counts.dropped += inspected.length;
      if (!this.failing)
        this.log('inspector: calls could not be written; they are dropped until it works', error);
      this.failing = true;
    }
  }

  /** Removes the calls past the retention (24 hours). */
  async sweep(): Promise<number> {
    try {
      return await deleteCallsBefore(this.pool, new Date(this.now() - this.retentionMs));
    } catch {
      return 0;
    }
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    await this.flush().catch(() => {});
  }
}
