import { serviceFees } from '../../../../src/billing/fees.ts';
import { readSettings } from '../../../../src/config.ts';
import type { Caller } from '../../../../src/gateway/service-context.ts';
import { serviceIdentity } from '../../../../src/identity/service-identity.ts';
import { registersOf } from '../../../../src/services/contract.ts';
import type { NzbnContext } from '../../../../src/services/nzbn/operations/support.ts';
import { sandboxDocuments } from '../../../../src/services/nzbn/sandbox/documents.ts';
import type { TestGateway } from '../../../support/runtime.ts';

/**
 * The sandbox's service context of the business number register, as the gateway gives it to the routes
 * (gateway/mount.ts) and the routes add the generated entities' documents to (routes/index.ts): what the
 * CLI, an import or a job hands an operation of services/nzbn/operations/.
 */
export function sandboxContext(gateway: TestGateway): NzbnContext {
  const runtime = gateway.runtime;
  const service = runtime.services.find((s) => s.id === 'nzbn')!;
  const clock = runtime.clocks.for('sandbox');
  const database = runtime.environments.sandbox;
  return {
    environment: 'sandbox',
    service,
    database,
    clock,
    keyedUniform: runtime.keyedUniform,
    serverKeys: runtime.serverKeys,
    identity: serviceIdentity(runtime.gateway.pool, 'sandbox', 'nzbn', clock),
    fees: serviceFees({
      environment: 'sandbox',
      service: 'nzbn',
      database: database.pool,
      gateway: runtime.gateway.pool,
      clock,
      schedule: runtime.config.fees.schedule,
      enabled: runtime.config.fees.enabled,
      payers: runtime.payers,
    }),
    settings: readSettings(runtime.config.variables, service.settings),
    registers: registersOf(runtime.services, database),
    absoluteUrl: (path) => runtime.publicUrl.absolute(path),
    documents: sandboxDocuments,
  };
}

/** A signed-in user of the sandbox as a caller (no subscription of its own: a tool acting for the user). */
export const userCaller = (userId: string): Caller => ({
  environment: 'sandbox',
  subscriptionId: 'tool',
  productId: 'nzbn',
  subscriberId: userId,
  userId,
});
