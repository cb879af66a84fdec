import type { ServiceContext } from '../../../gateway/service-context.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { checkSignature, ownedSigningKey, signedQuery } from '../../../platform/signed-url.ts';
import {
  DOCUMENT_REC_ID,
  FUND_NUMBER,
  OFFER_NUMBER,
  SCHEME_NUMBER,
  SIGNED_URL_SECONDS,
} from '../domain/records.ts';
import { DISCLOSE_ERRORS } from '../errors.ts';
import type { DocumentFiles } from '../store/document-files.ts';
import { type DocumentRow, documentById, documents } from '../store/documents.ts';
import { apiBase, iso, notFound, numberParam, type Subject } from './common.ts';

/**
 * Documents: a document's list item, and the three document operations' signed URLs of our document
 * store (valid SIGNED_URL_SECONDS, bound to the calling subscription), and the bytes such a URL serves.
 */

/** The key of this environment's document URLs: derived from the server's secret, never stored. */
export const signingKey = (context: ServiceContext): Buffer =>
  ownedSigningKey(context, `disclose|document-url|${context.environment}`);

/** Where a document's bytes are served (public: the signature is the permission). */
export const downloadPath = (context: ServiceContext, recId: string): string =>
  `${apiBase(context)}/files/${recId}`;

/**
 * A document's signed address on the online register's pages: from the gateway root, valid
 * SIGNED_URL_SECONDS from now, for the caller `online-register` (the pages need no key).
 */
export function pageDownloadHref(context: ServiceContext, recId: string): string {
  const path = downloadPath(context, recId);
  return `${path}?${signedQuery(signingKey(context), path, 'online-register', context.clock.now().getTime(), SIGNED_URL_SECONDS)}`;
}

/** A document as a list item of an answer, with the operation that downloads it. */
export function documentItem(context: ServiceContext, row: DocumentRow) {
  const base = apiBase(context);
  return {
    documentRecId: row.documentRecId,
    documentType: row.documentType,
    title: row.title,
    fileName: row.fileName,
    contentType: row.contentType,
    sizeBytes: row.sizeBytes,
    addedDate: iso(row.addedAt),
    noticeRecId: row.noticeRecId,
    href:
      row.subjectKind === 'fund'
        ? `${base}/fund/${row.subjectNumber}/fund-update-document`
        : `${base}/${row.subjectKind}/${row.subjectNumber}/${row.documentType}/${row.documentRecId}`,
  };
}

/** Who the signed URL is for: the calling subscription (`unknown` without one). */
export interface DocumentCaller {
  subscriptionId?: string | undefined;
}

/** The signed URL of a document, absolute, valid SIGNED_URL_SECONDS from now for this caller. */
function signedLocation(context: ServiceContext, caller: DocumentCaller, row: DocumentRow): string {
  const path = downloadPath(context, row.documentRecId);
  const key = signingKey(context);
  return context.absoluteUrl(
    `${path}?${signedQuery(key, path, caller.subscriptionId ?? 'unknown', context.clock.now().getTime(), SIGNED_URL_SECONDS)}`,
  );
}

export interface RecordDocumentInput {
  subject: Subject;
  number: string;
  documentType: string;
  documentRecId: string;
  caller: DocumentCaller;
}

/** An offer's or scheme's document: its signed URL (404 unless the document is of that record and type). */
export async function recordDocumentLocation(
  context: ServiceContext,
  input: RecordDocumentInput,
): Promise<{ location: string }> {
  const { subject, documentRecId: recId } = input;
  const param = subject === 'offer' ? 'offerNumber' : 'schemeNumber';
  const number = numberParam(
    input.number,
    subject === 'offer' ? OFFER_NUMBER : SCHEME_NUMBER,
    param,
    subject === 'offer' ? 'Offer' : 'Scheme',
  );
  const row = DOCUMENT_REC_ID.test(recId) ? await documentById(context.database.pool, recId) : undefined;
  if (
    !row ||
    row.subjectKind !== subject ||
    row.subjectNumber !== number ||
    row.documentType !== input.documentType
  ) {
    throw notFound(`Document ${recId.slice(0, 40)} of ${number}`, 'documentRecId');
  }
  return { location: signedLocation(context, input.caller, row) };
}

/** The fund's latest fund update document: its signed URL. */
export async function fundUpdateDocumentLocation(
  context: ServiceContext,
  input: { fundNumber: string; caller: DocumentCaller },
): Promise<{ location: string }> {
  const fundNumber = numberParam(input.fundNumber, FUND_NUMBER, 'fundNumber', 'Fund');
  const found = await documents(
    context.database.pool,
    { kind: 'fund', number: fundNumber, type: 'fund-update-document' },
    { limit: 1, offset: 0 },
  );
  const row = found.rows[0];
  if (!row) throw notFound(`The fund update document of ${fundNumber}`, 'fundNumber');
  return { location: signedLocation(context, input.caller, row) };
}

/** A signed URL's parts as it was requested (checked against the path). */
export type SignedParts = Readonly<Record<string, unknown>>;

/** A document's bytes, for a valid signature only (403 `signature-refused`), with what names them. */
export async function documentFile(
  context: ServiceContext,
  input: { documentRecId: string; signed: SignedParts },
  files: DocumentFiles,
): Promise<{ bytes: Buffer; fileName: string; contentType: string }> {
  const recId = input.documentRecId;
  const path = downloadPath(context, recId);
  const check = checkSignature(signingKey(context), path, input.signed, context.clock.now().getTime());
  if (check !== 'valid') {
    throw new HttpError(
      DISCLOSE_ERRORS.signatureRefused,
      check === 'expired'
        ? 'The document URL has expired: ask the API for a new one.'
        : 'The document URL’s signature does not match.',
      [{ field: 'signature', message: check === 'expired' ? 'has expired' : 'does not match' }],
    );
  }
  const row = DOCUMENT_REC_ID.test(recId) ? await documentById(context.database.pool, recId) : undefined;
  const bytes = row ? await files.read(row.storageKey) : undefined;
  if (!row || !bytes) throw notFound(`Document ${recId.slice(0, 40)}`, 'documentRecId');
  return { bytes, fileName: row.fileName, contentType: row.contentType };
}
