/** GET /clients (the spec's five rules, domain/client-search.ts) and GET /clients/{client-id}. */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { negotiate } from '../../../platform/http/negotiate.ts';
import { ADDRESS_TYPES, parseClientQuery } from '../domain/client-search.ts';
import { parseClientId } from '../domain/identifiers.ts';
import type { Client } from '../domain/model.ts';
import { ClientList, ClientParams, ClientQuery, ClientRecord, jsonResponses } from '../schemas/operations.ts';
import { findClient, searchClients } from '../store/clients.ts';
import { documentedOnly, notFound, parsePaging } from './support.ts';

const JSON_ONLY = ['application/json'] as const;

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

export async function clientRoutes(app: FastifyInstance, context: ServiceContext): Promise<void> {
  const pool = context.database.pool;

  app.get(
    '/clients',
    {
      schema: {
        summary: 'Search clients by name (and address)',
        description:
          'Case-insensitive; name required, at least 2 characters; % matches zero or more characters, punctuation and spaces included; results are clients whose name contains the term; address narrows, matched against the three lines and the city of the physical, postal and service addresses.',
        querystring: ClientQuery,
        response: jsonResponses({ 200: ClientList }, [400, 406]),
      },
      validatorCompiler: documentedOnly,
    },
    async (request, reply) => {
      negotiate(request, JSON_ONLY);
      const raw = request.query as Record<string, unknown>;
      const query = parseClientQuery({ name: raw.name, address: raw.address });
      const { page, pageSize } = parsePaging(raw);
      const found = await searchClients(pool, query, { offset: (page - 1) * pageSize, limit: pageSize });
      return reply
        .type('application/json; charset=utf-8')
        .send(
          JSON.stringify({ totalResults: found.total, page, pageSize, clients: found.items.map(clientJson) }),
        );
    },
  );

  // Fastify ends a parameter name at a hyphen, so the path's {client-id} is named clientId.
  app.get<{ Params: { clientId: string } }>(
    '/clients/:clientId',
    {
      schema: {
        summary: 'One client record by id',
        params: ClientParams,
        response: jsonResponses({ 200: ClientRecord }),
      },
      validatorCompiler: documentedOnly,
    },
    async (request, reply) => {
      negotiate(request, JSON_ONLY);
      const id = parseClientId(request.params.clientId);
      const client = await findClient(pool, id);
      if (!client) throw notFound(`client with id ${id}`);
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(clientJson(client)));
    },
  );
}
