import type { Pool } from 'pg';
import {
  CALLS_PER_SUBSCRIPTION,
  type CapturedCall,
  type InspectedCall,
  inspect,
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
  /** Calls dropped: `full` and `unwritten` together. */
  dropped: number;
  /** Calls dropped because `capacity` calls already waited. */
  full: number;
  /** Calls dropped because their batch could not be written (the database away) or a call not redacted. */
  unwritten: number;
  /** Calls not kept: their subscription already had 500 waiting for the next write. */
  skipped: number;
  /** Calls waiting in memory now. */
  waiting: number;
}

/**
 * The request inspector's writer. A call the guard ties to a subscription pays a map read to learn
 * whether its subscription has room (`admits`: fewer than 500 of its calls wait for the next write, and
 * fewer than `capacity`, 2,000, in all); only then is its answer watched and, once sent, kept
 * (`capture`, http/inspector.ts); a subscription past its 500 between two writes pays nothing more.
 * So a subscription calling thousands of times a second holds 500 calls, and the calls held are not
 * replaced thousands of times a second. Every 5 s, and before the portal reads, the waiting calls are
 * redacted (domain/inspector.ts) and written in statements of at most 500 rows, and the subscriptions
 * written trimmed to their newest 500; half full, they are written at once; once a minute calls older
 * than 24 hours go. A batch the database refuses is dropped and counted (the inspector is a debugging
 * aid: it holds no memory for a database that is away), and a database fault never ends the process.
 * A waiting call holds at most 20 KiB of each body (http/inspector.ts). What was dropped is counted in
 * `stats()` and in `/metrics` (`rsg_inspector_calls_dropped_total`, http/inspector.ts).
 */
export class Inspector {
  private rings = new Map<string, CapturedCall[]>();
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
  private counts = { written: 0, full: 0, unwritten: 0, skipped: 0 };

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

  /**
   * Whether a call of this subscription is to be kept for the next write: its subscription has fewer
   * than 500 waiting and fewer than `capacity` wait in all. A call not admitted is counted, nothing more.
   */
  admits(subscriptionId: string): boolean {
    const waiting = this.rings.get(subscriptionId);
    if (waiting !== undefined && waiting.length >= this.keep) {
      this.counts.skipped++;
      return false;
    }
    if (this.waiting >= this.capacity) {
      this.counts.full++;
      return false;
    }
    return true;
  }

  /**
   * Keeps a call for the next write, within the same bounds as `admits` (calls admitted together may
   * end together: the one past a bound is counted and let go).
   */
  capture(call: CapturedCall): void {
    const waiting = this.rings.get(call.subscriptionId);
    if (waiting !== undefined && waiting.length >= this.keep) {
      this.counts.skipped++;
      return;
    }
    if (this.waiting >= this.capacity) {
      this.counts.full++;
      return;
    }
    if (waiting === undefined) this.rings.set(call.subscriptionId, [call]);
    else waiting.push(call);
    // Half full: written now rather than at the next tick, so calls of many subscriptions are not dropped.
    if (++this.waiting === this.capacity >> 1 && this.flushing) void this.flush();
  }

  stats(): InspectorCounts {
    const { written, full, unwritten, skipped } = this.counts;
    return { written, dropped: full + unwritten, full, unwritten, skipped, waiting: this.waiting };
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
    const calls: CapturedCall[] = [];
    for (const waiting of rings.values()) for (const call of waiting) calls.push(call);
    for (let from = 0; from < calls.length; from += BATCH) await this.write(calls.slice(from, from + BATCH));
  }

  private async write(batch: CapturedCall[]): Promise<void> {
    const inspected: InspectedCall[] = [];
    for (const call of batch) {
      try {
        inspected.push(inspect(call));
      } catch (error) {
        // A call that cannot be redacted is never stored as it is.
        this.counts.unwritten++;
        this.log('inspector: a call could not be redacted and was dropped', error);
      }
    }
    try {
      await insertCalls(this.pool, inspected, this.keep);
      this.counts.written += inspected.length;
      if (this.failing) this.log('inspector: writing calls again');
      this.failing = false;
    } catch (error) {
      this.counts.unwritten += inspected.length;
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
