/**
 * The search (PPSR_02) and its free later pages: `operations/search.ts`.
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { declareOperation, typed } from '../../../platform/http/operation.ts';
import { checkSearch, type SearchRequest } from '../domain/search.ts';
import { searchPage, searchStatements } from '../operations/search.ts';
import { organisationOf, payingOrganisationOf } from '../operations/support.ts';
import { responses, SearchAnswer, SearchRequest as SearchBody, transactionHeaders } from '../schemas.ts';
import type { Processing } from './processing.ts';
import { JSON_ONLY, JSON_TYPE } from './support.ts';

export function searchRoutes(plugin: FastifyInstance, context: ServiceContext, processing: Processing): void {
  const app = typed(plugin);

  app.post(
    '/financing-statements-search',
    declareOperation(
      {
        schema: {
          operationId: 'PPSR_02',
          summary:
            'Search by debtor organisation, debtor person, motor vehicle, aircraft or registration number (fee-bearing; later pages of a searchId are free)',
          headers: transactionHeaders(context.environment),
          body: SearchBody,
          response: responses({ 200: SearchAnswer }, { transaction: true }),
        },
      },
      { produces: JSON_ONLY },
    ),
    async (request, reply) => {
      const body: SearchRequest = request.body;
      if (body.searchId !== undefined) {
        const organisationId = await organisationOf(context, request.caller);
        const page = await searchPage(context, {
          organisationId,
          request: { ...body, searchId: body.searchId },
        });
        return reply.header('Cache-Control', 'no-cache').type(JSON_TYPE).send(JSON.stringify(page));
      }
      const search = checkSearch(body);
      // Who pays and their direct debit authority, before the transaction is received: a refusal is
      // not kept under the request id and takes no certificate number.
      const organisationId = await payingOrganisationOf(context, request.caller);
      const input = { organisationId, caller: request.caller, search };
      return processing.run(request, reply, {
        operation: 'PPSR_02',
        organisationId,
        work: (client, transaction) => searchStatements(context, input, { client, transaction }),
      });
    },
  );
}
