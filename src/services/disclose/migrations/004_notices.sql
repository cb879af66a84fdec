-- The regulator's (Financial Markets Authority's) notices on an offer or a scheme, as records of their
-- own: their type, date and summary; their documents are the `financial-markets-authority-notice-documents`
-- rows of disclose_documents that name them (`notice_rec_id`, the published path's `{recid}`). Notices are
-- the regulator's: nothing of the API writes them (the seed and an operator's load do).
CREATE TABLE disclose_notices (
  notice_rec_id text PRIMARY KEY CHECK (notice_rec_id ~ '^DOC[0-9]{6,}$'),
  subject_kind text NOT NULL CHECK (subject_kind IN ('offer', 'scheme')),
  subject_number text NOT NULL,
  notice_type text NOT NULL CHECK (notice_type <> ''),
  notice_date date NOT NULL,
  summary text NOT NULL,
  -- When the register recorded it (a read's Last-Modified, with its documents' times).
  recorded_at timestamptz NOT NULL,
  -- The key a document's (notice, record) pair refers to: a notice's documents are of its own record.
  UNIQUE (notice_rec_id, subject_kind, subject_number)
);
CREATE INDEX disclose_notices_subject ON disclose_notices (subject_kind, subject_number, notice_date DESC, notice_rec_id DESC);

-- Notices known before this migration only as their documents' `notice_rec_id`: kept as notices of the
-- type `Notice`, dated by their first document (New Zealand date), their documents' titles the summary.
INSERT INTO disclose_notices (notice_rec_id, subject_kind, subject_number, notice_type, notice_date, summary, recorded_at)
SELECT notice_rec_id, subject_kind, subject_number, 'Notice',
       (min(added_at) AT TIME ZONE 'Pacific/Auckland')::date,
       string_agg(title, '; ' ORDER BY added_at, document_rec_id),
       min(added_at)
  FROM disclose_documents
 WHERE notice_rec_id IS NOT NULL AND subject_kind IN ('offer', 'scheme')
 GROUP BY notice_rec_id, subject_kind, subject_number;

CREATE INDEX disclose_documents_notice ON disclose_documents (notice_rec_id) WHERE notice_rec_id IS NOT NULL;
ALTER TABLE disclose_documents
  ADD CONSTRAINT disclose_documents_notice_fk FOREIGN KEY (notice_rec_id, subject_kind, subject_number)
    REFERENCES disclose_notices (notice_rec_id, subject_kind, subject_number),
  -- A notice's documents, and only they, name a notice.
  ADD CONSTRAINT disclose_documents_notice_type CHECK (
    (document_type = 'financial-markets-authority-notice-documents') = (notice_rec_id IS NOT NULL));

-- An offer's or scheme's detail answer counts its notices: the answer cache hears of their changes.
CREATE TRIGGER disclose_notices_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON disclose_notices
  FOR EACH STATEMENT EXECUTE FUNCTION disclose_notice_change();
