/**
 * The search (PPSR_02): fee-bearing, a transaction, a search certificate and a `searchId`; later pages
 * of the same `searchId` are read from the search's snapshot, free (published).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { RuleError } from '../../../platform/errors.ts';
import { declareOperation, typed } from '../../../platform/http/operation.ts';
import {
  checkPaging,
  checkSearch,
  checkSearchId,
  MAX_RESULTS,
  type SearchKind,
  type SearchRequest,
} from '../domain/search.ts';
import { lookupOf } from '../domain/search-keys.ts';
import { responses, SearchAnswer, SearchRequest as SearchBody, transactionHeaders } from '../schemas.ts';
import { getSearch, insertSearch, type SearchRow } from '../store/searches.ts';
import { findInForce, getStatements } from '../store/statements.ts';
import type { Processing } from './processing.ts';
import { chargeFee, JSON_ONLY, organisationOf, payingOrganisationOf, present, today } from './support.ts';

const SEARCH_FEES: Record<SearchKind, string> = {
  debtorOrganisation: 'PPSR_SEARCH_DEBTOR_ORGANISATION',
  debtorPerson: 'PPSR_SEARCH_DEBTOR_PERSON',
  motorVehicle: 'PPSR_SEARCH_MOTOR_VEHICLE',
  aircraft: 'PPSR_SEARCH_SERIAL_NUMBER',
  registrationNumber: 'PPSR_SEARCH_REGISTRATION_NUMBER',
};

export function searchRoutes(plugin: FastifyInstance, context: ServiceContext, processing: Processing): void {
  const app = typed(plugin);
  const pool = context.database.pool;

  async function answer(search: SearchRow, page: number, pageSize: number) {
    const offset = (page - 1) * pageSize;
    const rows = await getStatements(pool, search.results.slice(offset, offset + pageSize));
    const day = today(context);
    return {
      searchId: search.searchId,
      searchCertificateNumber: search.certificateNumber,
      totalResults: search.results.length,
      page,
      pageSize,
      financingStatements: rows.map((row) => present(row, day)),
    };
  }

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
        const organisationId = await organisationOf(context, request);
        const { page, pageSize } = checkPaging(body);
        const search = await getSearch(pool, organisationId, checkSearchId(body.searchId));
        if (!search) throw new RuleError('searchId', 'is not a search of your organisation');
        return reply
          .header('Cache-Control', 'no-cache')
          .type('application/json; charset=utf-8')
          .send(JSON.stringify(await answer(search, page, pageSize)));
      }
      const checked = checkSearch(body);
      // Who pays and their direct debit authority, before the transaction is received: a refusal is
      // not kept under the request id and takes no certificate number.
      const organisationId = await payingOrganisationOf(context, request);
      return processing.run(request, reply, {
        operation: 'PPSR_02',
        organisationId,
        async work(client, transaction) {
          const searchedAt = context.clock.now();
          const results = await findInForce(client, lookupOf(checked.criterion), today(context), MAX_RESULTS);
          const search = await insertSearch(client, {
            searchId: randomUUID(),
            organisationId,
            searchBy: checked.searchBy,
            criterion: checked.criterion,
            searchedAt,
            results,
            transactionId: transaction.id,
          });
          const paymentSessionId = await chargeFee(context, client, transaction, {
            operation: 'PPSR_02',
            feeCode: SEARCH_FEES[checked.searchBy],
            caller: request.caller,
            object: { kind: 'search', id: search.certificateNumber },
          });
          return {
            httpStatus: 200,
            body: await answer(search, checked.page, checked.pageSize),
            paymentSessionId,
          };
        },
      });
    },
  );
}
