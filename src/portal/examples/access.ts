/**
 * The recorder's caller in its throwaway sandbox: one operator user (made before the sandbox is seeded,
 * so the seed grants it the fixtures' authorities and makes it a member of the operators' organisation,
 * `sandbox-operators`, the offers register's `x-organisation`), with a password so that it can sign in
 * for a three-legged token, and one active subscription per sandbox product.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { createSubscription } from '../../gateway/subscriptions.ts';
import { grantAuthority } from '../../identity/authorities.ts';
import { addUser } from '../../identity/users.ts';
import { OPERATORS_ORGANISATION } from '../../runtime.ts';
import { productId } from '../../services/contract.ts';
import { NzbnParams } from '../../services/nzbn/schemas/operations.ts';
import type { RecorderAccess } from './record.ts';
import { threeLeggedToken } from './sign-in.ts';

export interface RecorderUser {
  id: string;
  email: string;
  password: string;
}

/** Headers a service's calls need beyond the key. */
const SERVICE_HEADERS: Readonly<Record<string, Record<string, string>>> = {
  disclose: { 'x-organisation': OPERATORS_ORGANISATION },
};

/**
 * The recorder's operator; make it before seeding the sandbox. Besides what the seed grants operators,
 * it holds business authority over the business number register's example entity (as a user who
 * claimed it on the portal's sandbox page would), so that the authority operations answer.
 */
export async function recorderUser(pool: Pool): Promise<RecorderUser> {
  const password = randomBytes(18).toString('base64url');
  const email = 'examples@example.test';
  const user = await addUser(pool, { email, name: 'Examples', isOperator: true, password });
  const entity = String((NzbnParams.properties.nzbn.examples as unknown[])[0]);
  await grantAuthority(
    pool,
    { environment: 'sandbox', service: 'nzbn', kind: 'entity', id: entity },
    { userId: user.id },
  );
  return { id: user.id, email: user.email, password };
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
