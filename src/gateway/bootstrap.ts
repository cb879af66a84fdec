import type { Pool } from 'pg';
import { addUser } from '../identity/operations/users.ts';
import { findUserByEmail } from '../identity/store/users.ts';
import { productId, type ServiceDefinition } from '../services/contract.ts';
import { createSubscription } from './subscriptions.ts';

/**
 * First start on an empty data folder: an operator (admin) user and an active subscription to every
 * sandbox product, whose keys are printed once. Guarded by an advisory lock and a settings marker, so
 * two processes starting together bootstrap once, and later starts reuse the data.
 */
export interface BootstrapResult {
  adminEmail: string;
  keys: { productId: string; subscriptionId: string; primaryKey: string; secondaryKey: string }[];
}

const LOCK_KEY = 7_361_042_902;

export async function bootstrapIfNeeded(
  pool: Pool,
  adminEmail: string,
  services: readonly ServiceDefinition[],
): Promise<BootstrapResult | undefined> {
  const lock = await pool.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    const done = await lock.query("SELECT 1 FROM settings WHERE name = 'bootstrapped_at'");
    if (done.rowCount) return undefined;
    const admin =
      (await findUserByEmail(pool, adminEmail)) ??
      (await addUser(pool, { email: adminEmail, name: 'Administrator', isOperator: true }));
    const keys: BootstrapResult['keys'] = [];
    for (const service of services) {
      const product = productId('sandbox', service.id);
      const created = await createSubscription(pool, {
        userId: admin.id,
        productId: product,
        name: `${service.title} sandbox`,
        state: 'active',
      });
      keys.push({ productId: product, ...created });
    }
    await lock.query("INSERT INTO settings (name, value) VALUES ('bootstrapped_at', now()::text)");
    return { adminEmail: admin.email, keys };
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    lock.release();
  }
}
