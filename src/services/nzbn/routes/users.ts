/**
 * The register's users, as published (NZBN_101; operations/users.ts), each needing a three-legged token:
 * `GET /users`, `POST /users`, `GET /users/{userId}`, `PUT /users/{userId}` (If-Modified-Since → 412).
 */
import type { FastifyInstance } from 'fastify';
import { preconditionsOf, typed } from '../../../platform/http/operation.ts';
import type { NzbnContext } from '../operations/support.ts';
import { changeUser, getUser, listUsers, registerUser } from '../operations/users.ts';
import { User, UserInput, UserList, UserParams } from '../schemas/directory.ts';
import { ModifiedSinceHeaders, responses } from '../schemas/operations.ts';
import { nzbnOperation } from './operation.ts';
import { published } from './published.ts';

const config = { threeLegged: true };
/** The published If-Modified-Since, with If-Match and If-Unmodified-Since. */
export const MODIFIED_SINCE = { honours: ['If-Match', 'If-Unmodified-Since', 'If-Modified-Since'] } as const;

export async function userRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);

  api.get(
    '/users',
    nzbnOperation({
      config,
      schema: {
        ...published('NZBN_101_1'),
        summary: 'The signed-in user (every user, for an operator)',
        response: responses({ 200: UserList }, [400, 401, 403, 404]),
      },
    }),
    async (request) => listUsers(context, { caller: request.caller }),
  );

  api.post(
    '/users',
    nzbnOperation({
      config,
      schema: {
        ...published('NZBN_101_4'),
        summary: 'Register the signed-in user with the register (an operator: another person by email)',
        body: UserInput,
        response: responses({ 201: User }, [400, 401, 403]),
      },
    }),
    async (request, reply) =>
      reply.code(201).send(await registerUser(context, { caller: request.caller, body: request.body })),
  );

  api.get(
    '/users/:userId',
    nzbnOperation({
      config,
      schema: {
        ...published('NZBN_101_2'),
        summary:
          'One user: the signed-in user, a user of an organisation they administer, anyone for an operator',
        params: UserParams,
        response: responses({ 200: User }, [400, 401, 403, 404]),
      },
    }),
    async (request) => getUser(context, { caller: request.caller, userId: request.params.userId }),
  );

  api.put(
    '/users/:userId',
    nzbnOperation(
      {
        config,
        schema: {
          ...published('NZBN_101_3'),
          summary: 'Change a user’s register profile (themselves; anyone, for an operator)',
          params: UserParams,
          headers: ModifiedSinceHeaders,
          body: UserInput,
          response: responses({ 200: User }, [400, 401, 403, 404, 412]),
        },
      },
      MODIFIED_SINCE,
    ),
    async (request) =>
      changeUser(context, {
        caller: request.caller,
        userId: request.params.userId,
        body: request.body,
        preconditions: preconditionsOf(request),
      }),
  );
}
