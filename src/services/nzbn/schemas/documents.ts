/**
 * The schemas of documents, filings and the removal of an address: the published Document, Filing,
 * EntitiesFilingsSearchResponse and DocumentFilingResponse as answered, and the multipart bodies of the
 * two uploads as our OpenAPI document describes them (the definition says only "object"; the shape is
 * ours, domain/documents.ts).
 */
import { type Static, Type } from '@sinclair/typebox';
import { MAX_DOCUMENT_BYTES } from '../domain/documents.ts';
import { DOCUMENT_TYPES } from '../domain/filings.ts';
import { Link, literals, Nullable, NzDateTime, Strict } from '../domain/schema-parts.ts';
import { NzbnParams } from './operations.ts';

/** The published Document: where its bytes are read, by a signed URL (`url` downloads, `document` shows). */
export const PublishedDocument = Type.Object(
  {
    documentId: Type.String(),
    documentType: Nullable(Type.String()),
    url: Nullable(Link),
    document: Nullable(Link),
  },
  {
    ...Strict,
    description: 'A document; `url` downloads it, `document` shows it in a browser (signed URLs)',
  },
);

export const Filing = Type.Object(
  {
    filingId: Type.String(),
    archived: Type.Boolean(),
    filingCode: Type.String(),
    filingCodeDescription: Type.String(),
    registrationDate: NzDateTime,
    url: Nullable(Link),
    attachments: Type.Array(PublishedDocument),
  },
  Strict,
);

export const EntitiesFilingsSearchResponse = Type.Object({ items: Type.Array(Filing) }, Strict);

export const DocumentFilingResponse = Type.Object(
  {
    documentId: Type.String(),
    documentType: literals(DOCUMENT_TYPES),
    submissionDate: NzDateTime,
    effectiveDate: NzDateTime,
    filedDate: NzDateTime,
  },
  Strict,
);

const FileProperty = Type.String({
  format: 'binary',
  description: `The document: a PDF, PNG, JPEG or TIFF file (judged by its content), at most ${MAX_DOCUMENT_BYTES} bytes`,
});
const DocumentId = Type.String({
  pattern: '^[0-9a-f]{16}$',
  description: 'A document uploaded with POST /documents',
});

/** NZBN_105's body: `multipart/form-data`. */
export const DocumentUploadBody = Type.Object(
  {
    file: FileProperty,
    documentType: Type.Optional(
      Type.String({
        maxLength: 50,
        description: 'What the document is: LETTER, ID_PROOF …',
        examples: ['LETTER'],
      }),
    ),
    documentId: Type.Optional(
      Type.String({
        ...DocumentId,
        description:
          'A document of yours to replace (a new version; If-Modified-Since guards it): not one that is filed',
      }),
    ),
  },
  { description: 'multipart/form-data: the file in the part `file`' },
);

/** NZBN_905's body: `multipart/form-data`, the published DocumentFiling with its document. */
export const CompanyDocumentBody = Type.Object(
  {
    nzbn: Type.String({ description: 'The company filing it', examples: ['9429000003025'] }),
    documentType: literals(DOCUMENT_TYPES),
    file: Type.Optional(FileProperty),
    documentId: Type.Optional(
      Type.String({ ...DocumentId, description: 'Instead of `file`: a document of yours' }),
    ),
    submissionDate: Type.Optional(Type.String({ description: 'When you submitted it (default: now)' })),
    effectiveDate: Type.Optional(
      Type.String({ description: 'When it takes effect (default: its submission)' }),
    ),
  },
  {
    description:
      'multipart/form-data: the published DocumentFiling, and the document as `file` or `documentId`',
  },
);

export const AddressParams = Type.Object({
  ...NzbnParams.properties,
  id: Type.String({
    maxLength: 20,
    description: "The address's uniqueIdentifier",
    // The invoice address of the example entity (the fixed test case 9429000001007).
    examples: ['6000900004'],
  }),
});
export type AddressParams = Static<typeof AddressParams>;
