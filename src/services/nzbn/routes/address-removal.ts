/**
 * NZBN_044_1 `DELETE /entities/{nzbn}/addresses/{id}` (three-legged token and business authority): the
 * address ends and goes to the address history; 204 with the entity's new ETag. Honours If-Match (the
 * published header) and If-Unmodified-Since against the entity, as every other write of it does: 412 and
 * nothing written when stale. operations/address-removal.ts.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { typed } from '../../../platform/http/operation.ts';
import { removeAddress } from '../operations/address-removal.ts';
import type { NzbnContext } from '../operations/support.ts';
import { AddressParams } from '../schemas/documents.ts';
import { HOLDS_AGAINST_ENTITY, responses, WriteHeaders } from '../schemas/operations.ts';
import { nzbnOperation } from './operation.ts';
import { published } from './published.ts';
import { UPDATE_ERRORS, withValidators, writeOf } from './update-support.ts';

export async function addressRemovalRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  typed(app).delete(
    '/entities/:nzbn/addresses/:id',
    nzbnOperation(
      {
        config: { threeLegged: true },
        schema: {
          ...published('NZBN_044_1'),
          summary: 'Remove an address (it ends and goes to the address history); 204',
          params: AddressParams,
          headers: WriteHeaders,
          ...HOLDS_AGAINST_ENTITY,
          response: responses({ 204: Type.Null() }, UPDATE_ERRORS),
        },
      },
      {},
    ),
    async (request, reply) => {
      const updated = await removeAddress(context, {
        ...writeOf(request, request.params.nzbn),
        addressId: request.params.id,
      });
      return withValidators(reply, updated).code(204).send();
    },
  );
}
