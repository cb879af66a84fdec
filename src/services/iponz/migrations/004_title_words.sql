-- The trade mark search's words table (issue 15's goal: a one-word wildcard title over 600,000 marks).
--
-- A trade mark's title words, one row per distinct word and mark: the words are those of the title query
-- language (domain/title-query.ts) as the regular expressions of migration 003 read them — runs of
-- `[[:alnum:]]` of `lower(title)`. A query of one word is answered from the B-tree on
-- (word, case_number): a word is an equality, a trailing `*` a prefix range (`LIKE 'kau%'`, the column
-- collated "C" so that LIKE uses the index), `?` and inner wildcards a LIKE walked over the index
-- (store/trademark-search.ts). The generator's titles put a word in about 1 mark in 18, which no trigram
-- index narrows; the B-tree reads only that word's entries.
--
-- Kept in step by statement triggers on iponz_cases (ours): every writer of a trade mark's title — the
-- seed's COPY, a filing's INSERT, any UPDATE of a title or DELETE of a case — changes the words in the
-- same statement, so in the same transaction, and no writer can forget them. Statement triggers with
-- transition tables do it a set at a time (a COPY of 10,000 marks is one INSERT … SELECT here).

CREATE FUNCTION iponz_title_words_of(title text) RETURNS SETOF text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT DISTINCT w FROM regexp_split_to_table(lower(title), '[^[:alnum:]]+') AS w WHERE w <> '' $$;

CREATE TABLE iponz_title_words (
  word text COLLATE "C" NOT NULL,
  case_number integer NOT NULL
);

-- The backfill: the marks already there.
INSERT INTO iponz_title_words (word, case_number)
  SELECT w, c.case_number FROM iponz_cases c CROSS JOIN LATERAL iponz_title_words_of(c.title) AS w
  WHERE c.kind = 'trademark';
ALTER TABLE iponz_title_words ADD PRIMARY KEY (word, case_number);

CREATE FUNCTION iponz_title_words_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO iponz_title_words (word, case_number)
    SELECT w, n.case_number FROM new_cases n CROSS JOIN LATERAL iponz_title_words_of(n.title) AS w
    WHERE n.kind = 'trademark';
  RETURN NULL;
END $$;

CREATE FUNCTION iponz_title_words_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM iponz_title_words t USING old_cases o CROSS JOIN LATERAL iponz_title_words_of(o.title) AS w
    WHERE o.kind = 'trademark' AND t.word = w AND t.case_number = o.case_number;
  RETURN NULL;
END $$;

-- An UPDATE changes the words only of the rows whose title (or kind) changed: a status change, the
-- usual update, finds none and writes nothing.
CREATE FUNCTION iponz_title_words_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM iponz_title_words t
    USING old_cases o JOIN new_cases n ON n.kind = o.kind AND n.case_number = o.case_number
      CROSS JOIN LATERAL iponz_title_words_of(o.title) AS w
    WHERE o.kind = 'trademark' AND o.title IS DISTINCT FROM n.title
      AND t.word = w AND t.case_number = o.case_number;
  -- A row whose number or kind changed has no partner in the join: its old words go, its new come.
  DELETE FROM iponz_title_words t
    USING old_cases o CROSS JOIN LATERAL iponz_title_words_of(o.title) AS w
    WHERE o.kind = 'trademark'
      AND NOT EXISTS (SELECT 1 FROM new_cases n WHERE n.kind = o.kind AND n.case_number = o.case_number)
      AND t.word = w AND t.case_number = o.case_number;
  INSERT INTO iponz_title_words (word, case_number)
    SELECT w, n.case_number FROM new_cases n CROSS JOIN LATERAL iponz_title_words_of(n.title) AS w
    WHERE n.kind = 'trademark'
      AND NOT EXISTS (SELECT 1 FROM old_cases o WHERE o.kind = n.kind AND o.case_number = n.case_number
                        AND o.title IS NOT DISTINCT FROM n.title);
  RETURN NULL;
END $$;

CREATE TRIGGER iponz_title_words_insert AFTER INSERT ON iponz_cases
  REFERENCING NEW TABLE AS new_cases FOR EACH STATEMENT EXECUTE FUNCTION iponz_title_words_inserted();
CREATE TRIGGER iponz_title_words_delete AFTER DELETE ON iponz_cases
  REFERENCING OLD TABLE AS old_cases FOR EACH STATEMENT EXECUTE FUNCTION iponz_title_words_deleted();
CREATE TRIGGER iponz_title_words_update AFTER UPDATE ON iponz_cases
  REFERENCING OLD TABLE AS old_cases NEW TABLE AS new_cases FOR EACH STATEMENT
  EXECUTE FUNCTION iponz_title_words_updated();

CREATE FUNCTION iponz_title_words_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE iponz_title_words;
  RETURN NULL;
END $$;
CREATE TRIGGER iponz_title_words_truncate AFTER TRUNCATE ON iponz_cases
  FOR EACH STATEMENT EXECUTE FUNCTION iponz_title_words_truncated();
