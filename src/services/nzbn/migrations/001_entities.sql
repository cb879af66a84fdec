-- Business number register (service E): entities, their history, change events and the seed's state.
-- The published representation of an entity is kept whole as a JSON document (private items included;
-- the read layer leaves them out for callers without authority); the columns beside it are what search,
-- filters and conditional requests read, so no request has to open the document to find an entity.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE nzbn_entities (
  nzbn text PRIMARY KEY CHECK (nzbn ~ '^[0-9]{13}$'),
  -- Generator index of a generated entity; null for fixtures and entities registered through the API.
  seed_index integer,
  origin text NOT NULL CHECK (origin IN ('generated', 'fixture', 'registered')),
  entity_name text NOT NULL,
  sort_name text COLLATE "C" NOT NULL,
  status_code text NOT NULL,
  type_code text NOT NULL,
  registration_date timestamptz NOT NULL,
  source_register_unique_id text,
  industry_codes text[] NOT NULL DEFAULT '{}',
  -- Current public trading names and earlier entity names (search items list them).
  trading_names text[] NOT NULL DEFAULT '{}',
  previous_names text[] NOT NULL DEFAULT '{}',
  -- Folded name, trading names, previous names, source register number and business number, and its
  -- words for the search index (domain/search-text.ts).
  search_text text NOT NULL,
  search_words tsvector GENERATED ALWAYS AS (to_tsvector('simple', search_text)) STORED,
  -- Privacy flags set on the entity, and whether any present item is private (the views differ).
  private_flags text[] NOT NULL DEFAULT '{}',
  hides_items boolean NOT NULL DEFAULT false,
  last_updated timestamptz NOT NULL,
  -- Hash of the stored document; null while the document is not stored.
  etag text,
  version integer NOT NULL DEFAULT 1,
  -- json, not jsonb: kept byte for byte, so the published key order survives and a read can send it as is.
  -- Null for a generated entity that has not changed since the seed: the generator makes the same
  -- document again from (seed, seed_index), so a national-scale seed stores only the columns above.
  document json,
  CHECK (document IS NOT NULL OR (origin = 'generated' AND seed_index IS NOT NULL))
);

-- The seed drops and rebuilds the two GIN indexes around a large load (store/indexes.ts repeats them).
-- Search matches whole-word prefixes, so it uses a word index rather than trigrams: one posting list per
-- word instead of one per three letters, and no recheck of the text.
CREATE INDEX nzbn_entities_search ON nzbn_entities USING gin (search_words);
CREATE INDEX nzbn_entities_sort ON nzbn_entities (sort_name, nzbn);
CREATE INDEX nzbn_entities_status_type ON nzbn_entities (status_code, type_code);
CREATE INDEX nzbn_entities_industry ON nzbn_entities USING gin (industry_codes);
CREATE INDEX nzbn_entities_source_id ON nzbn_entities (source_register_unique_id);

-- Every stored version an update replaced, whole (the audit trail behind the published history).
CREATE TABLE nzbn_entity_versions (
  nzbn text NOT NULL REFERENCES nzbn_entities ON DELETE CASCADE,
  version integer NOT NULL,
  document json NOT NULL,
  replaced_at timestamptz NOT NULL,
  PRIMARY KEY (nzbn, version)
);

-- Ended periods of the items the history operations publish: addresses, entity-names, trading-names,
-- trading-areas, entity-statuses, hibernation-statuses. Current items are read from the document.
CREATE TABLE nzbn_entity_history (
  id bigserial PRIMARY KEY,
  nzbn text NOT NULL REFERENCES nzbn_entities ON DELETE CASCADE,
  kind text NOT NULL,
  item json NOT NULL,
  start_date timestamptz,
  end_date timestamptz NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX nzbn_entity_history_entity ON nzbn_entity_history (nzbn, kind, end_date);

-- Change events, written in the transaction of the change they record. Watchlists and the change event
-- search (issue 5) read them; `is_private` marks a new value that only authorised callers may see.
CREATE TABLE nzbn_change_events (
  id bigserial PRIMARY KEY,
  nzbn text NOT NULL,
  entity_name text NOT NULL,
  entity_type_code text NOT NULL,
  change_event_type text NOT NULL,
  change_date timestamptz NOT NULL,
  new_value json,
  is_private boolean NOT NULL DEFAULT false,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX nzbn_change_events_date ON nzbn_change_events (change_date, id);
CREATE INDEX nzbn_change_events_entity ON nzbn_change_events (nzbn, change_date);

-- Business numbers for entities registered through POST /entities: bodies 70,000,000–79,999,999.
CREATE SEQUENCE nzbn_registration_body_seq START 70000000 MINVALUE 70000000 MAXVALUE 79999999;

-- uniqueIdentifier of items the register adds (generated items use 1,000,000–6,001,000,000; fixtures'
-- organisation part items 9,000,000,000 upwards).
CREATE SEQUENCE nzbn_item_id_seq START 10000000000 MINVALUE 10000000000;

-- Which chunks of generated entities are loaded (each chunk commits with its row here).
CREATE TABLE nzbn_seed_chunks (
  seed text NOT NULL,
  chunk integer NOT NULL,
  entities integer NOT NULL,
  loaded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (seed, chunk)
);
