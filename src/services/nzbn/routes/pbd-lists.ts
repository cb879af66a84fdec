/**
 * POST /entities/{nzbn}/{list}: adds one item to a Primary Business Data list (three-legged token and
 * business authority); the operation is operations/entity-lists.ts.
 */
import type { FastifyInstance } from 'fastify';
import { preconditionsOf, typed } from '../../../platform/http/operation.ts';
import { addListItem, ENTITY_LISTS } from '../operations/entity-lists.ts';
import type { NzbnContext } from '../operations/support.ts';
import { NzbnParams, responses } from '../schemas/operations.ts';
import { nzbnOperation } from './operation.ts';
import { UPDATE_ERRORS, withValidators } from './update-support.ts';

export async function listRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  for (const list of ENTITY_LISTS) {
    typed(app).post(
      `/entities/:nzbn/${list.path}`,
      nzbnOperation(
        {
          config: { threeLegged: true },
          schema: {
            summary: `Add to an entity's ${list.path.replaceAll('-', ' ')} (three-legged token, business authority)`,
            params: NzbnParams,
            body: list.input,
            response: responses({ 201: list.item }, UPDATE_ERRORS),
          },
        },
        // An addition changes the entity: it honours the entity's If-Match and If-Unmodified-Since.
        {},
      ),
      async (request, reply) => {
        const updated = await addListItem(context, {
          caller: request.caller,
          nzbn: request.params.nzbn,
          preconditions: preconditionsOf(request),
          list,
          item: request.body,
        });
        return withValidators(reply, updated).code(201).send(updated.result);
      },
    );
  }
}
