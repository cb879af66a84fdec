/**
 * The SQL of `sandbox_states` (gateway database): the sandbox's kept states — its seeded state and the
 * operators' named snapshots — each with the template database that holds it. What they are for is
 * platform/sandbox/.
 */
import type { Pool, PoolClient } from 'pg';

export interface KeptState {
  name: string;
  kind: 'seed' | 'snapshot';
  /** The template database holding the sandbox database as it was. */
  database: string;
  fingerprint: string;
  /** The sandbox clock's reading when the state was kept, and whether it was frozen then. */
  clockAt: Date;
  clockFrozen: boolean;
  createdAt: Date;
}

const COLUMNS = `name, kind, database, fingerprint, clock_at AS "clockAt", clock_frozen AS "clockFrozen",
  created_at AS "createdAt"`;

/** The kept states of one kind, or of both, by name. */
export async function keptStates(pool: Pool, kind?: KeptState['kind']): Promise<KeptState[]> {
  const result = await pool.query<KeptState>(
    `SELECT ${COLUMNS} FROM sandbox_states WHERE $1::text IS NULL OR kind = $1 ORDER BY name`,
    [kind ?? null],
  );
  return result.rows;
}

export async function keptState(pool: Pool | PoolClient, name: string): Promise<KeptState | undefined> {
  const result = await pool.query<KeptState>(`SELECT ${COLUMNS} FROM sandbox_states WHERE name = $1`, [name]);
  return result.rows[0];
}

/** The sandbox's mail as the state keeps it (`environmentMail`'s array). */
export async function keptMail(pool: Pool | PoolClient, name: string): Promise<unknown[]> {
  const result = await pool.query<{ mail: unknown[] }>('SELECT mail FROM sandbox_states WHERE name = $1', [
    name,
  ]);
  return result.rows[0]?.mail ?? [];
}

/** Keeps a state, replacing the one of the same name. */
export async function keepState(
  tx: PoolClient,
  state: Omit<KeptState, 'createdAt'> & { mail: unknown[] },
): Promise<void> {
  await tx.query(
    `INSERT INTO sandbox_states (name, kind, database, fingerprint, clock_at, clock_frozen, mail)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)
     ON CONFLICT (name) DO UPDATE SET kind = EXCLUDED.kind, database = EXCLUDED.database,
       fingerprint = EXCLUDED.fingerprint, clock_at = EXCLUDED.clock_at,
       clock_frozen = EXCLUDED.clock_frozen, mail = EXCLUDED.mail, created_at = now()`,
    [
      state.name,
      state.kind,
      state.database,
      state.fingerprint,
      state.clockAt,
      state.clockFrozen,
      JSON.stringify(state.mail),
    ],
  );
}

/** Forgets a state; its template database, or undefined when there was none of that name. */
export async function forgetState(pool: Pool | PoolClient, name: string): Promise<string | undefined> {
  const result = await pool.query<{ database: string }>(
    'DELETE FROM sandbox_states WHERE name = $1 RETURNING database',
    [name],
  );
  return result.rows[0]?.database;
}
