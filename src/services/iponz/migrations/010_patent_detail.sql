-- A patent's detail (ours, beyond the published elements): abstract, claims (count and the independent
-- ones), IPC classifications, priority claims, the PCT publication. One JSON object per patent, read and
-- written whole (domain/patent-detail.ts names its shape); null for a patent filed without it and for
-- other kinds. Inventors are the case's parties of role Inventor.
ALTER TABLE iponz_cases
  ADD COLUMN patent_detail jsonb CHECK (
    patent_detail IS NULL OR (kind = 'patent' AND jsonb_typeof(patent_detail) = 'object')
  );
