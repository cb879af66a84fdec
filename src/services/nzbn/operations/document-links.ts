/**
 * Where a document's bytes are read: signed URLs of the register's public download route
 * (`<base>/files/{documentId}`, no key needed: the signature is the permission, platform/signed-url.ts),
 * made for the caller an answer is for and valid SIGNED_URL_SECONDS. The published Document carries two:
 * `url` downloads the file, `document` shows it in a browser (`disposition=inline`). Every answer that
 * shows a document makes them afresh (an upload's, an authority's documents, a company's filings), so a
 * kept answer's links expire but the answer can be asked for again.
 *
 * The bytes: an uploaded document's from the document store; a generated filing's document (the
 * sandbox's) made again from the seed, a one-page PDF the same every time. An authority refers to
 * uploads by their documentId (`keptDocuments`), and is answered with their links (`answeredDocuments`).
 */
import { Readable } from 'node:stream';
import type { Caller } from '../../../gateway/service-context.ts';
import { onePagePdf } from '../../../platform/documents/one-page-pdf.ts';
import { badRequest, HttpError } from '../../../platform/http/errors.ts';
import { checkSignature, ownedSigningKey, signedQuery } from '../../../platform/signed-url.ts';
import { ENVIRONMENT_PREFIX } from '../../contract.ts';
import {
  downloadName,
  GENERATED_DOCUMENT_ID,
  SIGNED_URL_SECONDS,
  UPLOADED_DOCUMENT_ID,
} from '../domain/documents.ts';
import { type GeneratedFiling, generatedDocumentLines, type PublishedDocument } from '../domain/filings.ts';
import { NZBN_ERRORS } from '../errors.ts';
import { documentById, documentsByIds } from '../store/documents.ts';
import { notFound } from './directory-support.ts';
import { documentFilesOf } from './document-files.ts';
import type { NzbnContext } from './support.ts';

const signingKey = (context: NzbnContext) =>
  ownedSigningKey(context, `nzbn|document-url|${context.environment}`);

/** The download route's path of a document, from the gateway's root (what the signature covers). */
const downloadPath = (context: NzbnContext, documentId: string) =>
  `${ENVIRONMENT_PREFIX[context.environment]}${context.service.path}/files/${documentId}`;

/** A document as published, with its signed URLs made for `caller`. */
export function publishedDocument(
  context: NzbnContext,
  caller: Caller | undefined,
  document: { documentId: string; documentType: string | null },
): PublishedDocument {
  const path = downloadPath(context, document.documentId);
  const query = signedQuery(
    signingKey(context),
    path,
    caller?.subscriptionId ?? 'unknown',
    context.clock.now().getTime(),
    SIGNED_URL_SECONDS,
  );
  const href = context.absoluteUrl(`${path}?${query}`);
  return {
    documentId: document.documentId,
    documentType: document.documentType,
    url: { rel: 'download', href, methods: ['GET'] },
    document: { rel: 'document', href: `${href}&disposition=inline`, methods: ['GET'] },
  };
}

/** The generated filings of a business number: the sandbox's companies only. */
export const generatedFilings = (context: NzbnContext, nzbn: string): GeneratedFiling[] =>
  context.environment === 'sandbox' ? context.documents.filings(nzbn) : [];

export interface DocumentBytes {
  size: number;
  stream: Readable;
  contentType: string;
  fileName: string;
  /** Releases what the stream reads (called when the answer ends, however it ends). */
  close(): Promise<void>;
}

const signatureRefused = (check: 'tampered' | 'expired') =>
  new HttpError(
    NZBN_ERRORS.signatureRefused,
    check === 'expired'
      ? 'The document URL has expired: ask the API for the document again.'
      : 'The document URL’s signature does not match.',
    [{ field: 'signature', message: check === 'expired' ? 'has expired' : 'does not match' }],
  );

/** A generated filing's document, made again (undefined when the identifier names none). */
function generatedBytes(context: NzbnContext, documentId: string): DocumentBytes | undefined {
  const [, nzbn, number] = GENERATED_DOCUMENT_ID.exec(documentId) ?? [];
  if (!nzbn) return undefined;
  const filing = generatedFilings(context, nzbn).find(
    (one) => one.filingId === `${nzbn}-${number}` && one.attachments.some((a) => a.documentId === documentId),
  );
  if (!filing) return undefined;
  const bytes = onePagePdf(generatedDocumentLines(filing, nzbn, documentId));
  return {
    size: bytes.length,
    stream: Readable.from([bytes]),
    contentType: 'application/pdf',
    fileName: `${documentId}.pdf`,
    close: async () => {},
  };
}

/**
 * The bytes a signed URL reads: 403 SIGNATURE_REFUSED for a URL changed or past its time, 404 when the
 * document is not there (any more).
 */
export async function documentDownload(
  context: NzbnContext,
  input: { documentId: string; signed: Readonly<Record<string, unknown>> },
): Promise<DocumentBytes> {
  const { documentId } = input;
  const check = checkSignature(
    signingKey(context),
    downloadPath(context, documentId),
    input.signed,
    context.clock.now().getTime(),
  );
  if (check !== 'valid') throw signatureRefused(check);
  const missing = () => notFound(`no document has the identifier ${documentId}`);
  if (!UPLOADED_DOCUMENT_ID.test(documentId)) {
    const made = generatedBytes(context, documentId);
    if (!made) throw missing();
    return made;
  }
  const row = await documentById(context.database.pool, documentId);
  const file = row && (await documentFilesOf(context.database).get(row.storageId));
  if (!row || !file) throw missing();
  return {
    size: file.size,
    stream: file.stream,
    contentType: row.contentType,
    fileName: downloadName(documentId, row.fileName, row.contentType),
    close: async () => {
      await file.close?.();
    },
  };
}

/** An authority's document as kept and answered (the published Document). */
interface KeptDocument {
  documentId: string;
  documentType: string | null;
  url: unknown;
  document: unknown;
}

const isKept = (value: unknown): value is KeptDocument =>
  typeof value === 'object' && value !== null && typeof (value as KeptDocument).documentId === 'string';

/**
 * An authority's documents as kept (Authority.documents): one naming a document uploaded to the register
 * (its 16-digit documentId) must be the caller's upload, or one the authority has already (else 400
 * naming it); it takes the upload's type when none is given, and keeps no links (they are made, signed,
 * when the authority is answered). Documents given by their own links only are kept as they are.
 */
export async function keptDocuments(
  context: NzbnContext,
  ownerUserId: string,
  documents: readonly unknown[] | undefined,
  already: readonly unknown[] = [],
): Promise<unknown[] | undefined> {
  if (!documents) return undefined;
  const known = new Set(already.filter(isKept).map((document) => document.documentId));
  const uploaded = documents
    .filter(isKept)
    .filter((document) => UPLOADED_DOCUMENT_ID.test(document.documentId));
  const rows = new Map(
    (
      await documentsByIds(
        context.database.pool,
        uploaded.map((document) => document.documentId),
      )
    ).map((row) => [row.documentId, row]),
  );
  return documents.map((document, index) => {
    if (!isKept(document) || !UPLOADED_DOCUMENT_ID.test(document.documentId)) return document;
    const row = rows.get(document.documentId);
    if (!row || (row.ownerUserId !== ownerUserId && !known.has(row.documentId))) {
      throw badRequest(`documents.${index}.documentId`, 'names no document you uploaded (POST /documents)');
    }
    return {
      ...document,
      documentType: document.documentType ?? row.documentType,
      url: null,
      document: null,
    };
  });
}

/** An authority's documents as answered: the register's uploads with signed URLs made for `caller`. */
export async function answeredDocuments(
  context: NzbnContext,
  caller: Caller | undefined,
  documents: readonly unknown[],
): Promise<unknown[]> {
  const ids = documents
    .filter(isKept)
    .map((document) => document.documentId)
    .filter((id) => UPLOADED_DOCUMENT_ID.test(id));
  if (ids.length === 0) return [...documents];
  const present = new Set((await documentsByIds(context.database.pool, ids)).map((row) => row.documentId));
  return documents.map((document) =>
    isKept(document) && present.has(document.documentId)
      ? publishedDocument(context, caller, document)
      : document,
  );
}
