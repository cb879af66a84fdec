/**
 * Each environment's clock as the gateway database keeps it (store/environment-clocks.ts): read, moved
 * and frozen, every change announced on the change feed; `Clocks`, what a running process reads.
 */
import type { Pool, PoolClient } from 'pg';
import {
  addDuration,
  type Clock,
  type ClockMode,
  realClock,
  VirtualClock,
  type VirtualState,
} from './clock.ts';
import { type ChangeFeed, publish } from './db/notify.ts';
import { withTransaction } from './db/pool.ts';
import {
  clockRow,
  freezeClockRow,
  lockClockRow,
  type ClockRow as Row,
  setClockMode,
  updateClockRow,
} from './store/environment-clocks.ts';

export interface ClockReading {
  environment: string;
  mode: ClockMode;
  now: Date;
  offsetMs: number;
  frozen: boolean;
}

export class ClockError extends Error {}

async function readRow(pool: Pool | PoolClient, environment: string): Promise<Row> {
  const row = await clockRow(pool, environment);
  if (!row) throw new ClockError(`unknown environment "${environment}"`);
  return row;
}

const toState = (row: Row): VirtualState => ({ offsetMs: Number(row.offset_ms), frozenAt: row.frozen_at });

function reading(environment: string, row: Row): ClockReading {
  const clock = new VirtualClock(toState(row));
  return {
    environment,
    mode: row.mode,
    now: row.mode === 'virtual' ? clock.now() : new Date(),
    offsetMs: Number(row.offset_ms),
    frozen: row.frozen_at !== null,
  };
}

export async function readClock(pool: Pool | PoolClient, environment: string): Promise<ClockReading> {
  return reading(environment, await readRow(pool, environment));
}

/** Production is always real time; only a virtual sandbox clock moves. */
async function moveClock(
  pool: Pool,
  environment: string,
  target: (now: Date) => Date,
): Promise<ClockReading> {
  return withTransaction(pool, async (client) => {
    const row = await lockClockRow(client, environment);
    if (!row) throw new ClockError(`unknown environment "${environment}"`);
    if (row.mode !== 'virtual') {
      throw new ClockError(
        environment === 'production'
          ? 'the production clock is real time and cannot be moved'
          : 'the sandbox clock is real time: start the gateway with RSG_SANDBOX_CLOCK=virtual to move it',
      );
    }
    const current = new VirtualClock(toState(row)).now();
    const next = target(current);
    const updated: Row =
      row.frozen_at !== null
        ? { ...row, frozen_at: next }
        : { ...row, offset_ms: Number(row.offset_ms) + (next.getTime() - current.getTime()) };
    await updateClockRow(client, environment, { offsetMs: updated.offset_ms, frozenAt: updated.frozen_at });
    await publish(client, { kind: 'clock', environment });
    return reading(environment, updated);
  });
}

/** The latest time a clock may show: `set` takes four-digit years, and `advance` stops there too. */
export const LATEST_CLOCK_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export function advanceClock(pool: Pool, environment: string, duration: string): Promise<ClockReading> {
  return moveClock(pool, environment, (now) => {
    const target = addDuration(now, duration);
    if (target.getTime() < now.getTime())
      throw new ClockError('advance moves the clock forward only; use set');
    // A date cannot hold it (NaN), or past what `set` takes (four-digit years): refused, nothing written.
    if (!Number.isFinite(target.getTime()) || target.getTime() > LATEST_CLOCK_TIME) {
      throw new RangeError(
        `"${duration}" moves the clock past 9999-12-31T23:59:59.999Z, the latest time it can show`,
      );
    }
    return target;
  });
}

export function setClock(pool: Pool, environment: string, iso: string): Promise<ClockReading> {
  const time = Date.parse(iso);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(iso) || Number.isNaN(time)) {
    throw new ClockError(`"${iso}" is not an ISO 8601 date-time such as 2026-11-22T09:00:00Z`);
  }
  return moveClock(pool, environment, () => new Date(time));
}

/**
 * Stops a virtual clock at `iso`: it shows that instant until moved (`set` and `advance` move a frozen
 * clock and keep it frozen). The response-example recorder uses it, so answers that show "now" repeat.
 */
export async function freezeClock(pool: Pool, environment: string, iso: string): Promise<ClockReading> {
  await setClock(pool, environment, iso);
  await withTransaction(pool, async (client) => {
    await freezeClockRow(client, environment, new Date(iso));
    await publish(client, { kind: 'clock', environment });
  });
  return readClock(pool, environment);
}

/**
 * Puts a clock back at a reading kept earlier (a sandbox state's: platform/sandbox/), in `tx`, and
 * announces it: a virtual clock shows `at` from now on (frozen there when it was frozen); a real-time
 * clock has nothing to move, and is left at real time.
 */
export async function restoreClockReading(
  tx: PoolClient,
  environment: string,
  reading: { at: Date; frozen: boolean },
): Promise<void> {
  const row = await lockClockRow(tx, environment);
  if (!row) throw new ClockError(`unknown environment "${environment}"`);
  const state =
    row.mode === 'virtual'
      ? { offsetMs: reading.at.getTime() - Date.now(), frozenAt: reading.frozen ? reading.at : null }
      : { offsetMs: 0, frozenAt: null };
  await updateClockRow(tx, environment, state);
  await publish(tx, { kind: 'clock', environment });
}

/**
 * The clocks of a running gateway: the sandbox clock follows the database row, reloaded when another
 * process (the CLI, the admin route of another worker) moves it.
 */
export class Clocks {
  private readonly sandbox = new VirtualClock();
  private sandboxMode: ClockMode = 'real';
  private readonly moved = new Set<() => void>();

  constructor(private readonly pool: Pool) {}

  /** Called after the sandbox clock was moved (by any process) and this process has the new reading. */
  onSandboxMoved(handler: () => void): () => void {
    this.moved.add(handler);
    return () => this.moved.delete(handler);
  }

  /** `mode` undefined keeps the mode in the database (a process joining a running gateway). */
  async start(mode: ClockMode | undefined, feed?: ChangeFeed): Promise<void> {
    if (mode) {
      await setClockMode(this.pool, 'sandbox', mode);
    }
    await this.reload();
    feed?.on((notice) => {
      if (notice.kind === 'reset' || (notice.kind === 'clock' && notice.environment === 'sandbox')) {
        this.reload()
          .then(() => {
            for (const handler of this.moved) handler();
          })
          .catch(() => {});
      }
    });
  }

  async reload(): Promise<void> {
    const row = await readRow(this.pool, 'sandbox');
    this.sandboxMode = row.mode;
    this.sandbox.replace(toState(row));
  }

  for(environment: 'sandbox' | 'production'): Clock {
    if (environment === 'production') return realClock;
    return { now: () => (this.sandboxMode === 'virtual' ? this.sandbox.now() : new Date()) };
  }
}
