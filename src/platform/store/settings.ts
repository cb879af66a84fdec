/**
 * The SQL of `settings` (gateway database): values the server keeps for itself, by name — the keyed
 * random secret (runtime.ts) and the first-start marker (gateway/operations/bootstrap.ts).
 */
import type { Pool, PoolClient } from 'pg';

type Queryable = Pool | PoolClient;

/** The value kept under `name`: `value` if there was none yet (two processes starting at once agree). */
export async function keptSetting(db: Queryable, name: string, value: string): Promise<string> {
  await db.query('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    name,
    value,
  ]);
  const result = await db.query<{ value: string }>('SELECT value FROM settings WHERE name = $1', [name]);
  return result.rows[0]!.value;
}

/** Keeps `value` under `name`, replacing what was there. */
export async function writeSetting(db: Queryable, name: string, value: string): Promise<void> {
  await db.query(
    `INSERT INTO settings (name, value) VALUES ($1, $2)
     ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [name, value],
  );
}

export async function hasSetting(db: Queryable, name: string): Promise<boolean> {
  return ((await db.query('SELECT 1 FROM settings WHERE name = $1', [name])).rowCount ?? 0) > 0;
}
