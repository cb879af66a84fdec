import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { declareOperation, typed } from '../../../platform/http/operation.ts';
import { SIGNED_URL_SECONDS } from '../domain/records.ts';
import { documentFile, fundUpdateDocumentLocation, recordDocumentLocation } from '../operations/documents.ts';
import { FileParams, SignedQuery } from '../parameters.ts';
import { downloadResponses, ORGANISATION_NOTE, pathParameters } from '../schemas.ts';
import { type DocumentFiles, documentFolder, folderDocumentFiles } from '../store/document-files.ts';
import { DOCUMENT, declareOffersOperation } from './declared.ts';

/**
 * The three document operations (operations/documents.ts): 302 to a signed URL of our document store,
 * valid for SIGNED_URL_SECONDS, bound to the calling subscription.
 */
export function documentRoutes(plugin: FastifyInstance, context: ServiceContext): void {
  const app = typed(plugin);
  // The document is what the redirect leads to; any Accept is answered with the redirect (declared.ts).
  const schema = (summary: string, url: string) =>
    declareOffersOperation(
      {
        schema: {
          summary,
          params: pathParameters(url),
          description: `${ORGANISATION_NOTE} The signed URL lives ${SIGNED_URL_SECONDS} seconds.`,
          response: downloadResponses,
        },
      },
      { produces: DOCUMENT },
    );
  for (const subject of ['offer', 'scheme'] as const) {
    const param = subject === 'offer' ? 'offerNumber' : 'schemeNumber';
    const url = `/${subject}/:${param}/:documentType/:documentRecId`;
    app.get(url, schema(`A document of the ${subject}: 302 to a signed URL`, url), async (request, reply) => {
      const { location } = await recordDocumentLocation(context, {
        subject,
        number: request.params[param]!,
        documentType: request.params.documentType!,
        documentRecId: request.params.documentRecId!,
        caller: { subscriptionId: request.caller?.subscriptionId },
      });
      return reply.redirect(location, 302);
    });
  }
  app.get(
    '/fund/:fundNumber/fund-update-document',
    schema(
      'The fund’s latest fund update document: 302 to a signed URL',
      '/fund/:fundNumber/fund-update-document',
    ),
    async (request, reply) => {
      const { location } = await fundUpdateDocumentLocation(context, {
        fundNumber: request.params.fundNumber!,
        caller: { subscriptionId: request.caller?.subscriptionId },
      });
      return reply.redirect(location, 302);
    },
  );
}

/**
 * The document store's public route: the bytes, for a valid signature only. Declared through the kit:
 * the URL's parts are validated against their schemas (`SignedQuery`: a part given twice or of the wrong
 * type is 400 naming it), and the bytes are answered whatever the `Accept`, as a download always was.
 */
export function fileRoutes(plugin: FastifyInstance, context: ServiceContext, files?: DocumentFiles): void {
  const app = typed(plugin);
  const store = files ?? folderDocumentFiles(documentFolder(context.environment));
  const declared = declareOperation(
    { schema: { hide: true, params: FileParams, querystring: SignedQuery } },
    { produces: DOCUMENT, unacceptable: 'first' },
  );
  app.get('/files/:documentRecId', declared, async (request, reply) => {
    const file = await documentFile(
      context,
      { documentRecId: request.params.documentRecId, signed: request.query },
      store,
    );
    return reply
      .header('Cache-Control', 'private, max-age=60')
      .header('Content-Disposition', `attachment; filename="${file.fileName}"`)
      .type(file.contentType)
      .send(file.bytes);
  });
}
