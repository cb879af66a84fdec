import type { FastifyPluginAsync } from 'fastify';
import { createSubscription } from '../src/gateway/operations/subscriptions.ts';
import type { ServiceContext } from '../src/gateway/service-context.ts';
import { updateProduct } from '../src/gateway/store/products.ts';
import { addUser } from '../src/identity/operations/users.ts';
import type { Runtime } from '../src/runtime.ts';
import type { ServiceDefinition } from '../src/services/contract.ts';
import { SERVICES } from '../src/services/registry.ts';
import { FIXED_ANSWER } from './fixed-answer.ts';

/**
 * What `bench:gateway`'s gateway answers, for `servers/gateway.ts` and `inspector.ts`: the services,
 * the business number register's routes replaced by `/fixed` (the fixed JSON), so that the same answer
 * goes through the whole gateway (request id, key lookup, sliding-window rate limit and quota check,
 * usage counting, metrics).
 */
const fixed: FastifyPluginAsync<ServiceContext> = async (app) => {
  app.get('/fixed', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(FIXED_ANSWER),
  );
};

export const FIXED_SERVICES: ServiceDefinition[] = SERVICES.map((service) =>
  service.id === 'nzbn' ? { ...service, routes: fixed } : service,
);

/** The path of the fixed answer in the sandbox. */
export const FIXED_PATH = '/sandbox/nzbn/v5/fixed';

/**
 * A subscription to the sandbox business number product, its limits past what a benchmark can reach
 * (every call checked, none refused); its primary key.
 */
export async function benchSubscription(runtime: Runtime): Promise<string> {
  const pool = runtime.gateway.pool;
  await updateProduct(pool, 'sandbox-nzbn', {
    rateLimitPerMinute: 100_000_000,
    quota: { calls: 1_000_000_000, periodSeconds: 86_400 },
  });
  const user = await addUser(pool, { email: `bench-${Date.now()}@example.test` });
  const { primaryKey } = await createSubscription(pool, {
    userId: user.id,
    productId: 'sandbox-nzbn',
    state: 'active',
  });
  return primaryKey;
}
