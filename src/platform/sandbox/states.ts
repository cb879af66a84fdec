import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { type Clock, realClock } from '../clock.ts';
import {
  closeDatabase,
  copyDatabase,
  databaseExists,
  databasesNamed,
  dropDatabaseNamed,
  reopenDatabase,
  sessionsEnded,
  swapDatabases,
} from '../db/databases.ts';
import { type MigrationSource, migrate, migrationsFingerprint } from '../db/migrations.ts';
import { publish } from '../db/notify.ts';
import { ensureDatabase, openDatabase, withSessionLock, withTransaction } from '../db/pool.ts';
import { databaseName, withDatabase } from '../db/urls.ts';
import { type ClockReading, readClock, restoreClockReading } from '../environment-clocks.ts';
import { environmentMail, replaceEnvironmentMail } from '../store/mail-outbox.ts';
import {
  forgetState,
  type KeptState,
  keepState,
  keptMail,
  keptState,
  keptStates,
} from '../store/sandbox-states.ts';
import { StateFolders } from './folders.ts';
import {
  keptDatabaseName,
  keptDatabasePrefix,
  SANDBOX_STATES_LOCK,
  SNAPSHOT_NAME,
  SNAPSHOT_NAME_RULE,
  seedFingerprint,
  seedStateName,
} from './names.ts';
import type { SandboxParticipant } from './participant.ts';

/**
 * The sandbox's reset, snapshots and restores (docs/operations.md, "Sandbox reset and snapshots").
 *
 * A kept state is a template database: a copy of the sandbox database, closed to connections, beside
 * it on its server, with what of the sandbox the gateway database keeps (the clock's reading, the
 * sandbox's mail) in `sandbox_states`. The seeded state is one (made after the first seed, and again
 * when the migrations, the generators or the scale change); each snapshot is one.
 *
 * Putting a state back: its template is copied to a new database first (`CREATE DATABASE … TEMPLATE`,
 * while the sandbox serves on); then every process serving the sandbox is paused (participant.ts: the
 * requests and jobs in flight finish, the pools and listeners let go), the sandbox database is closed
 * and emptied of sessions, the copy takes its name in one transaction, the clock and the mail are put
 * back and every process resumes, in one transaction of the gateway database. Keeping a state pauses
 * the same way, for the copy of the sandbox database (nobody may be connected to a template). Every
 * operation holds one advisory lock, so they run one at a time. The production database is never named.
 */
export interface SandboxStatesOptions {
  /** The sandbox database (its server also holds the kept states' databases). */
  sandboxUrl: string;
  /** The gateway database: its address (the operations' lock) and a pool of it. */
  gatewayUrl: string;
  gateway: pg.Pool;
  /** The environment migrations: a fresh seed is migrated with them; an older snapshot is brought up. */
  migrations: MigrationSource[];
  /** The sandbox generators' folders: their files are part of the seeded state's fingerprint. */
  generators: readonly string[];
  /**
   * The registers' document roots (documents/location.ts): the sandbox database's folder under each is
   * kept and put back with it (folders.ts).
   */
  documentRoots?: readonly string[];
  /** Seeds the sandbox registers into the (migrated, empty) database at `url`, on `clock`. */
  seed(url: string, scale: string, clock: Clock): Promise<void>;
  /** This process's participant, paused and resumed directly (others hear the change feed). */
  participant?: SandboxParticipant | undefined;
  /** What else a reset or restore covers outside the databases (the sandbox's rate-limit counters). */
  afterReplace?(): Promise<void>;
  /** How long processes may take to let go of the sandbox before their sessions are ended. */
  graceMs: number;
  log?(line: string): void;
}

export class SandboxStateError extends Error {
  constructor(
    readonly kind: 'invalid-name' | 'no-such-snapshot',
    message: string,
  ) {
    super(message);
    this.name = 'SandboxStateError';
  }
}

/** A snapshot as listed. */
export interface SnapshotSummary {
  name: string;
  createdAt: Date;
  /** The sandbox clock's reading when it was kept, and whether it was frozen. */
  clockAt: Date;
  clockFrozen: boolean;
}

/** What a reset or restore did. */
export interface Replacement {
  /** `seed:<scale>` or the snapshot's name. */
  state: string;
  /** Whether the seeded state had to be made first (a fresh seed: as long as a seed takes). */
  seeded: boolean;
  /** From the call to the sandbox serving again. */
  tookMs: number;
  /** How long sandbox requests were held (the pause). */
  pausedMs: number;
  clock: ClockReading;
}

const summary = (state: KeptState): SnapshotSummary => ({
  name: state.name,
  createdAt: state.createdAt,
  clockAt: state.clockAt,
  clockFrozen: state.clockFrozen,
});

export class SandboxStates {
  private readonly live: string;
  private readonly folders: StateFolders;
  /**
   * Databases dropped after an operation answered (the old sandbox database, a replaced state's): a
   * database that was written to takes a while to drop, and the sandbox is serving again by then.
   */
  private cleanup: Promise<void> = Promise.resolve();

  constructor(private readonly options: SandboxStatesOptions) {
    this.live = databaseName(options.sandboxUrl);
    this.folders = new StateFolders(options.documentRoots ?? []);
  }

  /** Returns the sandbox to its seeded state of `scale` (made first when missing or out of date). */
  reset(scale: string, options: { reseed?: boolean } = {}): Promise<Replacement> {
    const started = Date.now();
    return this.locked(async () => {
      const { state, made } = await this.seededState(scale, options.reseed === true);
      return { ...(await this.replaceLive(state, started)), seeded: made };
    });
  }

  /** Keeps the sandbox as it is now under `name` (replacing a snapshot of that name). */
  async snapshot(name: string): Promise<SnapshotSummary> {
    checkName(name);
    return this.locked(async () => {
      await this.keepLive(name, 'snapshot', await this.migrationsFingerprint());
      return summary((await keptState(this.options.gateway, name))!);
    });
  }

  /** Puts the sandbox back as it was when `name` was kept. */
  async restore(name: string): Promise<Replacement> {
    checkName(name);
    const started = Date.now();
    return this.locked(async () => {
      const state = await keptState(this.options.gateway, name);
      if (state?.kind !== 'snapshot') throw noSuchSnapshot(name);
      return { ...(await this.replaceLive(state, started)), seeded: false };
    });
  }

  /** Resolves once the databases left to drop after the last operations are dropped. */
  settled(): Promise<void> {
    return this.cleanup;
  }

  async snapshots(): Promise<SnapshotSummary[]> {
    return (await keptStates(this.options.gateway, 'snapshot')).map(summary);
  }

  /** Deletes a snapshot; false when there is none of that name. */
  async delete(name: string): Promise<boolean> {
    checkName(name);
    return this.locked(async () => {
      const state = await keptState(this.options.gateway, name);
      if (state?.kind !== 'snapshot') return false;
      await forgetState(this.options.gateway, name);
      await dropDatabaseNamed(this.options.sandboxUrl, state.database);
      await this.folders.drop(state.database);
      return true;
    });
  }

  /**
   * Keeps the sandbox as it is now as its seeded state of `scale`, unless an up-to-date one is kept:
   * right after the first seed of a new sandbox database (`rsg start`), which saves seeding twice.
   */
  keepSeeded(scale: string): Promise<boolean> {
    return this.locked(async () => {
      const fingerprint = await this.seedFingerprint(scale);
      if (await this.current(seedStateName(scale), fingerprint)) return false;
      await this.keepLive(seedStateName(scale), 'seed', fingerprint);
      return true;
    });
  }

  /** Makes the seeded state of `scale` when it is missing or out of date; true when it was made. */
  prepareSeed(scale: string, options: { reseed?: boolean } = {}): Promise<boolean> {
    return this.locked(async () => (await this.seededState(scale, options.reseed === true)).made);
  }

  private async migrationsFingerprint(): Promise<string> {
    return migrationsFingerprint(this.options.migrations);
  }

  private async seedFingerprint(scale: string): Promise<string> {
    return seedFingerprint(await this.migrationsFingerprint(), this.options.generators, scale);
  }

  /** The kept state `name` when its fingerprint is `fingerprint` and its database is there. */
  private async current(name: string, fingerprint: string): Promise<KeptState | undefined> {
    const state = await keptState(this.options.gateway, name);
    if (!state || state.fingerprint !== fingerprint) return undefined;
    return (await databaseExists(this.options.sandboxUrl, state.database)) ? state : undefined;
  }

  /** The seeded state of `scale`, made from a fresh seed when missing, out of date or asked for. */
  private async seededState(scale: string, reseed: boolean): Promise<{ state: KeptState; made: boolean }> {
    const { sandboxUrl, gateway } = this.options;
    const name = seedStateName(scale);
    const fingerprint = await this.seedFingerprint(scale);
    const kept = reseed ? undefined : await this.current(name, fingerprint);
    if (kept) return { state: kept, made: false };
    const database = keptDatabaseName(this.live, 'seed');
    const url = withDatabase(sandboxUrl, database);
    this.options.log?.(`making the sandbox's seeded state (${scale}) from a fresh seed`);
    const clockAt = realClock.now();
    try {
      await ensureDatabase(url);
      const target = openDatabase(url, 2);
      try {
        await migrate(target.pool, this.options.migrations);
      } finally {
        await target.close();
      }
      // Files a seed writes go to the new database's folders (documents/location.ts): its state's.
      await this.folders.drop(database);
      await this.options.seed(url, scale, realClock);
      await closeDatabase(sandboxUrl, database);
    } catch (error) {
      await dropDatabaseNamed(sandboxUrl, database).catch(() => {});
      await this.folders.drop(database).catch(() => {});
      throw error;
    }
    const previous = await keptState(gateway, name);
    await withTransaction(gateway, (tx) =>
      keepState(tx, { name, kind: 'seed', database, fingerprint, clockAt, clockFrozen: false, mail: [] }),
    );
    if (previous) this.dropLater(previous.database);
    return { state: (await keptState(gateway, name))!, made: true };
  }

  /** Copies the sandbox database as it is now into a kept state (every process paused meanwhile). */
  private async keepLive(name: string, kind: KeptState['kind'], fingerprint: string): Promise<void> {
    const { sandboxUrl, gateway } = this.options;
    const database = keptDatabaseName(this.live, kind === 'seed' ? 'seed' : 'snap');
    const previous = await keptState(gateway, name);
    await this.paused(
      async () => {
        await closeDatabase(sandboxUrl, this.live);
        try {
          await copyDatabase(sandboxUrl, this.live, database, { connectable: false });
          await this.folders.copy(this.live, database);
        } finally {
          await reopenDatabase(sandboxUrl, this.live);
        }
      },
      async (tx) => {
        const clock = await readClock(tx, 'sandbox');
        const mail = await environmentMail(tx, 'sandbox');
        await keepState(tx, {
          name,
          kind,
          database,
          fingerprint,
          clockAt: clock.now,
          clockFrozen: clock.frozen,
          mail,
        });
      },
    ).catch(async (error: unknown) => {
      await dropDatabaseNamed(sandboxUrl, database).catch(() => {});
      await this.folders.drop(database).catch(() => {});
      throw error;
    });
    if (previous) this.dropLater(previous.database);
  }

  /** Puts a kept state in the place of the sandbox database, with its clock and mail. */
  private async replaceLive(state: KeptState, started: number): Promise<Omit<Replacement, 'seeded'>> {
    const { sandboxUrl, gateway } = this.options;
    const next = keptDatabaseName(this.live, 'next');
    const retired = keptDatabaseName(this.live, 'old');
    await copyDatabase(sandboxUrl, state.database, next, { connectable: true });
    let pausedMs = 0;
    try {
      await this.folders.copy(state.database, next);
      if (state.kind === 'snapshot' && state.fingerprint !== (await this.migrationsFingerprint())) {
        // Kept under earlier migrations: the copy is brought up before it serves.
        const copy = openDatabase(withDatabase(sandboxUrl, next), 2);
        try {
          await migrate(copy.pool, this.options.migrations);
        } finally {
          await copy.close();
        }
      }
      const mail = await keptMail(gateway, state.name);
      const pauseStarted = Date.now();
      await this.paused(
        async () => {
          await closeDatabase(sandboxUrl, this.live);
          try {
            await swapDatabases(sandboxUrl, { live: this.live, replacement: next, retired });
          } catch (error) {
            await reopenDatabase(sandboxUrl, this.live);
            throw error;
          }
          // The database is the state now: its files follow (a failure is logged, the rest goes on).
          await this.folders
            .swap({ live: this.live, replacement: next, retired })
            .catch((error: unknown) =>
              this.options.log?.(
                `the sandbox's document folders were not replaced: ${(error as Error).message}`,
              ),
            );
        },
        async (tx) => {
          await restoreClockReading(tx, 'sandbox', { at: state.clockAt, frozen: state.clockFrozen });
          await replaceEnvironmentMail(tx, 'sandbox', mail);
        },
      );
      pausedMs = Date.now() - pauseStarted;
    } catch (error) {
      await dropDatabaseNamed(sandboxUrl, next).catch(() => {});
      await this.folders.drop(next).catch(() => {});
      throw error;
    }
    const tookMs = Date.now() - started;
    this.dropLater(retired);
    await this.options.afterReplace?.();
    return { state: state.name, tookMs, pausedMs, clock: await readClock(gateway, 'sandbox') };
  }

  /**
   * Runs `work` while every process serving the sandbox is paused: the pause is announced, this
   * process's participant pauses, and the others are waited for (they let go of the database) for at
   * most the grace and a second; their sessions are then ended by `work`'s `closeDatabase`. `record`
   * runs in the gateway transaction that announces the resume, so processes resume on what it wrote.
   */
  private async paused(
    work: () => Promise<void>,
    record: (tx: pg.PoolClient) => Promise<void>,
  ): Promise<void> {
    const { gateway, participant, sandboxUrl, graceMs } = this.options;
    const id = randomUUID();
    await publish(gateway, { kind: 'sandbox', phase: 'pause', id });
    let resumed = false;
    try {
      await participant?.pause(id);
      await sessionsEnded(sandboxUrl, this.live, Date.now() + graceMs + 1_000);
      await work();
      await withTransaction(gateway, async (tx) => {
        await record(tx);
        await publish(tx, { kind: 'sandbox', phase: 'resume', id });
      });
      resumed = true;
    } finally {
      if (!resumed) await publish(gateway, { kind: 'sandbox', phase: 'resume', id }).catch(() => {});
      await participant?.resume(id);
    }
  }

  /**
   * Runs `work` holding the advisory lock of these operations, after dropping the databases a crashed
   * operation left behind (named like the sandbox's own, and no kept state's).
   */
  private locked<T>(work: () => Promise<T>): Promise<T> {
    return withSessionLock(this.options.gatewayUrl, SANDBOX_STATES_LOCK, async () => {
      await this.cleanup;
      await this.dropLeftovers();
      return work();
    });
  }

  private dropLater(database: string): void {
    // A state whose database is not named after this sandbox is shared (the test harness's template
    // holds the seeded state every harness's copy names): not this sandbox's to drop.
    if (!database.startsWith(keptDatabasePrefix(this.live))) return;
    this.cleanup = this.cleanup
      .then(() => dropDatabaseNamed(this.options.sandboxUrl, database))
      .then(() => this.folders.drop(database))
      .catch((error: unknown) =>
        // The next operation drops it (dropLeftovers).
        this.options.log?.(`could not drop ${database} yet: ${(error as Error).message}`),
      );
  }

  private async dropLeftovers(): Promise<void> {
    const { sandboxUrl, gateway } = this.options;
    const kept = new Set((await keptStates(gateway)).map((state) => state.database));
    for (const database of await databasesNamed(sandboxUrl, keptDatabasePrefix(this.live))) {
      if (!kept.has(database)) await dropDatabaseNamed(sandboxUrl, database);
    }
    await this.folders.dropLeftovers(keptDatabasePrefix(this.live), kept);
  }
}

function checkName(name: string): void {
  if (!SNAPSHOT_NAME.test(name)) {
    throw new SandboxStateError('invalid-name', `name: ${SNAPSHOT_NAME_RULE}`);
  }
}

const noSuchSnapshot = (name: string) =>
  new SandboxStateError('no-such-snapshot', `there is no snapshot named "${name}"`);
