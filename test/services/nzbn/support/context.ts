import type { Caller } from '../../../../src/gateway/service-context.ts';
import { serviceContext } from '../../../../src/gateway/service-context.ts';
import { nzbnService } from '../../../../src/services/nzbn/index.ts';
import type { NzbnContext } from '../../../../src/services/nzbn/operations/support.ts';
import { sandboxDocuments } from '../../../../src/services/nzbn/sandbox/documents.ts';
import type { TestGateway } from '../../../support/runtime.ts';

/**
 * The business number register's context in the sandbox: the service context the gateway makes
 * (gateway/mount.ts) with the generated entities' documents the routes add (routes/index.ts).
 */
export function sandboxContext(gateway: TestGateway): NzbnContext {
  return { ...serviceContext(gateway.runtime, 'sandbox', nzbnService), documents: sandboxDocuments };
}

/** A signed-in user of the sandbox as a caller (no subscription of its own: a tool acting for the user). */
export const userCaller = (userId: string): Caller => ({
  environment: 'sandbox',
  subscriptionId: 'tool',
  productId: 'nzbn',
  subscriberId: userId,
  userId,
});
