-- Documents uploaded to the register (NZBN_105 POST /documents, NZBN_905 POST /companies-document-upload)
-- and the filings companies make with them. The bytes are in the register's document store
-- (platform/documents/, RSG_NZBN_DOCUMENTS_DIR), written before the row; a row names them by
-- `storage_id`, so replacing a document's bytes is a new file and a changed row in one transaction.
-- The sandbox's generated filings are not stored: they are made again from the seed when read.

CREATE TABLE nzbn_documents (
  -- The published documentId: 16 hexadecimal digits, random.
  document_id text PRIMARY KEY CHECK (document_id ~ '^[0-9a-f]{16}$'),
  -- The name of the bytes in the document store (a new one with every new version of the document).
  storage_id text NOT NULL UNIQUE CHECK (storage_id ~ '^[0-9a-f]{16}$'),
  -- The user who uploaded it: only they see it until a filing or an authority refers to it.
  owner_user_id text NOT NULL,
  document_type text,
  file_name text,
  -- The media type its content shows (never the one the client declared).
  content_type text NOT NULL,
  size_bytes bigint NOT NULL CHECK (size_bytes > 0),
  sha256 text NOT NULL,
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  -- Set when a filing names it: a filed document no longer changes.
  filed_at timestamptz
);
CREATE INDEX nzbn_documents_owner ON nzbn_documents (owner_user_id);

-- Filings made through the API (NZBN_905): one document each, of the published DocumentType.
CREATE TABLE nzbn_filings (
  filing_id text PRIMARY KEY,
  nzbn text NOT NULL REFERENCES nzbn_entities ON DELETE CASCADE,
  filing_code text NOT NULL,
  registration_date timestamptz NOT NULL,
  submission_date timestamptz NOT NULL,
  effective_date timestamptz NOT NULL,
  document_id text NOT NULL UNIQUE REFERENCES nzbn_documents,
  filed_by text NOT NULL
);
CREATE INDEX nzbn_filings_entity ON nzbn_filings (nzbn, registration_date);
