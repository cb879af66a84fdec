import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { DISCLOSE_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { declareOperation, typed } from '../../../platform/http/operation.ts';
import { checkSignature, derivedSigningKey, signedQuery } from '../../../platform/signed-url.ts';
import {
  DOCUMENT_REC_ID,
  FUND_NUMBER,
  OFFER_NUMBER,
  SCHEME_NUMBER,
  SIGNED_URL_SECONDS,
} from '../domain/records.ts';
import { apiBase, notFound, numberParam } from '../operations/common.ts';
import { FileParams, SignedQuery } from '../parameters.ts';
import { downloadResponses, ORGANISATION_NOTE, pathParameters } from '../schemas.ts';
import { type DocumentFiles, documentFolder, folderDocumentFiles } from '../store/document-files.ts';
import { type DocumentRow, documentById, documents } from '../store/documents.ts';
import { DOCUMENT, declareOffersOperation } from './declared.ts';

/** The key of this environment's document URLs: derived from the server's secret, never stored. */
export function signingKey(context: ServiceContext): Buffer {
  return derivedSigningKey(context.keyedUniform, `disclose|document-url|${context.environment}`);
}

/** Where a document's bytes are served (public: the signature is the permission). */
export const downloadPath = (context: ServiceContext, recId: string): string =>
  `${apiBase(context)}/files/${recId}`;

/**
 * The three document operations: 302 to a signed URL of our document store, valid for
 * SIGNED_URL_SECONDS, bound to the calling subscription.
 */
export function documentRoutes(plugin: FastifyInstance, context: ServiceContext): void {
  const app = typed(plugin);
  const pool = context.database.pool;
  const key = signingKey(context);
  const redirect = (request: FastifyRequest, row: DocumentRow) => {
    const path = downloadPath(context, row.documentRecId);
    const caller = request.caller?.subscriptionId ?? 'unknown';
    return context.absoluteUrl(
      `${path}?${signedQuery(key, path, caller, context.clock.now().getTime(), SIGNED_URL_SECONDS)}`,
    );
  };
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
  const subjectDocument = async (kind: 'offer' | 'scheme', params: Readonly<Record<string, string>>) => {
    const param = kind === 'offer' ? 'offerNumber' : 'schemeNumber';
    const number = numberParam(
      params[param]!,
      kind === 'offer' ? OFFER_NUMBER : SCHEME_NUMBER,
      param,
      kind === 'offer' ? 'Offer' : 'Scheme',
    );
    const recId = params.documentRecId!;
    const row = DOCUMENT_REC_ID.test(recId) ? await documentById(pool, recId) : undefined;
    if (
      !row ||
      row.subjectKind !== kind ||
      row.subjectNumber !== number ||
      row.documentType !== params.documentType
    ) {
      throw notFound(`Document ${recId.slice(0, 40)} of ${number}`, 'documentRecId');
    }
    return row;
  };
  for (const kind of ['offer', 'scheme'] as const) {
    const param = kind === 'offer' ? 'offerNumber' : 'schemeNumber';
    const url = `/${kind}/:${param}/:documentType/:documentRecId`;
    app.get(url, schema(`A document of the ${kind}: 302 to a signed URL`, url), async (request, reply) => {
      const row = await subjectDocument(kind, request.params);
      return reply.redirect(redirect(request, row), 302);
    });
  }
  app.get(
    '/fund/:fundNumber/fund-update-document',
    schema(
      'The fund’s latest fund update document: 302 to a signed URL',
      '/fund/:fundNumber/fund-update-document',
    ),
    async (request, reply) => {
      const fundNumber = numberParam(request.params.fundNumber!, FUND_NUMBER, 'fundNumber', 'Fund');
      const found = await documents(
        pool,
        { kind: 'fund', number: fundNumber, type: 'fund-update-document' },
        { limit: 1, offset: 0 },
      );
      const row = found.rows[0];
      if (!row) throw notFound(`The fund update document of ${fundNumber}`, 'fundNumber');
      return reply.redirect(redirect(request, row), 302);
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
  const pool = context.database.pool;
  const key = signingKey(context);
  const store = files ?? folderDocumentFiles(documentFolder(context.environment));
  const declared = declareOperation(
    { schema: { hide: true, params: FileParams, querystring: SignedQuery } },
    { produces: DOCUMENT, unacceptable: 'first' },
  );
  app.get('/files/:documentRecId', declared, async (request, reply) => {
    const recId = request.params.documentRecId;
    const path = downloadPath(context, recId);
    const check = checkSignature(key, path, request.query, context.clock.now().getTime());
    if (check !== 'valid') {
      throw new HttpError(
        DISCLOSE_ERRORS.signatureRefused,
        check === 'expired'
          ? 'The document URL has expired: ask the API for a new one.'
          : 'The document URL’s signature does not match.',
        [{ field: 'signature', message: check === 'expired' ? 'has expired' : 'does not match' }],
      );
    }
    const row = DOCUMENT_REC_ID.test(recId) ? await documentById(pool, recId) : undefined;
    const bytes = row ? await store.read(row.storageKey) : undefined;
    if (!row || !bytes) throw notFound(`Document ${recId.slice(0, 40)}`, 'documentRecId');
    return reply
      .header('Cache-Control', 'private, max-age=60')
      .header('Content-Disposition', `attachment; filename="${row.fileName}"`)
      .type(row.contentType)
      .send(bytes);
  });
}
