import type { Pool } from 'pg';

/**
 * `portal_keys_shown`: the subscriptions whose keys the portal has shown. A subscription that waited for
 * approval had its keys made and discarded at request time; the portal offers fresh ones until this
 * says they were shown.
 */

/** Of these subscriptions, the ones whose keys were shown. */
export async function keysShownAmong(pool: Pool, subscriptionIds: readonly string[]): Promise<Set<string>> {
  if (subscriptionIds.length === 0) return new Set();
  const shown = await pool.query<{ id: string }>(
    'SELECT subscription_id AS id FROM portal_keys_shown WHERE subscription_id = ANY($1::uuid[])',
    [subscriptionIds],
  );
  return new Set(shown.rows.map((row) => row.id));
}

export async function markKeysShown(pool: Pool, subscriptionId: string): Promise<void> {
  await pool.query(
    'INSERT INTO portal_keys_shown (subscription_id) VALUES ($1) ON CONFLICT (subscription_id) DO UPDATE SET shown_at = now()',
    [subscriptionId],
  );
}
