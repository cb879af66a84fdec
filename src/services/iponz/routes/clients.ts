/** GET /clients (the spec's five rules, domain/client-search.ts) and GET /clients/{client-id}. */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { declareOperation, typed } from '../../../platform/http/operation.ts';
import { parsePage } from '../../../platform/http/pagination.ts';
import { ADDRESS_TYPES, parseClientQuery } from '../domain/client-search.ts';
import { parseClientId } from '../domain/identifiers.ts';
import type { Client } from '../domain/model.ts';
import {
  ClientList,
  ClientParams,
  ClientQuery,
  ClientRecord,
  jsonResponses,
  PAGING,
} from '../schemas/operations.ts';
import { findClient, searchClients } from '../store/clients.ts';
import { JSON_ONLY, notFound, pagedAnswer } from './support.ts';

/** A client as answered. */
export function clientJson(client: Client) {
  return {
    clientId: String(client.clientId),
    name: client.name,
    clientType: client.clientType,
    nzbn: client.nzbn,
    addresses: ADDRESS_TYPES.flatMap((type) => {
      const a = client.addresses[type];
      return a
        ? [
            {
              addressType: type,
              addressLine1: a.line1 ?? null,
              addressLine2: a.line2 ?? null,
              addressLine3: a.line3 ?? null,
              city: a.city ?? null,
            },
          ]
        : [];
    }),
  };
}

export async function clientRoutes(plugin: FastifyInstance, context: ServiceContext): Promise<void> {
  const app = typed(plugin);
  const pool = context.database.pool;

  app.get(
    '/clients',
    declareOperation(
      {
        schema: {
          summary: 'Search clients by name (and address)',
          description:
            'Case-insensitive; name required, at least 2 characters; % matches zero or more characters, punctuation and spaces included; results are clients whose name contains the term; address narrows, matched against the three lines and the city of the physical, postal and service addresses.',
          querystring: ClientQuery,
          response: jsonResponses({ 200: ClientList }, [400, 406]),
        },
      },
      { produces: JSON_ONLY },
    ),
    async (request, reply) => {
      const query = parseClientQuery(request.query);
      const paging = parsePage(request.query, PAGING);
      const found = await searchClients(pool, query, { offset: paging.offset, limit: paging.pageSize });
      return reply
        .type('application/json; charset=utf-8')
        .send(JSON.stringify(pagedAnswer(paging, found.total, 'clients', found.items.map(clientJson))));
    },
  );

  // Fastify ends a parameter name at a hyphen, so the path's {client-id} is named clientId.
  app.get(
    '/clients/:clientId',
    declareOperation(
      {
        schema: {
          summary: 'One client record by id',
          params: ClientParams,
          response: jsonResponses({ 200: ClientRecord }),
        },
      },
      // No validators: a client row keeps no version nor modification time.
      { produces: JSON_ONLY },
    ),
    async (request, reply) => {
      const id = parseClientId(request.params.clientId);
      const client = await findClient(pool, id);
      if (!client) throw notFound(`client with id ${id}`);
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(clientJson(client)));
    },
  );
}
