import { type Caller, type ServiceContext, serviceContext } from '../../../../src/gateway/service-context.ts';
import { nzbnService } from '../../../../src/services/nzbn/index.ts';
import type { TestGateway } from '../../../support/runtime.ts';

/** The business number register's service context in the sandbox, as the gateway makes it (gateway/mount.ts). */
export function sandboxContext(gateway: TestGateway): ServiceContext {
  return serviceContext(gateway.runtime, 'sandbox', nzbnService);
}

/** A signed-in user of the sandbox as a caller (no subscription of its own: a tool acting for the user). */
export const userCaller = (userId: string): Caller => ({
  environment: 'sandbox',
  subscriptionId: 'tool',
  productId: 'nzbn',
  subscriberId: userId,
  userId,
});
