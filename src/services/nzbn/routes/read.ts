/**
 * Reads of one entity: the whole entity, each of its parts and `discoverable`, each with ETag,
 * Last-Modified and conditional requests (304). The operations are operations/entities.ts.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { typed } from '../../../platform/http/operation.ts';
import { ADDRESS_TYPES } from '../domain/codes.ts';
import { Entity } from '../domain/schema.ts';
import {
  discoverEntity,
  ENTITY_PARTS,
  type EntityPart,
  readEntity,
  readEntityPart,
} from '../operations/entities.ts';
import type { NzbnContext } from '../operations/support.ts';
import {
  ConditionalHeaders,
  Discoverable,
  NonCompanyNzbnParams,
  NotModified,
  NzbnParams,
  responses,
} from '../schemas/operations.ts';
import { nzbnOperation, sendRead } from './operation.ts';

const AddressQuery = Type.Object({
  'address-type': Type.Optional(Type.String({ description: ADDRESS_TYPES.join(', ') })),
});

const partSchema = (part: EntityPart) => ({
  summary: `Get an entity's ${part.path.replaceAll('-', ' ')}`,
  params: part.path === 'non-company-details' ? NonCompanyNzbnParams : NzbnParams,
  headers: ConditionalHeaders,
  response: responses({ 200: part.schema, 304: NotModified }, [400, 404, 412]),
});

export async function readRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);
  api.get(
    '/entities/:nzbn',
    nzbnOperation(
      {
        schema: {
          summary: 'Get an entity',
          params: NzbnParams,
          headers: ConditionalHeaders,
          response: responses({ 200: Entity, 304: NotModified }, [400, 404, 412]),
        },
      },
      'read',
    ),
    async (request, reply) => {
      const entity = await readEntity(context, { caller: request.caller, nzbn: request.params.nzbn });
      return sendRead(request, reply, entity);
    },
  );

  for (const part of ENTITY_PARTS) {
    const url = `/entities/:nzbn/${part.path}`;
    if (part.path === 'addresses') {
      api.get(
        url,
        nzbnOperation({ schema: { ...partSchema(part), querystring: AddressQuery } }, 'read'),
        async (request, reply) => {
          const { caller, params, query } = request;
          const input = { caller, nzbn: params.nzbn, part, addressType: query['address-type'] };
          return sendRead(request, reply, await readEntityPart(context, input));
        },
      );
    } else {
      api.get(url, nzbnOperation({ schema: partSchema(part) }, 'read'), async (request, reply) => {
        const input = { caller: request.caller, nzbn: request.params.nzbn, part };
        return sendRead(request, reply, await readEntityPart(context, input));
      });
    }
  }

  api.get(
    '/entities/:nzbn/discoverable',
    nzbnOperation(
      {
        schema: {
          summary: 'Which parts of an entity exist, as links',
          params: NzbnParams,
          headers: ConditionalHeaders,
          response: responses({ 200: Discoverable, 304: NotModified }, [400, 404, 412]),
        },
      },
      'read',
    ),
    async (request, reply) => {
      const discoverable = await discoverEntity(context, {
        caller: request.caller,
        nzbn: request.params.nzbn,
      });
      return sendRead(request, reply, discoverable);
    },
  );
}
