/**
 * Simulated register activity for the sandbox: new registrations and name, address, director and
 * status changes at a configurable rate on the sandbox clock, so watchlists and the change event search
 * have something to report.
 *
 * - **Slots.** Time is cut into minutes of the sandbox clock. How many events a minute holds (Poisson
 *   with mean `ratePerHour / 60`), when in the minute they happen, what kind each is, which entity it
 *   touches and what it changes all come from keyed randomness of the minute (`keyedUniform`, then a
 *   seeded sfc32 stream per event), never from Math.random: the same walk of the clock over the same
 *   register makes the same changes, whether it is walked in one step or many.
 * - **Cursor.** `nzbn_sandbox_activity.simulated_until` is the end of the interval simulated so far. A
 *   run simulates the events after it up to `now`. The first run only sets it to `now` (no backfill of
 *   the past); a clock moved back moves it back without changes. Each change moves the cursor to its
 *   own instant in its own transaction, so a run that stops half-way neither repeats nor loses an event.
 * - **Cap.** One run makes at most `maxEventsPerRun` events (default 2,000) and looks back at most a
 *   year: after a jump of the clock the most recent events are simulated, the older minutes are
 *   skipped (counted in `skippedSlots` and logged), and the cursor still moves to `now`.
 * - **The same writes as the API.** Every change goes through `updateEntity` (or `registerEntity` for a
 *   registration) with the change builders the API's operations use (store/edits.ts): it keeps the
 *   replaced version, writes the history, moves `lastUpdatedDate` and the ETag and records the change
 *   event, all in one transaction, dated at the event's instant.
 * - **Which entities.** Generated entities (`origin = 'generated'`, found by generator index, so never
 *   a fixture) and the entities the simulator registered itself (`nzbn_sandbox_activity_entities`);
 *   never the fixed test cases, nor entities registered through the API. An entity changed after an
 *   event's instant (by a client, say) is left alone by that event.
 * - Changes, kinds: `NEW` (a sole trader, partnership or trust registered as POST /entities registers
 *   one), `ENTITY_NAME`, `ADDRESS`, `ROLES_DIRECTOR` (companies: a director appointed, resigning or
 *   moving house) and `ENTITY_STATUS` (activity-rules.ts; a company entering an insolvency has its
 *   practitioner appointed, one leaving it has the appointment ended, an entity that closes stops
 *   hibernating, all in the status change with its one change event, so the register keeps its rules,
 *   sandbox/invariants.ts). An event that finds no entity it fits after a few draws is dropped, so a run
 *   makes slightly fewer changes than events.
 *
 * The parts: planning the events (activity-plan.ts, pure), which entities a change fits and the
 * status transitions (activity-rules.ts, pure), the change makers (activity-changes.ts), the
 * registrations (activity-registration.ts) and the SQL of the lock, the cursor and the simulator's
 * entities (../store/sandbox-activity.ts). This file runs them.
 */

import type pg from 'pg';
import { withTransaction } from '../../../platform/db/pool.ts';
import { RuleError } from '../../../platform/errors.ts';
import { type Geography, nzGeography } from '../../../platform/geography.ts';
import type { Random } from '../../../platform/random.ts';
import { isEntityStatusCode, isEntityTypeCode } from '../domain/codes.ts';
import {
  activityCounts,
  advanceCursor,
  entityKind,
  readCursor,
  setCursor,
  simulatedEntityAt,
  tryActivityLock,
} from '../store/sandbox-activity.ts';
import { updateEntity } from '../store/update.ts';
import { makeChange, Skip } from './activity-changes.ts';
import {
  ACTIVITY_KINDS,
  type ActivityKind,
  defaultActivityKey,
  type PlannedEvent,
  planActivity,
} from './activity-plan.ts';
import { registerSimulated } from './activity-registration.ts';
import { fits } from './activity-rules.ts';
import { sandboxDocuments } from './documents.ts';
import { nzbnForIndex } from './numbers.ts';
import { SANDBOX_SEED } from './seed-rows.ts';

export {
  ACTIVITY_KIND_WEIGHTS,
  ACTIVITY_KINDS,
  type ActivityKind,
  type ActivityPlan,
  defaultActivityKey,
  MAX_SLOTS_PER_RUN,
  type PlannedEvent,
  planActivity,
  poisson,
  slotEvents,
} from './activity-plan.ts';
export { newRegistration } from './activity-registration.ts';
export { fits, statusTransitions } from './activity-rules.ts';

export interface ActivityOptions {
  /** Simulated changes per hour of the sandbox clock (on average); 0 simulates nothing. */
  ratePerHour: number;
  /** At most this many events per run (default 2,000); older minutes of a longer interval are skipped. */
  maxEventsPerRun?: number;
  /** Told when a run skips minutes because of the cap. */
  log?: (line: string) => void;
}

export interface ActivityResult {
  /** Changes made (each with its change event). */
  changes: number;
  /** The cursor after the run: everything up to here has been simulated (or skipped). */
  until: Date;
  /** Events drawn for the simulated minutes (an event that finds no fitting entity makes no change). */
  events: number;
  /** Minute slots left out by the cap on one run. */
  skippedSlots: number;
  /** Changes by kind. */
  byKind: Record<ActivityKind, number>;
  /** Another process was running the simulation: this run did nothing. */
  busy?: boolean;
}

export const DEFAULT_MAX_EVENTS_PER_RUN = 2_000;
/** Entities drawn for one event before it is dropped. */
const ATTEMPTS = 12;
/** Share of change events that go to an entity the simulator registered (when there are any). */
const SIMULATED_SHARE = 0.15;

/**
 * Simulates the register's activity for the sandbox-clock interval since the last run, up to `now`.
 * Returns how many changes it made and the new cursor. Runs in one process at a time (a PostgreSQL
 * advisory lock; a second caller meanwhile gets `busy` and does nothing). For the sandbox database.
 */
export async function simulateActivity(
  pool: pg.Pool,
  now: Date,
  options: ActivityOptions,
  keyedUniform: (key: string) => number = defaultActivityKey,
): Promise<ActivityResult> {
  const rate = options.ratePerHour;
  const cap = options.maxEventsPerRun ?? DEFAULT_MAX_EVENTS_PER_RUN;
  if (!Number.isFinite(rate) || rate < 0) throw new RangeError(`ratePerHour must be ≥ 0, got ${rate}`);
  if (!Number.isInteger(cap) || cap < 0) throw new RangeError(`maxEventsPerRun must be an integer ≥ 0`);
  const result: ActivityResult = {
    changes: 0,
    until: now,
    events: 0,
    skippedSlots: 0,
    byKind: Object.fromEntries(ACTIVITY_KINDS.map((kind) => [kind, 0])) as Record<ActivityKind, number>,
  };
  // One transaction holds the run's lock and the cursor; each event commits in its own.
  return withTransaction(pool, async (lock) => {
    const locked = await tryActivityLock(lock);
    const cursor = await readCursor(lock);
    if (!locked) return { ...result, until: cursor ?? now, busy: true };
    if (cursor === undefined || cursor.getTime() >= now.getTime()) {
      // First run: start here, no backfill. A clock moved back: follow it, nothing to simulate.
      await setCursor(lock, now);
      return result;
    }
    const plan = planActivity(cursor.getTime(), now.getTime(), rate, cap, keyedUniform);
    result.events = plan.events.length;
    result.skippedSlots = plan.skippedSlots;
    if (plan.skippedSlots > 0) {
      options.log?.(
        `nzbn sandbox activity: ${plan.skippedSlots.toLocaleString('en-NZ')} minutes of the sandbox clock skipped ` +
          `(at most ${cap.toLocaleString('en-NZ')} events per run); simulated the last ${plan.events.length}`,
      );
    }
    if (plan.events.length > 0) {
      const state = await registerState(pool);
      for (const event of plan.events) {
        if (await runEvent(pool, event, state)) {
          result.changes++;
          result.byKind[event.kind]++;
        }
      }
    }
    await setCursor(lock, now);
    return result;
  });
}

interface RegisterState {
  /** Generated entities are indexes 0 … generated − 1 of the sandbox seed. */
  generated: number;
  /** Entities the simulator registered. */
  simulated: number;
  geography: Geography;
}

async function registerState(pool: pg.Pool): Promise<RegisterState> {
  return { ...(await activityCounts(pool, SANDBOX_SEED)), geography: nzGeography() };
}

async function runEvent(pool: pg.Pool, event: PlannedEvent, state: RegisterState): Promise<boolean> {
  try {
    if (event.kind === 'NEW') {
      await registerSimulated(pool, event, state.geography);
      state.simulated++;
      return true;
    }
    const kind = event.kind;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const nzbn = await drawEntity(pool, event.random, state);
      if (nzbn === undefined) return false;
      const row = await entityKind(pool, nzbn);
      // Never a fixed test case or an entity a client registered (drawEntity cannot give one; belt and braces).
      if (!row || (row.origin !== 'generated' && row.origin !== 'registered')) continue;
      if (!isEntityTypeCode(row.type_code) || !isEntityStatusCode(row.status_code)) continue;
      if (!fits(kind, row.type_code, row.status_code)) continue;
      try {
        const updated = await updateEntity(
          pool,
          sandboxDocuments,
          nzbn,
          new Date(event.at),
          (stored) => {
            if (stored.lastUpdated.getTime() > event.at) throw new Skip('changed after the event');
          },
          async (entity, tools) => {
            if (
              !isEntityStatusCode(entity.entityStatusCode) ||
              !fits(kind, entity.entityTypeCode, entity.entityStatusCode)
            )
              throw new Skip('no longer fits');
            const change = await makeChange(kind, entity, tools, event.random, state.geography);
            await advanceCursor(tools.client, event.at);
            return change;
          },
        );
        if (updated) return true;
      } catch (error) {
        if (!(error instanceof Skip || error instanceof RuleError)) throw error;
      }
    }
    return false;
  } catch (error) {
    if (error instanceof Skip || error instanceof RuleError) return false;
    throw error;
  }
}

/** A generated entity by index, or now and then one the simulator registered. */
async function drawEntity(pool: pg.Pool, random: Random, state: RegisterState): Promise<string | undefined> {
  const fromSimulated = state.simulated > 0 && (state.generated === 0 || random.chance(SIMULATED_SHARE));
  if (fromSimulated) {
    const offset = random.int(0, state.simulated - 1);
    return simulatedEntityAt(pool, offset);
  }
  if (state.generated === 0) return undefined;
  return nzbnForIndex(random.int(0, state.generated - 1));
}
