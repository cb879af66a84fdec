/**
 * Documents (the published Document): NZBN_105 uploads one (or a new version of one of the caller's),
 * NZBN_905 files one for a company (the published DocumentFiling: a filing of the company, in its
 * filings list, with a FILING change event the watchlists see), and each answer that shows a document
 * gives its signed URLs (`documentLinks`, operations/document-links.ts); the bytes those URLs read are
 * `documentDownload`'s.
 *
 * An upload's bytes are checked (size, and kind by content: domain/documents.ts) and written to the
 * document store first; its row, the filing and the change event are written in one transaction; the
 * bytes of a failed transaction are removed at once (and by the orphan cleaning, should the process
 * stop first).
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Caller } from '../../../gateway/service-context.ts';
import { withTransaction } from '../../../platform/db/pool.ts';
import { SNIFF_BYTES, sniffMediaType } from '../../../platform/documents/sniff.ts';
import { RuleError } from '../../../platform/errors.ts';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { badRequest, HttpError } from '../../../platform/http/errors.ts';
import type { Preconditions, ResourceValidators } from '../../../platform/http/operation.ts';
import { formatNzDateTime, parseNzDateTime } from '../../../platform/nz-time.ts';
import { isCompanyType } from '../domain/codes.ts';
import { fileProblem, MAX_DOCUMENT_BYTES } from '../domain/documents.ts';
import { type DocumentType, FILING_CODES, type PublishedDocument } from '../domain/filings.ts';
import { readDate } from '../domain/items.ts';
import { nextItemId, recordChange } from '../store/changes.ts';
import {
  type DocumentRow,
  type DocumentVersion,
  insertDocument,
  lockDocument,
  markFiled,
  replaceDocument,
} from '../store/documents.ts';
import { holdEntity, insertFiling } from '../store/filings.ts';
import { forbidden, notFound } from './directory-support.ts';
import { documentFilesOf } from './document-files.ts';
import { publishedDocument } from './document-links.ts';
import { entityView, loadEntity, type NzbnContext, nzbnParam, requireAuthority } from './support.ts';

/** An uploaded file as the route read it (the multipart reader's temporary file). */
export interface UploadedFileInput {
  temporary: string;
  fileName: string;
  /** The type the client declared for the part. */
  contentType: string;
  bytes: number;
  sha256: string;
}

const newId = () => randomBytes(8).toString('hex');

/** The signed-in user an upload belongs to (the gateway requires a user's token; a tool names one). */
function ownerOf(caller: Caller | undefined): string {
  if (!caller?.userId)
    throw forbidden('userId', 'documents are uploaded by a signed-in user of this gateway');
  return caller.userId;
}

/** A document's validators: a new version changes both. */
export const documentValidators = (row: DocumentRow): ResourceValidators => ({
  etag: `"${row.sha256.slice(0, 32)}.${row.version}"`,
  lastModified: row.updatedAt,
});

const tooLarge = () => {
  const rule = `is larger than the limit of ${MAX_DOCUMENT_BYTES} bytes`;
  return new HttpError(PLATFORM_ERRORS.bodyTooLarge, `file: ${rule}`, [{ field: 'file', message: rule }]);
};

async function headOf(file: string): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(head, 0, SNIFF_BYTES, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The file checked (size; kind by its content) and its bytes written to the store: the new version. */
async function storeUpload(
  context: NzbnContext,
  file: UploadedFileInput,
  documentType: string | null,
): Promise<DocumentVersion> {
  if (file.bytes > MAX_DOCUMENT_BYTES) throw tooLarge();
  const sniffed = sniffMediaType(await headOf(file.temporary));
  const problem = fileProblem({ bytes: file.bytes, declared: file.contentType, sniffed });
  if (problem) throw new RuleError('file', problem);
  const storageId = newId();
  await documentFilesOf(context.database).put(storageId, createReadStream(file.temporary));
  return {
    storageId,
    documentType,
    fileName: file.fileName,
    contentType: sniffed!,
    sizeBytes: file.bytes,
    sha256: file.sha256,
  };
}

/** `work` with the new bytes in the store: they are removed again when it fails. */
async function keepingBytes<T>(
  context: NzbnContext,
  version: DocumentVersion | undefined,
  work: () => Promise<T>,
) {
  try {
    return await work();
  } catch (error) {
    if (version)
      await documentFilesOf(context.database)
        .delete(version.storageId)
        .catch(() => false);
    throw error;
  }
}

export interface DocumentUpload {
  caller: Caller | undefined;
  file: UploadedFileInput;
  documentType: string | null;
  /** A document of the caller's to replace; null uploads a new one. */
  documentId: string | null;
  preconditions: Preconditions;
}

/**
 * NZBN_105: a new document of the caller's, or a new version of one (`documentId`: 404 unless it is the
 * caller's, 412 when it changed after the caller's If-Modified-Since, 400 once it is filed).
 */
export async function uploadDocument(
  context: NzbnContext,
  input: DocumentUpload,
): Promise<{ document: PublishedDocument; validators: ResourceValidators }> {
  const owner = ownerOf(input.caller);
  const version = await storeUpload(context, input.file, input.documentType);
  const now = context.clock.now();
  const { row, replaced } = await keepingBytes(context, version, () =>
    withTransaction(context.database.pool, async (client) => {
      if (input.documentId === null) {
        input.preconditions(undefined);
        const made = await insertDocument(client, {
          documentId: newId(),
          ownerUserId: owner,
          at: now,
          ...version,
        });
        return { row: made, replaced: undefined };
      }
      const current = await lockDocument(client, input.documentId);
      if (!current || current.ownerUserId !== owner) {
        throw notFound(`you have no document ${input.documentId}`);
      }
      input.preconditions(documentValidators(current));
      if (current.filedAt) throw badRequest('documentId', 'is filed: a filed document does not change');
      const next = { ...version, documentType: version.documentType ?? current.documentType };
      return {
        row: await replaceDocument(client, current.documentId, next, now),
        replaced: current.storageId,
      };
    }),
  );
  // The earlier version's bytes, once nothing names them.
  if (replaced)
    await documentFilesOf(context.database)
      .delete(replaced)
      .catch(() => false);
  return {
    document: publishedDocument(context, input.caller, row),
    validators: documentValidators(row),
  };
}

export interface CompanyFilingInput {
  caller: Caller | undefined;
  nzbn: string;
  documentType: DocumentType;
  /** The document: uploaded with the filing, or one the caller uploaded before. */
  file: UploadedFileInput | undefined;
  documentId: string | undefined;
  submissionDate: string | undefined;
  effectiveDate: string | undefined;
}

/** The published DocumentFilingResponse. */
export interface DocumentFilingAnswer {
  documentId: string;
  documentType: DocumentType;
  submissionDate: string;
  effectiveDate: string;
  filedDate: string;
}

/** The company a filing is for: a valid number of a company of the register, held by the caller. */
async function filingCompany(context: NzbnContext, caller: Caller | undefined, number: string) {
  const nzbn = nzbnParam(number);
  const stored = await loadEntity(context, nzbn).catch((error: unknown) => {
    // The definition lists no 404 for this operation: a number of the body that names nothing is a 400.
    if (error instanceof HttpError && error.status === 404)
      throw badRequest('nzbn', 'no entity has this business number');
    throw error;
  });
  const entity = entityView(stored, false);
  if (!isCompanyType(entity.entityTypeCode)) {
    throw badRequest('nzbn', `is a ${entity.entityTypeDescription}: only companies file documents here`);
  }
  await requireAuthority(context, caller, nzbn);
  return nzbn;
}

/** When it was submitted (not in the future; default now) and takes effect (default its submission). */
function filingDates(input: CompanyFilingInput, now: Date) {
  const submissionDate = readDate(input.submissionDate, formatNzDateTime(now.getTime()), 'submissionDate');
  if (parseNzDateTime(submissionDate)! > now.getTime()) {
    throw new RuleError('submissionDate', 'must not be in the future');
  }
  return { submissionDate, effectiveDate: readDate(input.effectiveDate, submissionDate, 'effectiveDate') };
}

/**
 * NZBN_905: a company's document filing, by a holder of business authority over the company. The
 * document is the upload's `file` or a document the caller uploaded before (`documentId`), not yet filed;
 * it becomes a filing of the company (code = its DocumentType) and a FILING change event, in one
 * transaction, and no longer changes.
 */
export async function fileCompanyDocument(
  context: NzbnContext,
  input: CompanyFilingInput,
): Promise<DocumentFilingAnswer> {
  const owner = ownerOf(input.caller);
  if ((input.file === undefined) === (input.documentId === undefined)) {
    throw badRequest(
      'file',
      'send the document as `file`, or name one you uploaded as `documentId`: one of them',
    );
  }
  const nzbn = await filingCompany(context, input.caller, input.nzbn);
  const now = context.clock.now();
  const dates = filingDates(input, now);
  const version = input.file && (await storeUpload(context, input.file, input.documentType));
  const documentId = await keepingBytes(context, version, () =>
    withTransaction(context.database.pool, async (client) => {
      const entity = await holdEntity(client, nzbn);
      if (!entity) throw badRequest('nzbn', 'no entity has this business number');
      const id = version ? newId() : input.documentId!;
      if (version) await insertDocument(client, { documentId: id, ownerUserId: owner, at: now, ...version });
      else {
        const current = await lockDocument(client, id);
        if (!current || current.ownerUserId !== owner) {
          throw badRequest('documentId', 'names no document you uploaded (POST /documents)');
        }
        if (current.filedAt)
          throw badRequest('documentId', 'is filed already: upload it again to file it twice');
      }
      await markFiled(client, id, input.documentType, now);
      const filingId = await nextItemId(client);
      const registrationDate = formatNzDateTime(now.getTime());
      await insertFiling(client, {
        filingId,
        nzbn,
        filingCode: input.documentType,
        registrationDate: now,
        submissionDate: new Date(parseNzDateTime(dates.submissionDate)!),
        effectiveDate: new Date(parseNzDateTime(dates.effectiveDate)!),
        documentId: id,
        filedBy: owner,
      });
      const filing = {
        filingId,
        filingCode: input.documentType,
        filingCodeDescription: FILING_CODES[input.documentType],
        registrationDate,
        documentId: id,
      };
      await recordChange(client, {
        nzbn,
        ...entity,
        changeEventType: 'FILING',
        changeDate: now,
        newValue: filing,
        isPrivate: false,
      });
      return id;
    }),
  );
  return {
    documentId,
    documentType: input.documentType,
    ...dates,
    filedDate: formatNzDateTime(now.getTime()),
  };
}
