/**
 * The recorder's caller in its throwaway sandbox: one operator user (made before the sandbox is seeded,
 * so the seed grants it the fixtures' authorities and makes it a member of the operators' organisation,
 * `sandbox-operators`, the offers register's `x-organisation`), with a password so that it can sign in
 * for a three-legged token, and one active subscription per sandbox product.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { createSubscription } from '../../gateway/operations/subscriptions.ts';
import { grantAuthority } from '../../identity/operations/authorities.ts';
import { addUser } from '../../identity/operations/users.ts';
import type { Clock } from '../../platform/clock.ts';
import { OPERATORS_ORGANISATION } from '../../runtime.ts';
import { productId, type ServiceDefinition } from '../../services/contract.ts';
import type { RecorderAccess } from './record.ts';
import { threeLeggedToken } from './sign-in.ts';

export interface RecorderUser {
  id: string;
  email: string;
  password: string;
}

/**
 * The server secret of the recorder's throwaway databases (`presetServerSecret`): known, so that answers
 * keyed by it (random rounding) are the same in every recording. Only ever in those databases.
 */
export const RECORDING_SECRET = 'response-examples-recording-not-a-secret';

/** Headers a service's calls need beyond the key. */
const SERVICE_HEADERS: Readonly<Record<string, Record<string, string>>> = {
  disclose: { 'x-organisation': OPERATORS_ORGANISATION },
};

/** The recorder's operator; make it before seeding the sandbox (the seed grants operators the fixtures). */
export async function recorderUser(pool: Pool): Promise<RecorderUser> {
  const password = randomBytes(18).toString('base64url');
  const email = 'examples@example.test';
  const user = await addUser(pool, { email, name: 'Examples', isOperator: true, password });
  return { id: user.id, email: user.email, password };
}

/**
 * Besides what the seed grants operators, business authority over the business number register's
 * example entity (the `nzbn` path parameter's example in that service's own document), as a user who
 * claimed it on the portal's sandbox page holds, so that the authority operations answer. The register
 * is the service that provides the business number register (the contract's capability), not named here.
 * Dated by the sandbox `clock`, as the service's own grants are.
 */
export async function grantExampleEntity(
  app: FastifyInstance,
  pool: Pool,
  user: RecorderUser,
  services: readonly ServiceDefinition[],
  clock: Clock,
): Promise<void> {
  const register = services.find((service) => service.businessNumberRegister && service.routes);
  if (!register) return;
  const document = (await app.inject({ url: `/sandbox${register.path}/openapi.json` })).json() as {
    paths?: Record<
      string,
      Record<
        string,
        {
          parameters?: { name?: string; in?: string; schema?: { examples?: unknown[] }; example?: unknown }[];
        }
      >
    >;
  };
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item)) {
      const parameter = operation.parameters?.find((p) => p.in === 'path' && p.name === 'nzbn');
      const example = parameter?.example ?? parameter?.schema?.examples?.[0];
      if (typeof example === 'string') {
        await grantAuthority(
          pool,
          { environment: 'sandbox', service: register.id, kind: 'entity', id: example },
          { userId: user.id },
          { at: clock.now() },
        );
        return;
      }
    }
  }
}

/** Keys, headers and a token for `user`, on the gateway database `pool`. */
export function recorderAccess(app: FastifyInstance, pool: Pool, user: RecorderUser): RecorderAccess {
  return {
    async keyOf(service) {
      const created = await createSubscription(pool, {
        userId: user.id,
        productId: productId('sandbox', service.id),
        state: 'active',
      });
      return created.primaryKey;
    },
    headersOf: (service) => SERVICE_HEADERS[service.id] ?? {},
    token: () => threeLeggedToken(app, pool, user),
  };
}
