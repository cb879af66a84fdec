/**
 * Documents and filings at their published paths (operations/documents.ts, operations/filings.ts):
 *
 *   POST /documents                    NZBN_105: upload a document (or a new version of one of yours); 200 Document
 *   POST /companies-document-upload    NZBN_905: a company files a document (DocumentFiling); 200
 *   GET  /entities/{nzbn}/filings      NZBN_004_13: the company's filings with their documents
 *
 * The uploads take `multipart/form-data` (the document in the part `file`, the published fields as text
 * parts), read by the platform's reader (platform/http/multipart.ts) in a scope of their own that takes
 * no other kind of body (415): the file streamed to a temporary file, the body bounded (413), each
 * refusal a 400 naming the field. Both need a signed-in user (a three-legged token).
 */
import type { FastifyInstance } from 'fastify';
import { RuleError } from '../../../platform/errors.ts';
import { LARGE_UPLOAD } from '../../../platform/http/body-deadline.ts';
import { setValidators } from '../../../platform/http/conditional.ts';
import { checked, type DeclaredParts, type PartCheck } from '../../../platform/http/declared-validators.ts';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { type MultipartBody, multipartUploads, uploadedFile } from '../../../platform/http/multipart.ts';
import { preconditionsOf, typed } from '../../../platform/http/operation.ts';
import {
  FILE_FIELD,
  MAX_DOCUMENT_BYTES,
  MAX_UPLOAD_BODY_BYTES,
  readDocumentType,
  SIGNED_URL_SECONDS,
  UPLOADED_DOCUMENT_ID,
} from '../domain/documents.ts';
import { DOCUMENT_TYPES, type DocumentType } from '../domain/filings.ts';
import { uploadFolderOf } from '../operations/document-files.ts';
import { fileCompanyDocument, type UploadedFileInput, uploadDocument } from '../operations/documents.ts';
import { listFilings } from '../operations/filings.ts';
import { choice, type NzbnContext } from '../operations/support.ts';
import {
  CompanyDocumentBody,
  DocumentFilingResponse,
  DocumentUploadBody,
  EntitiesFilingsSearchResponse,
  PublishedDocument,
} from '../schemas/documents.ts';
import { ModifiedSinceHeaders, NzbnParams, RequestHeaders, responses } from '../schemas/operations.ts';
import { nzbnOperation } from './operation.ts';
import { published } from './published.ts';

const config = { threeLegged: true, ...LARGE_UPLOAD };

/** What an upload takes (ours: the definition says only "object"), as the OpenAPI document states it. */
const UPLOAD_RULES =
  `multipart/form-data: the document in the part \`file\`, the other fields as text parts. The document is ` +
  `a PDF, PNG, JPEG or TIFF file, judged by its content (a declared type must agree with it; ` +
  `application/octet-stream is taken as the content shows), at most ${MAX_DOCUMENT_BYTES} bytes (413 naming ` +
  `\`file\`). The answer's links are signed URLs, valid ${SIGNED_URL_SECONDS} seconds, that need no key.`;

/** A text part of the body (undefined when absent). */
const text = (body: MultipartBody, name: string): string | undefined => {
  const value = body[name];
  return typeof value === 'string' ? value : undefined;
};

/** The file part, as the operation takes it; 400 naming `file` when there is none. */
function fileOf(body: MultipartBody, required: boolean): UploadedFileInput | undefined {
  const file = uploadedFile(body, FILE_FIELD);
  if (!file && required)
    throw new RuleError('file', 'is required: the document, as the multipart part `file`');
  return file;
}

function documentIdOf(body: MultipartBody): string | undefined {
  const value = text(body, 'documentId')?.trim();
  if (!value) return undefined;
  if (!UPLOADED_DOCUMENT_ID.test(value)) {
    throw new RuleError('documentId', 'must be the documentId of a document uploaded with POST /documents');
  }
  return value;
}

/** The multipart body as NZBN_105's operation takes it. */
export const uploadInput = (raw: unknown) => {
  const body = (raw ?? {}) as MultipartBody;
  return {
    file: fileOf(body, true)!,
    documentType: readDocumentType(text(body, 'documentType')),
    documentId: documentIdOf(body) ?? null,
  };
};

/** The multipart body as NZBN_905's operation takes it. */
export const companyDocumentInput = (raw: unknown) => {
  const body = (raw ?? {}) as MultipartBody;
  const nzbn = text(body, 'nzbn')?.trim();
  if (!nzbn) throw new RuleError('nzbn', 'is required: the company filing the document');
  const documentType = choice(text(body, 'documentType') ?? '', DOCUMENT_TYPES);
  if (!documentType) throw new RuleError('documentType', `must be one of ${DOCUMENT_TYPES.join(', ')}`);
  return {
    nzbn,
    documentType: documentType as DocumentType,
    file: fileOf(body, false),
    documentId: documentIdOf(body),
    submissionDate: text(body, 'submissionDate')?.trim() || undefined,
    effectiveDate: text(body, 'effectiveDate')?.trim() || undefined,
  };
};

/** The uploads' validators: the multipart body by the parse above, the other parts by their schemas. */
const uploadValidators = (parse: (body: unknown) => unknown): DeclaredParts => ({
  body: checked({ parse }) as PartCheck,
  refuse: (problems) =>
    new HttpError(
      PLATFORM_ERRORS.invalidParameter,
      problems.map((problem) => `${problem.field} ${problem.message}`).join('; '),
      [...problems],
    ),
});

async function uploadRoutes(scope: FastifyInstance, context: NzbnContext): Promise<void> {
  // Only multipart bodies here: any other type is Fastify's 415.
  scope.removeAllContentTypeParsers();
  await multipartUploads(scope, {
    folder: uploadFolderOf(context.database),
    limit: MAX_UPLOAD_BODY_BYTES,
    fileField: FILE_FIELD,
  });
  const api = typed(scope);

  api.post(
    '/documents',
    nzbnOperation(
      {
        bodyLimit: MAX_UPLOAD_BODY_BYTES,
        config,
        schema: {
          ...published('NZBN_105'),
          summary: 'Upload a document (or a new version of one of yours): multipart/form-data',
          description: UPLOAD_RULES,
          consumes: ['multipart/form-data'],
          headers: ModifiedSinceHeaders,
          body: DocumentUploadBody,
          response: responses({ 200: PublishedDocument }, [400, 401, 403, 404, 412, 413, 415]),
        },
      },
      { honours: ['If-Modified-Since', 'If-Match', 'If-Unmodified-Since'] },
      uploadValidators(uploadInput),
    ),
    async (request, reply) => {
      const input = request.body as unknown as ReturnType<typeof uploadInput>;
      const made = await uploadDocument(context, {
        caller: request.caller,
        ...input,
        preconditions: preconditionsOf(request),
      });
      setValidators(reply, made.validators);
      return reply.send(made.document);
    },
  );

  api.post(
    '/companies-document-upload',
    nzbnOperation(
      {
        bodyLimit: MAX_UPLOAD_BODY_BYTES,
        config,
        schema: {
          ...published('NZBN_905'),
          summary: 'File a company’s document (business debt hibernation): multipart/form-data; 200',
          description: `${UPLOAD_RULES} The caller holds business authority over the company; the filing joins its filings (GET /entities/{nzbn}/filings) with a FILING change event.`,
          consumes: ['multipart/form-data'],
          headers: RequestHeaders,
          body: CompanyDocumentBody,
          response: responses({ 200: DocumentFilingResponse }, [400, 401, 403, 413, 415]),
        },
      },
      undefined,
      uploadValidators(companyDocumentInput),
    ),
    async (request) => {
      const input = request.body as unknown as ReturnType<typeof companyDocumentInput>;
      return fileCompanyDocument(context, { caller: request.caller, ...input });
    },
  );
}

export async function documentRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  await app.register(async (scope) => uploadRoutes(scope, context));

  typed(app).get(
    '/entities/:nzbn/filings',
    nzbnOperation({
      schema: {
        ...published('NZBN_004_13'),
        summary: 'The company’s filings, oldest first, each with its documents (signed URLs)',
        params: NzbnParams,
        response: responses({ 200: EntitiesFilingsSearchResponse }, [400, 401, 403]),
      },
    }),
    async (request) => listFilings(context, { caller: request.caller, nzbn: request.params.nzbn }),
  );
}
