import { grantAuthority } from '../../../../src/identity/operations/authorities.ts';
import type { DatabaseUrls } from '../../../../src/platform/db/urls.ts';
import { seedNzbn } from '../../../../src/services/nzbn/sandbox/seed.ts';
import type { SignedInUser } from '../../../support/oauth.ts';
import { testGateway } from '../../../support/runtime.ts';
import { type ServiceTest, serviceTest } from '../../../support/service-test.ts';

/**
 * A gateway with the business number register seeded small (fixtures and a few thousand generated
 * entities), a sandbox subscription, and a signed-in user who holds authority over the authority
 * fixture (case 202), as the operator's user does after `rsg seed` (the rest: test/support/service-test.ts).
 */
export const BASE = '/sandbox/nzbn/v5';
export const FIXTURE = {
  company: '9429000001007',
  soleTrader: '9429000001144',
  privateData: '9429000003001',
  orgParts: '9429000003018',
  authority: '9429000003025',
  removed: '9429000002134',
} as const;

export interface NzbnTest extends ServiceTest {
  /** Holds authority over FIXTURE.authority and FIXTURE.privateData. */
  owner: SignedInUser;
  grant(userId: string, nzbn: string): Promise<void>;
}

export async function nzbnTest(
  options: {
    entities?: number;
    clockMode?: 'real' | 'virtual';
    env?: Record<string, string>;
    urls?: DatabaseUrls;
  } = {},
): Promise<NzbnTest> {
  const gateway = await testGateway({
    ...(options.clockMode ? { clockMode: options.clockMode } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.urls ? { urls: options.urls } : {}),
  });
  const grant = async (userId: string, nzbn: string) => {
    await grantAuthority(
      gateway.runtime.gateway.pool,
      { environment: 'sandbox', service: 'nzbn', kind: 'entity', id: nzbn },
      { userId },
    );
  };
  const test = await serviceTest(gateway, 'nzbn', BASE, async (owner) => {
    await seedNzbn(
      {
        database: gateway.runtime.environments.sandbox,
        scale: 'small',
        clock: gateway.runtime.clocks.for('sandbox'),
        log: () => {},
        identity: { grantOperatorsAuthority: async (_service, _kind, id) => grant(owner.userId, id) },
      },
      { entities: options.entities ?? 1_000, chunkSize: 1_000, threads: 0 },
    );
    await grant(owner.userId, FIXTURE.privateData);
  });
  return { ...test, grant };
}
