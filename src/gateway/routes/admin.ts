import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PROBLEM_ERRORS } from '../../platform/http/error-codes.ts';
import { HttpError } from '../../platform/http/errors.ts';
import type { Runtime } from '../../runtime.ts';
import { INVALID_KEY, MISSING_KEY, presentedKey } from '../http/guard.ts';
import { clockRoutes } from './admin-clock.ts';
import { sandboxStateRoutes } from './sandbox-states.ts';
import { sandboxUserRoutes } from './sandbox-users.ts';

/**
 * Operator routes of the sandbox, under /sandbox/admin. They take the subscription key of an operator
 * (the admin user created at first start holds one for every sandbox product), so test suites can move
 * the sandbox clock (admin-clock.ts), and reset the sandbox or keep and restore its snapshots
 * (sandbox-states.ts), and make test users with tokens and grant authorities (sandbox-users.ts), over
 * HTTP with the key they already have. Any other key is refused: a key that is
 * not an active sandbox key 401, a subscriber who is not an operator 403, in problem+json.
 */
export async function adminRoutes(app: FastifyInstance, runtime: Runtime): Promise<void> {
  await app.register(
    async (scope) => {
      scope.addHook('onRequest', async (request: FastifyRequest, _reply: FastifyReply) => {
        request.dialect = 'problem';
        const key = presentedKey(request);
        if (!key) throw new HttpError(PROBLEM_ERRORS.missingKey, MISSING_KEY);
        const owner = await runtime.keys.lookup(key);
        if (owner?.state !== 'active' || owner.environment !== 'sandbox') {
          throw new HttpError(PROBLEM_ERRORS.invalidKey, INVALID_KEY);
        }
        if (!owner.isOperator)
          throw new HttpError(PROBLEM_ERRORS.notOperator, 'Only an operator may use the admin routes');
      });
      clockRoutes(scope, runtime);
      sandboxStateRoutes(scope, runtime);
      sandboxUserRoutes(scope, runtime);
    },
    { prefix: '/sandbox/admin' },
  );
}
