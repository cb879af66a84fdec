/**
 * First start on an empty data folder: an operator (admin) user and an active subscription to every
 * sandbox product, whose keys are printed once. Guarded by an advisory lock and a settings marker, so
 * two processes starting together bootstrap once, and later starts reuse the data.
 */
import type { Pool } from 'pg';
import { addUser } from '../../identity/operations/users.ts';
import { findUserByEmail } from '../../identity/store/users.ts';
import { withAdvisoryLock } from '../../platform/db/pool.ts';
import { hasSetting, keptSetting } from '../../platform/store/settings.ts';
import { productId, type ServiceDefinition } from '../../services/contract.ts';
import { createSubscription } from './subscriptions.ts';

export interface BootstrapResult {
  adminEmail: string;
  keys: { productId: string; subscriptionId: string; primaryKey: string; secondaryKey: string }[];
}

const LOCK_KEY = 7_361_042_902;
const MARKER = 'bootstrapped_at';

export async function bootstrapIfNeeded(
  pool: Pool,
  adminEmail: string,
  services: readonly ServiceDefinition[],
): Promise<BootstrapResult | undefined> {
  return withAdvisoryLock(pool, LOCK_KEY, async (lock) => {
    if (await hasSetting(lock, MARKER)) return undefined;
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
    await keptSetting(lock, MARKER, new Date().toISOString());
    return { adminEmail: admin.email, keys };
  });
}
