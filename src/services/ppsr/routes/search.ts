/**
 * The search (PPSR_02) and its free later pages: `operations/search.ts`; its certificate as JSON or PDF
 * (ours): `operations/certificates.ts`.
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { declareOperation, typed } from '../../../platform/http/operation.ts';
import { certificatePdf } from '../documents/certificate-pdf.ts';
import { checkSearch, type SearchRequest } from '../domain/search.ts';
import { readCertificate } from '../operations/certificates.ts';
import { searchPage, searchStatements } from '../operations/search.ts';
import { organisationOf, payingOrganisationOf } from '../operations/support.ts';
import {
  CertificateParams,
  readHeaders,
  responses,
  SearchAnswer,
  SearchRequest as SearchBody,
  SearchCertificate,
  transactionHeaders,
} from '../schemas.ts';
import { named } from './operation-names.ts';
import type { Processing } from './processing.ts';
import { JSON_ONLY, JSON_TYPE } from './support.ts';

export function searchRoutes(plugin: FastifyInstance, context: ServiceContext, processing: Processing): void {
  const app = typed(plugin);

  app.post(
    '/financing-statements-search',
    declareOperation(
      {
        schema: {
          ...named('PPSR_02'),
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

  certificateRoutes(plugin, context);
}

/** The search certificates (ours: their retrieval), as JSON and as PDF. */
function certificateRoutes(plugin: FastifyInstance, context: ServiceContext): void {
  const app = typed(plugin);

  app.get(
    '/search-certificates/:certificateNumber',
    declareOperation(
      {
        schema: {
          ...named('PPSR_02_CERTIFICATE'),
          summary:
            'A search certificate of your organisation: criteria, time, searcher and results as they stood',
          params: CertificateParams,
          headers: readHeaders(),
          response: responses({ 200: SearchCertificate }),
        },
      },
      { produces: JSON_ONLY },
    ),
    async (request, reply) => {
      const organisationId = await organisationOf(context, request.caller);
      const { certificateNumber } = request.params;
      const certificate = await readCertificate(context, { organisationId, certificateNumber });
      return reply.type(JSON_TYPE).send(JSON.stringify(certificate));
    },
  );

  app.get(
    '/search-certificates/:certificateNumber/pdf',
    declareOperation(
      {
        schema: {
          ...named('PPSR_02_CERTIFICATE_PDF'),
          summary: 'A search certificate of your organisation as a PDF',
          params: CertificateParams,
          headers: readHeaders(),
          response: {
            ...responses({}),
            200: {
              description: 'The certificate as a PDF',
              content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
            },
            406: responses({})[406],
          },
        },
      },
      { produces: ['application/pdf'] },
    ),
    async (request, reply) => {
      const organisationId = await organisationOf(context, request.caller);
      const { certificateNumber } = request.params;
      const certificate = await readCertificate(context, { organisationId, certificateNumber });
      return reply
        .type('application/pdf')
        .header('Content-Disposition', `inline; filename="${certificate.searchCertificateNumber}.pdf"`)
        .send(await certificatePdf(certificate));
    },
  );
}
