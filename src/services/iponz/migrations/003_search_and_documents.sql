-- The trade mark search (SOAP POST /trademarksearch, issue 15) and the document store's records.
--
-- Title search: the query language (domain/title-query.ts) matches whole words of the title folded to
-- lower case; store/trademark-search.ts compiles each term to a regular expression over `title_folded`
-- (word boundaries as runs of non-alphanumerics), which the trigram GIN index serves (pg_trgm reads the
-- literal letters of a regular expression). Measured against a words table and a plain ILIKE in
-- docs/benchmarks.md.
ALTER TABLE iponz_cases ADD COLUMN title_folded text GENERATED ALWAYS AS (lower(title)) STORED;
CREATE INDEX iponz_cases_mark_title_trgm ON iponz_cases USING gin (title_folded gin_trgm_ops)
  WHERE kind = 'trademark';

-- A trade mark's nature and type (the search's filters; ours: the register publishes no values).
ALTER TABLE iponz_cases
  ADD COLUMN mark_nature text
    CHECK (mark_nature IN ('Trade Mark', 'Collective Mark', 'Certification Mark')),
  ADD COLUMN mark_type text
    CHECK (mark_type IN ('Word', 'Image', 'Combined', 'Colour', 'Shape', 'Sound')),
  ADD CONSTRAINT iponz_cases_mark_kind CHECK (kind = 'trademark' OR (mark_nature IS NULL AND mark_type IS NULL));

-- A trade mark written without them (the generated sandbox marks, and any not given) takes them from
-- its number and image, so the sandbox has every value: 1 in 50 a collective mark, 1 in 50 a
-- certification mark; with an image Combined, else 1 in 40 each Colour, Shape, Sound, the rest Word.
CREATE FUNCTION iponz_mark_defaults() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.kind = 'trademark' THEN
    NEW.mark_nature := coalesce(NEW.mark_nature, CASE NEW.case_number % 50
      WHEN 7 THEN 'Collective Mark' WHEN 13 THEN 'Certification Mark' ELSE 'Trade Mark' END);
    NEW.mark_type := coalesce(NEW.mark_type, CASE
      WHEN NEW.mark_image_name IS NOT NULL THEN 'Combined'
      WHEN NEW.case_number % 40 = 3 THEN 'Colour'
      WHEN NEW.case_number % 40 = 11 THEN 'Shape'
      WHEN NEW.case_number % 40 = 17 THEN 'Sound'
      ELSE 'Word' END);
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER iponz_cases_mark_defaults BEFORE INSERT OR UPDATE OF mark_nature, mark_type ON iponz_cases
  FOR EACH ROW EXECUTE FUNCTION iponz_mark_defaults();
UPDATE iponz_cases SET mark_nature = NULL WHERE kind = 'trademark';

-- Owner and agent filters: a client's cases by role.
CREATE INDEX iponz_case_parties_client_role ON iponz_case_parties (client_id, role, kind, case_number);

-- The bytes of a document are in the document store (documents/), by its identifier; a row of
-- iponz_case_documents without bytes (the seeded ones) is answered with a small generated file
-- (documents/generated.ts). size: the stored bytes' length once stored, NULL while generated.
ALTER TABLE iponz_case_documents ADD COLUMN stored_size bigint CHECK (stored_size >= 0);
