import { serviceFees } from '../../../../src/billing/fees.ts';
import { readSettings } from '../../../../src/config.ts';
import type { Caller, ServiceContext } from '../../../../src/gateway/service-context.ts';
import { serviceIdentity } from '../../../../src/identity/operations/service-identity.ts';
import { registersOf } from '../../../../src/services/contract.ts';
import { iponzService } from '../../../../src/services/iponz/index.ts';
import type { TestGateway } from '../../../support/runtime.ts';

/**
 * The IP office's service context in the sandbox, made as the gateway makes it when it mounts the
 * service (gateway/mount.ts): what the CLI, an import or a job hands the operations, without HTTP.
 */
export function sandboxContext(gateway: TestGateway): ServiceContext {
  const runtime = gateway.runtime;
  const environment = 'sandbox';
  return {
    environment,
    service: iponzService,
    database: runtime.environments[environment],
    clock: runtime.clocks.for(environment),
    keyedUniform: runtime.keyedUniform,
    serverKeys: runtime.serverKeys,
    identity: serviceIdentity(runtime.gateway.pool, environment, 'iponz', runtime.clocks.for(environment)),
    fees: serviceFees({
      environment,
      service: 'iponz',
      database: runtime.environments[environment].pool,
      gateway: runtime.gateway.pool,
      clock: runtime.clocks.for(environment),
      schedule: runtime.config.fees.schedule,
      enabled: runtime.config.fees.enabled,
      payers: runtime.payers,
    }),
    settings: readSettings(runtime.config.variables, iponzService.settings),
    registers: registersOf(runtime.services, runtime.environments[environment]),
    absoluteUrl: (path) => runtime.publicUrl.absolute(path),
  };
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
