import type { ServerResponse } from 'node:http';
import type pg from 'pg';
import { DATABASE_RETRY_AFTER_SECONDS } from '../db/faults.ts';
import { holdListeners, releaseListeners } from '../db/notice-listener.ts';
import type { ChangeFeed } from '../db/notify.ts';
import { advisoryLockFree, type Database } from '../db/pool.ts';
import { PLATFORM_ERRORS } from '../http/error-codes.ts';
import { HttpError } from '../http/errors.ts';
import { SANDBOX_STATES_LOCK } from './names.ts';

/**
 * One process's part in a sandbox reset, snapshot or restore (states.ts runs them): on `pause` it stops
 * admitting sandbox requests (they wait for the sandbox, or get a 503), lets the requests and jobs in
 * flight finish (for at most the grace), then lets go of the sandbox database — its pool refuses
 * connections and closes its idle ones, and the notice listeners on it stop (their caches empty). On
 * `resume` it takes the database up again, drops what it keeps of it in memory (`Database.onReplaced`),
 * runs the hooks (the clock read again, the rate-limit counters forgotten, the jobs started again) and
 * admits requests. Every process serving the sandbox hears both on the change feed; the process that
 * runs the operation also calls them directly.
 */
export interface PauseHooks {
  /** What to stop before the database goes (bounded by the grace: the pause goes on after it). */
  pause?(): Promise<void>;
  /** What to start again once it is back. */
  resume?(): Promise<void>;
}

export interface ParticipantOptions {
  database: Database;
  /** The gateway database: whether the operation still runs (its advisory lock) when a notice is missed. */
  gateway: pg.Pool;
  /** How long requests and jobs in flight may take to finish before the database is let go of. */
  graceMs: number;
  /** How long a request that arrives during the pause waits for the sandbox before it is answered 503. */
  waitMs: number;
  /** While paused, how often to check that the operation still runs (a resume notice may be missed). */
  checkMs?: number;
  log?(message: string, error?: unknown): void;
}

/** The 503 a sandbox request gets when the sandbox is not back within the wait: in the API's dialect. */
export function sandboxPausedError(): HttpError {
  return new HttpError(
    PLATFORM_ERRORS.serviceUnavailable,
    `The sandbox is being reset or restored. Try again in ${DATABASE_RETRY_AFTER_SECONDS} seconds.`,
    [],
    { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
  );
}

const until = (deadline: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now())).unref());

export class SandboxParticipant {
  /** The operation that paused the sandbox here, while it is paused. */
  private pausedBy: string | undefined;
  private reopened: { promise: Promise<void>; open(): void } | undefined;
  /** Operations already over here: a late pause notice of one is not a new pause. */
  private readonly finished = new Set<string>();
  private inFlight = 0;
  private readonly drainWaiters = new Set<() => void>();
  private readonly hooks = new Set<PauseHooks>();
  private steps: Promise<void> = Promise.resolve();
  private checking: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: ParticipantOptions) {}

  /** Whether sandbox requests are admitted now (read on every sandbox request). */
  get open(): boolean {
    return this.pausedBy === undefined;
  }

  /** Counts a sandbox request in flight until its response's connection closes (answered or gone). */
  enter(response: ServerResponse): void {
    this.inFlight++;
    response.once('close', this.leave);
  }

  private readonly leave = (): void => {
    this.inFlight--;
    if (this.inFlight === 0) for (const waiter of this.drainWaiters) waiter();
  };

  /** Resolves true once sandbox requests are admitted again, false when the wait ran out first. */
  async whenOpen(): Promise<boolean> {
    if (this.open) return true;
    const reopened = this.reopened?.promise;
    await Promise.race([reopened, until(Date.now() + this.options.waitMs)]);
    return this.open;
  }

  /** Adds hooks run at every pause and resume (in the order added); returns their removal. */
  add(hooks: PauseHooks): () => void {
    this.hooks.add(hooks);
    return () => this.hooks.delete(hooks);
  }

  /** Pauses and resumes on the change feed's sandbox notices; returns the function that stops it. */
  listen(feed: ChangeFeed): () => void {
    return feed.on((notice) => {
      if (notice.kind !== 'sandbox') return;
      if (notice.phase === 'pause') void this.pause(notice.id);
      else void this.resume(notice.id);
    });
  }

  /** Pauses for operation `id` (nothing when paused already, or when `id` is over). */
  pause(id: string): Promise<void> {
    return this.step(async () => {
      if (this.closed || this.finished.has(id)) return;
      if (this.pausedBy !== undefined) {
        this.pausedBy = id;
        return;
      }
      this.pausedBy = id;
      let open = () => {};
      const promise = new Promise<void>((resolve) => {
        open = resolve;
      });
      this.reopened = { promise, open };
      this.watchOperation();
      const deadline = Date.now() + this.options.graceMs;
      await Promise.all([
        this.drained(deadline),
        ...[...this.hooks].map((hooks) =>
          Promise.race([
            Promise.resolve(hooks.pause?.()).catch((error) => this.options.log?.('pausing failed', error)),
            until(deadline),
          ]),
        ),
      ]);
      this.options.database.suspend('the sandbox is being reset or restored');
      holdListeners(this.options.database.url);
    });
  }

  /** Resumes (nothing when not paused). `id`, when given, is remembered as over. */
  resume(id?: string): Promise<void> {
    if (id) this.remember(id);
    return this.step(async () => {
      if (this.pausedBy === undefined) return;
      this.remember(this.pausedBy);
      const { database } = this.options;
      database.resume();
      releaseListeners(database.url);
      database.replaced();
      for (const hooks of this.hooks) {
        await Promise.resolve(hooks.resume?.()).catch((error) =>
          this.options.log?.('resuming failed', error),
        );
      }
      this.pausedBy = undefined;
      if (this.checking) clearInterval(this.checking);
      this.checking = undefined;
      this.reopened?.open();
      this.reopened = undefined;
    });
  }

  /** Resumes when paused, and pauses no more (the process is shutting down). */
  async close(): Promise<void> {
    await this.resume();
    this.closed = true;
  }

  private remember(id: string): void {
    this.finished.add(id);
    if (this.finished.size > 32) this.finished.delete(this.finished.values().next().value!);
  }

  /** Runs pauses and resumes one after the other. */
  private step(work: () => Promise<void>): Promise<void> {
    const next = this.steps.then(work);
    this.steps = next.catch((error) => this.options.log?.('sandbox pause step failed', error));
    return next;
  }

  private drained(deadline: number): Promise<void> {
    if (this.inFlight <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.drainWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
      this.drainWaiters.add(done);
    });
  }

  /**
   * While paused, checks now and then that the operation still holds its lock: should the resume
   * notice be missed (the change feed reconnecting), the sandbox comes back once the operation is over.
   */
  private watchOperation(): void {
    this.checking = setInterval(() => {
      advisoryLockFree(this.options.gateway, SANDBOX_STATES_LOCK).then(
        (free) => {
          if (free && this.pausedBy !== undefined) void this.resume();
        },
        () => {},
      );
    }, this.options.checkMs ?? 1_000);
    this.checking.unref();
  }
}
