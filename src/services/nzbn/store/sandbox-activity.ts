/**
 * The SQL of the sandbox's simulated activity (sandbox/activity.ts, migration 005): the run's lock, the
 * cursor (`nzbn_sandbox_activity.simulated_until`), the size of the register it draws from, and the
 * entities the simulator registered (`nzbn_sandbox_activity_entities`). The changes themselves are
 * written by the update and registration transactions (update.ts, register.ts).
 */
import type pg from 'pg';

type Queryable = pg.Pool | pg.PoolClient;

const LOCK_NAME = 'rsg:nzbn:sandbox-activity';

/** Takes the run's transaction-level advisory lock; false when another process holds it. */
export async function tryActivityLock(client: pg.PoolClient): Promise<boolean> {
  const locked = await client.query<{ locked: boolean }>(
    'SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked',
    [LOCK_NAME],
  );
  return locked.rows[0]!.locked;
}

/** The end of the interval simulated so far; undefined before the first run. */
export async function readCursor(client: pg.PoolClient): Promise<Date | undefined> {
  const rows = await client.query<{ until: Date }>(
    'SELECT simulated_until AS until FROM nzbn_sandbox_activity WHERE id',
  );
  return rows.rows[0]?.until;
}

export async function setCursor(client: pg.PoolClient, until: Date): Promise<void> {
  await client.query(
    `INSERT INTO nzbn_sandbox_activity (id, simulated_until) VALUES (true, $1)
     ON CONFLICT (id) DO UPDATE SET simulated_until = EXCLUDED.simulated_until`,
    [until],
  );
}

/** Moves the cursor to an event's instant, in the event's own transaction. */
export async function advanceCursor(client: pg.PoolClient, at: number): Promise<void> {
  await client.query(
    'UPDATE nzbn_sandbox_activity SET simulated_until = $1 WHERE id AND simulated_until < $1',
    [new Date(at)],
  );
}

export interface ActivityCounts {
  /** Entities generated from `seed` (indexes 0 … generated − 1). */
  generated: number;
  /** Entities the simulator registered. */
  simulated: number;
}

export async function activityCounts(pool: Queryable, seed: string): Promise<ActivityCounts> {
  const counts = await pool.query<ActivityCounts>(
    `SELECT (SELECT COALESCE(sum(entities), 0)::int FROM nzbn_seed_chunks WHERE seed = $1) AS generated,
            (SELECT count(*)::int FROM nzbn_sandbox_activity_entities) AS simulated`,
    [seed],
  );
  return counts.rows[0]!;
}

/** The business number of the simulator's `offset`-th registration (in number order). */
export async function simulatedEntityAt(pool: Queryable, offset: number): Promise<string | undefined> {
  const rows = await pool.query<{ nzbn: string }>(
    'SELECT nzbn FROM nzbn_sandbox_activity_entities ORDER BY nzbn OFFSET $1 LIMIT 1',
    [offset],
  );
  return rows.rows[0]?.nzbn;
}

export interface EntityKind {
  origin: string;
  type_code: string;
  status_code: string;
}

/** Where an entity came from, its type and status; undefined when the register does not hold it. */
export async function entityKind(pool: Queryable, nzbn: string): Promise<EntityKind | undefined> {
  const found = await pool.query<EntityKind>(
    'SELECT origin, type_code, status_code FROM nzbn_entities WHERE nzbn = $1',
    [nzbn],
  );
  return found.rows[0];
}

/** Notes an entity the simulator registered (in the registration's transaction). */
export async function recordSimulatedEntity(client: pg.PoolClient, nzbn: string, at: Date): Promise<void> {
  await client.query('INSERT INTO nzbn_sandbox_activity_entities (nzbn, registered_at) VALUES ($1, $2)', [
    nzbn,
    at,
  ]);
}
