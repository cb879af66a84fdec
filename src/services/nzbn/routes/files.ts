/**
 * The register's public route: a document's bytes for a signed URL (operations/document-links.ts), no key
 * needed — the signature is the permission, as the offers register's document URLs are. Mounted by the
 * gateway outside the subscription guard (the definition's `publicRoutes`) and hidden from the OpenAPI
 * document: the published Document's `url` and `document` links are how a client finds it. Its start
 * also removes what failed uploads left in the document store (operations/document-files.ts).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { declareOperation, typed } from '../../../platform/http/operation.ts';
import { ACCEPTED_MEDIA_TYPES } from '../domain/documents.ts';
import { cleanDocumentFiles } from '../operations/document-files.ts';
import { documentDownload } from '../operations/document-links.ts';
import type { NzbnContext } from '../operations/support.ts';
import type { DocumentSource } from '../store/document-source.ts';

const FileParams = Type.Object({ documentId: Type.String({ minLength: 1, maxLength: 40 }) });
const SignedQuery = Type.Object({
  expires: Type.String({ pattern: '^\\d{1,12}$' }),
  caller: Type.String({ maxLength: 200 }),
  signature: Type.String({ maxLength: 100 }),
  disposition: Type.Optional(Type.Union([Type.Literal('attachment'), Type.Literal('inline')])),
});

const PRODUCES = Object.keys(ACCEPTED_MEDIA_TYPES) as [string, ...string[]];

export function nzbnPublicRoutes(documents: DocumentSource): FastifyPluginAsync<ServiceContext> {
  return async (app, serviceContext) => {
    const context: NzbnContext = { ...serviceContext, documents };
    void cleanDocumentFiles(context.database).catch((error) =>
      app.log.warn({ err: error }, 'the business number register’s orphan documents were not cleaned'),
    );
    typed(app).get(
      '/files/:documentId',
      declareOperation(
        { schema: { hide: true, params: FileParams, querystring: SignedQuery } },
        // The bytes are what they are, whatever the Accept.
        { produces: PRODUCES, unacceptable: 'first' },
      ),
      async (request, reply) => {
        const { disposition, ...signed } = request.query;
        const file = await documentDownload(context, { documentId: request.params.documentId, signed });
        reply.raw.once('close', () => void file.close());
        return reply
          .header('Cache-Control', 'private, max-age=60')
          .header('X-Content-Type-Options', 'nosniff')
          .header('Content-Disposition', `${disposition ?? 'attachment'}; filename="${file.fileName}"`)
          .header('Content-Length', String(file.size))
          .type(file.contentType)
          .send(file.stream);
      },
    );
  };
}
