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
  /** How often the captured calls are written (ms); 0: only when `flush` is called. */
  flushEveryMs?: number;
  /** Calls held in memory at most; a call captured while it is full is dropped and counted. */
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
  /** Calls dropped: the buffer was full, or their batch could not be written. */
  dropped: number;
  /** Calls waiting in memory now. */
  waiting: number;
}

/**
 * The request inspector's writer. `capture` is all a call pays: one push onto a bounded buffer (a call
 * captured while it is full is dropped and counted, never waited for). Every second the buffer is
 * redacted (domain/inspector.ts) and written in one statement, and the subscriptions it touched trimmed
 * to their newest 500; once a minute calls older than 24 hours go. A batch the database refuses is
 * dropped and counted (the inspector is a debugging aid: it never holds memory for a database that is
 * away), and a database fault never ends the process.
 */
export class Inspector {
  private buffer: CapturedCall[] = [];
  private readonly capacity: number;
  private readonly keep: number;
  private readonly retentionMs: number;
  private readonly now: () => number;
  private readonly log: (message: string, error?: unknown) => void;
  private readonly timers: NodeJS.Timeout[] = [];
  private writing: Promise<void> = Promise.resolve();
  private failing = false;
  private counts = { written: 0, dropped: 0 };

  constructor(
    private readonly pool: Pool,
    options: InspectorOptions = {},
  ) {
    this.capacity = options.capacity ?? 5_000;
    this.keep = options.keep ?? CALLS_PER_SUBSCRIPTION;
    this.retentionMs = options.retentionMs ?? RETENTION_MS;
    this.now = options.now ?? Date.now;
    this.log = options.log ?? (() => {});
    const every = (ms: number, run: () => Promise<unknown>) => {
      const timer = setInterval(() => void run().catch(() => {}), ms);
      timer.unref();
      this.timers.push(timer);
    };
    const flushEveryMs = options.flushEveryMs ?? 1_000;
    if (flushEveryMs > 0) {
      every(flushEveryMs, () => this.flush());
      every(options.sweepEveryMs ?? 60_000, () => this.sweep());
    }
  }

  /** Keeps a call for the next write: one push, or a count when the buffer is full. */
  capture(call: CapturedCall): void {
    if (this.buffer.length >= this.capacity) {
      this.counts.dropped++;
      return;
    }
    this.buffer.push(call);
  }

  stats(): InspectorCounts {
    return { ...this.counts, waiting: this.buffer.length };
  }

  /** Writes what was captured until now, in batches of at most 500 (one write at a time: a flush asked for during one follows it). */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.drain());
    return this.writing;
  }

  private async drain(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.length <= BATCH ? this.buffer : this.buffer.splice(0, BATCH);
      if (batch === this.buffer) this.buffer = [];
      await this.write(batch);
    }
  }

  private async write(batch: CapturedCall[]): Promise<void> {
    const inspected: InspectedCall[] = [];
    for (const call of batch) {
      try {
        inspected.push(inspect(call));
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
