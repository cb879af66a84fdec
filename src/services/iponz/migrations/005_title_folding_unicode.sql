-- Titles folded and split into words by Unicode, whatever the database's locale. Migrations 003 and 004
-- used `lower(title)` and `[[:alnum:]]` under the database's own collation: in a cluster made with the C
-- locale (the embedded PostgreSQL's) that folds only A–Z and counts only ASCII letters as letters, so
-- "ÉCLAIR" or "MĀORI" could not be found by `éclair*` or `māori`, and a macron split a word in two. The
-- query language (domain/title-query.ts) folds with JavaScript's `toLowerCase()` and takes letters and
-- decimal digits (`\p{L}\p{Nd}`) as word characters; the ICU root collation gives the same: `lower()` by
-- Unicode's case mapping and `[[:alnum:]]` as letters and decimal digits (ICU's u_isalnum), on PostgreSQL
-- built with ICU (ours: the embedded one and Debian's both are; `und-x-icu` is made by initdb).
DROP INDEX iponz_cases_mark_title_trgm;
ALTER TABLE iponz_cases DROP COLUMN title_folded;
ALTER TABLE iponz_cases
  ADD COLUMN title_folded text COLLATE "und-x-icu" GENERATED ALWAYS AS (lower(title COLLATE "und-x-icu")) STORED;
CREATE INDEX iponz_cases_mark_title_trgm ON iponz_cases USING gin (title_folded gin_trgm_ops)
  WHERE kind = 'trademark';

CREATE OR REPLACE FUNCTION iponz_title_words_of(title text) RETURNS SETOF text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT DISTINCT w FROM regexp_split_to_table(lower(title COLLATE "und-x-icu"), '[^[:alnum:]]+') AS w
        WHERE w <> '' $$;

-- The words again, as the function now reads them.
TRUNCATE iponz_title_words;
INSERT INTO iponz_title_words (word, case_number)
  SELECT w, c.case_number FROM iponz_cases c CROSS JOIN LATERAL iponz_title_words_of(c.title) AS w
  WHERE c.kind = 'trademark';
