/**
 * Documents of the register (NZBN_105 `POST /documents`, NZBN_905 `POST /companies-document-upload`):
 * what an upload may be and how its identifiers look. The published definition gives the operations a
 * body of type `object` and says nothing of its shape, its size or the kinds of file; these rules are
 * ours, as a register that takes documents for authorities and company filings would have them. Pure.
 */
import { RuleError } from '../../../platform/errors.ts';

/** The largest document, in bytes (ours: 10 MiB, a scanned letter or a multi-page PDF). */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
/** The largest upload body: the document and its text fields (at most 64 KiB) with the parts' headers. */
export const MAX_UPLOAD_BODY_BYTES = MAX_DOCUMENT_BYTES + 128 * 1024;
/** The multipart part that holds the file. */
export const FILE_FIELD = 'file';

/** The kinds of file the register takes, by the media type its content shows (never the declared one). */
export const ACCEPTED_MEDIA_TYPES: Readonly<Record<string, string>> = {
  'application/pdf': 'PDF',
  'image/png': 'PNG',
  'image/jpeg': 'JPEG',
  'image/tiff': 'TIFF',
};
const ACCEPTED_RULE = `must be a ${Object.values(ACCEPTED_MEDIA_TYPES)
  .join(', ')
  .replace(/, (\w+)$/, ' or $1')} file`;

/** Declared types that say nothing of the content, and other spellings of an accepted type. */
const UNINFORMATIVE = new Set(['application/octet-stream', 'binary/octet-stream', 'application/x-download']);
const ALIASES: Readonly<Record<string, string>> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/x-png': 'image/png',
  'application/x-pdf': 'application/pdf',
  'image/tif': 'image/tiff',
};

/** A document uploaded through the API: 16 lowercase hexadecimal digits, random. */
export const UPLOADED_DOCUMENT_ID = /^[0-9a-f]{16}$/;
/** A generated filing's document (the sandbox's): `<nzbn>-<filing number>-<attachment number>`. */
export const GENERATED_DOCUMENT_ID = /^(\d{13})-(\d{3})-(\d)$/;

/** How long a document's signed URL works (ours: a quarter of an hour). */
export const SIGNED_URL_SECONDS = 900;

/**
 * The uploaded file's problem, if any: empty, of a kind the register does not take (judged by its
 * content), or declared as another kind than its content shows.
 */
export function fileProblem(file: {
  bytes: number;
  declared: string;
  sniffed: string | undefined;
}): string | undefined {
  if (file.bytes === 0) return 'is empty';
  const shown = file.sniffed;
  if (!shown || !(shown in ACCEPTED_MEDIA_TYPES)) {
    return `${ACCEPTED_RULE}; its content is ${shown ? `${shown}` : 'none of these'}`;
  }
  const declared = file.declared.toLowerCase();
  const named = ALIASES[declared] ?? declared;
  if (!UNINFORMATIVE.has(named) && named !== shown) {
    return `is sent as ${file.declared} but its content is ${ACCEPTED_MEDIA_TYPES[shown]} (${shown})`;
  }
  return undefined;
}

/** A document type as a client names it (`LETTER`, `ID_PROOF` …): up to 50 letters, digits, `_` or `-`. */
export function readDocumentType(value: string | undefined, field = 'documentType'): string | null {
  if (value === undefined || value.trim() === '') return null;
  const type = value.trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,49}$/.test(type)) {
    throw new RuleError(field, 'must be 1 to 50 letters, digits, _ or -, beginning with a letter or digit');
  }
  return type;
}

/** The name a download gives its file: the uploaded name, or the identifier with the type's extension. */
export function downloadName(id: string, fileName: string | null, contentType: string): string {
  if (fileName) return fileName;
  const extension = {
    'application/pdf': 'pdf',
    'image/png': 'png',
    'image/jpeg': 'jpg',
    'image/tiff': 'tif',
  }[contentType];
  return extension ? `${id}.${extension}` : id;
}
