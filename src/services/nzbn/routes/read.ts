/**
 * Reads of one entity: the whole entity, each of its parts (addresses of the required `address-type`)
 * and `discoverable` (the published Entity), each with ETag, Last-Modified and conditional requests
 * (304). The operations are operations/entities.ts.
 */
import type { FastifyInstance } from 'fastify';
import { typed } from '../../../platform/http/operation.ts';
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
  AddressTypeQuery,
  ConditionalHeaders,
  Discoverable,
  NonCompanyNzbnParams,
  NotModified,
  NzbnParams,
  READ_ERRORS,
  responses,
} from '../schemas/operations.ts';
import { nzbnOperation, sendRead } from './operation.ts';
import { type OperationCode, published } from './published.ts';

/** The published code of each part's GET. */
const CODES: Readonly<Record<string, OperationCode>> = {
  addresses: 'NZBN_004_1',
  roles: 'NZBN_004_3',
  'trading-names': 'NZBN_004_7',
  'phone-numbers': 'NZBN_004_9',
  'email-addresses': 'NZBN_004_10',
  websites: 'NZBN_004_8',
  'industry-classifications': 'NZBN_004_6',
  'company-details': 'NZBN_004_2',
  'non-company-details': 'NZBN_004_2b',
  'privacy-settings': 'NZBN_004_5',
  'business-ethnicity-identifiers': 'NZBN_004_20',
  'payment-bank-accounts': 'NZBN_004_4',
  'gst-numbers': 'NZBN_004_11',
  'trading-areas': 'NZBN_004_12',
};

const partSchema = (part: EntityPart) => ({
  ...published(CODES[part.path]!),
  summary: `Get an entity's ${part.path.replaceAll('-', ' ')}`,
  params: part.path === 'non-company-details' ? NonCompanyNzbnParams : NzbnParams,
  headers: ConditionalHeaders,
  response: responses({ 200: part.schema, 304: NotModified }, READ_ERRORS),
});

export async function readRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);
  api.get(
    '/entities/:nzbn',
    nzbnOperation(
      {
        schema: {
          ...published('NZBN_002'),
          summary: 'Get an entity',
          params: NzbnParams,
          headers: ConditionalHeaders,
          response: responses({ 200: Entity, 304: NotModified }, READ_ERRORS),
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
        nzbnOperation({ schema: { ...partSchema(part), querystring: AddressTypeQuery } }, 'read'),
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
          ...published('NZBN_002_1'),
          summary: 'The entity, with a link to each of its parts that has data',
          params: NzbnParams,
          headers: ConditionalHeaders,
          response: responses({ 200: Discoverable, 304: NotModified }, READ_ERRORS),
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
