/**
 * GET /clients (the spec's five rules, domain/client-search.ts) and GET /clients/{client-id}, on the
 * operations of operations/clients.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { declareOperation, typed } from '../../../platform/http/operation.ts';
import { clientDetail, searchClientPage } from '../operations/clients.ts';
import { ClientList, ClientParams, ClientQuery, ClientRecord, jsonResponses } from '../schemas/operations.ts';
import { JSON_ONLY } from './support.ts';

export async function clientRoutes(plugin: FastifyInstance, context: ServiceContext): Promise<void> {
  const app = typed(plugin);

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
      const page = await searchClientPage(context, request.query);
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(page));
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
      const client = await clientDetail(context, { clientId: request.params.clientId });
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(client));
    },
  );
}
