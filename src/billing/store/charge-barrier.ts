/**
 * The charge barrier: a charging transaction holds it shared (the fee's INSERT takes it, store/fee-records.ts;
 * `holdChargeBarrier` takes it alone) until it ends; the month end's closing transaction takes it
 * exclusively (store/month-end.ts), so every charge in flight has committed before the month is closed,
 * and every later one sees it closed.
 */
import type pg from 'pg';

export const CHARGE_BARRIER_LOCK = 0x62_69_6c_6c_02;

/** Holds the barrier shared until the transaction ends (see CHARGE_BARRIER_LOCK). */
export async function holdChargeBarrier(client: pg.ClientBase): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock_shared($1)', [CHARGE_BARRIER_LOCK]);
}
