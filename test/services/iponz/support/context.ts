import { type Caller, type ServiceContext, serviceContext } from '../../../../src/gateway/service-context.ts';
import { iponzService } from '../../../../src/services/iponz/index.ts';
import type { TestGateway } from '../../../support/runtime.ts';

/** The IP office's service context in the sandbox, as the gateway makes it (gateway/mount.ts). */
export function sandboxContext(gateway: TestGateway): ServiceContext {
  return serviceContext(gateway.runtime, 'sandbox', iponzService);
}

/** A user acting through the test's sandbox subscription to the IP office, as the guard names them. */
export async function sandboxCaller(gateway: TestGateway, userId: string): Promise<Caller> {
  const { rows } = await gateway.runtime.gateway.pool.query<{ id: string; user_id: string }>(
    `SELECT id, user_id FROM subscriptions WHERE product_id = 'sandbox-iponz' ORDER BY created_at LIMIT 1`,
  );
  const subscription = rows[0];
  if (!subscription) throw new Error('no sandbox subscription to the IP office');
  return {
    environment: 'sandbox',
    subscriptionId: subscription.id,
    productId: 'sandbox-iponz',
    subscriberId: subscription.user_id,
    userId,
  };
}
