-- Search certificates (ours: their retrieval): every search yields one (published), which its
-- organisation reads later as JSON or PDF, listing the criteria, the time, the searcher's organisation
-- and the results as they stood. The statements found are kept as the search showed them (a later
-- amendment or group update does not change the certificate); searches made before this migration have
-- none kept, and their certificates show the statements as they stand.
ALTER TABLE ppsr_searches
  ADD COLUMN searcher_name text,
  ADD COLUMN result_statements json;
