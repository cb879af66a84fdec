import type { AppOptions } from '../../../../src/app.ts';
import { grantAuthority } from '../../../../src/identity/operations/authorities.ts';
import { setClock } from '../../../../src/platform/environment-clocks.ts';
import { seedIponz } from '../../../../src/services/iponz/sandbox/seed.ts';
import type { SignedInUser } from '../../../support/oauth.ts';
import { testGateway } from '../../../support/runtime.ts';
import { type ServiceTest, serviceTest } from '../../../support/service-test.ts';

/**
 * A gateway with the IP office's sandbox seeded small (its fixed test cases and generated clients and
 * cases) on a virtual sandbox clock at NOW, a sandbox subscription, and a signed-in user registered with
 * the office (as the operator's user is after `rsg seed`). Every answer is checked against the service's
 * OpenAPI document (test/support/service-test.ts).
 */
export const BASE = '/sandbox/iponz/v5';
export const NOW = '2026-06-15T00:00:00Z';
export const TODAY = '2026-06-15';

export interface IponzTest extends ServiceTest {
  /** Registered with the office. */
  owner: SignedInUser;
  /** Signed in, not registered. */
  stranger: SignedInUser;
  register(userId: string, environment?: 'sandbox' | 'production'): Promise<void>;
}

export async function iponzTest(
  options: { env?: Record<string, string>; app?: AppOptions } = {},
): Promise<IponzTest> {
  const gateway = await testGateway({
    clockMode: 'virtual',
    ...(options.env ? { env: options.env } : {}),
    ...(options.app ? { app: options.app } : {}),
  });
  await setClock(gateway.runtime.gateway.pool, 'sandbox', NOW);
  await gateway.runtime.clocks.reload();
  const register = async (userId: string, environment: 'sandbox' | 'production' = 'sandbox') => {
    await grantAuthority(
      gateway.runtime.gateway.pool,
      { environment, service: 'iponz', kind: 'registered-user', id: 'iponz' },
      { userId },
    );
  };
  const test = await serviceTest(gateway, 'iponz', BASE, async (owner) => {
    await seedIponz({
      database: gateway.runtime.environments.sandbox,
      scale: 'small',
      clock: gateway.runtime.clocks.for('sandbox'),
      log: () => {},
      identity: { grantOperatorsAuthority: async () => register(owner.userId) },
    });
    await register(owner.userId);
  });
  return { ...test, register };
}
