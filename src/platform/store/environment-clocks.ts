/**
 * The SQL of `environment_clocks` (gateway database): each environment's clock mode, offset and frozen
 * instant. Reading and moving a clock is environment-clocks.ts.
 */
import type { Pool, PoolClient } from 'pg';
import type { ClockMode } from '../clock.ts';

export interface ClockRow {
  mode: ClockMode;
  offset_ms: number;
  frozen_at: Date | null;
}

const COLUMNS = 'mode, offset_ms, frozen_at';

export async function clockRow(pool: Pool | PoolClient, environment: string): Promise<ClockRow | undefined> {
  const result = await pool.query<ClockRow>(
    `SELECT ${COLUMNS} FROM environment_clocks WHERE environment = $1`,
    [environment],
  );
  return result.rows[0];
}

/** The clock's row, locked until the transaction ends. */
export async function lockClockRow(tx: PoolClient, environment: string): Promise<ClockRow | undefined> {
  const result = await tx.query<ClockRow>(
    `SELECT ${COLUMNS} FROM environment_clocks WHERE environment = $1 FOR UPDATE`,
    [environment],
  );
  return result.rows[0];
}

export async function updateClockRow(
  tx: PoolClient,
  environment: string,
  state: { offsetMs: number; frozenAt: Date | null },
): Promise<void> {
  await tx.query(
    'UPDATE environment_clocks SET offset_ms = $2, frozen_at = $3, updated_at = now() WHERE environment = $1',
    [environment, state.offsetMs, state.frozenAt],
  );
}

export async function freezeClockRow(tx: PoolClient, environment: string, at: Date): Promise<void> {
  await tx.query('UPDATE environment_clocks SET frozen_at = $2, updated_at = now() WHERE environment = $1', [
    environment,
    at,
  ]);
}

export async function setClockMode(pool: Pool, environment: string, mode: ClockMode): Promise<void> {
  await pool.query('UPDATE environment_clocks SET mode = $1 WHERE environment = $2', [mode, environment]);
}
