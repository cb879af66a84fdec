/**
 * POST /entities: registers a sole trader, partnership or trust (the types that opt in), allocating a
 * new business number. Needs a three-legged token; the signed-in user is granted business authority
 * over the new entity in the same transaction (operations/registration.ts). The body is the published
 * PostableEntity (schemas/postable.ts, domain/postable.ts). Answers 200 (the published status) with the
 * entity as GET /entities/{nzbn} answers it, its ETag and Location.
 */
import type { FastifyInstance } from 'fastify';
import { setValidators } from '../../../platform/http/conditional.ts';
import { typed } from '../../../platform/http/operation.ts';
import { Entity } from '../domain/schema.ts';
import { registerNewEntity } from '../operations/registration.ts';
import type { NzbnContext } from '../operations/support.ts';
import { responses } from '../schemas/operations.ts';
import { PostableEntityInput } from '../schemas/postable.ts';
import { nzbnOperation } from './operation.ts';
import { published } from './published.ts';

export async function registerRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  typed(app).post(
    '/entities',
    nzbnOperation({
      config: { threeLegged: true },
      schema: {
        ...published('NZBN_003'),
        summary: 'Register a sole trader, partnership or trust (three-legged token)',
        body: PostableEntityInput,
        response: responses({ 200: Entity }, [400, 401, 403]),
      },
    }),
    async (request, reply) => {
      const registered = await registerNewEntity(context, {
        caller: request.caller,
        application: request.body,
      });
      setValidators(reply, registered.validators);
      return reply
        .code(200)
        .header('Location', registered.location)
        .type('application/json; charset=utf-8')
        .send(registered.document);
    },
  );
}
