-- Client search with an address term (GET /clients): every client whose name matched was looked up in
-- iponz_client_addresses one by one to test its addresses (at 300,000 clients a common name part such as
-- "kiwi%dair" matches about 1,000 names, of which a few dozen have the address; those lookups were most of
-- the time, and a planner short of statistics turned each into a trigram index scan of all addresses).
-- Now each client row also carries its addresses' folded texts (`search_text`, by address type) in
-- `addresses_folded`, and the address term is tested on the row the name's trigram index led to, one
-- element at a time (a `%` never spans two addresses), with no further lookup. No index on it: an
-- address term's trigrams such as "str" or "eet" are in nearly every address (a GIN index over the name
-- and the addresses, tried, read those long posting lists and took seconds).
--
-- Kept by statement triggers on iponz_client_addresses (inserts by the seed's COPY and by filings,
-- updates, deletes), so no writer has to remember it.
ALTER TABLE iponz_clients ADD COLUMN addresses_folded text[] NOT NULL DEFAULT '{}';

CREATE FUNCTION iponz_client_addresses_folded(id integer) RETURNS text[]
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT coalesce(array_agg(search_text ORDER BY address_type), '{}')
        FROM iponz_client_addresses WHERE client_id = id $$;

UPDATE iponz_clients c SET addresses_folded = a.folded
  FROM (SELECT client_id, array_agg(search_text ORDER BY address_type) AS folded
        FROM iponz_client_addresses GROUP BY client_id) a
  WHERE a.client_id = c.client_id;

CREATE FUNCTION iponz_client_addresses_changed() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE iponz_clients c SET addresses_folded = iponz_client_addresses_folded(c.client_id)
      WHERE c.client_id IN (SELECT client_id FROM changed_new);
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE iponz_clients c SET addresses_folded = iponz_client_addresses_folded(c.client_id)
      WHERE c.client_id IN (SELECT client_id FROM changed_old);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER iponz_client_addresses_inserted AFTER INSERT ON iponz_client_addresses
  REFERENCING NEW TABLE AS changed_new FOR EACH STATEMENT EXECUTE FUNCTION iponz_client_addresses_changed();
CREATE TRIGGER iponz_client_addresses_updated AFTER UPDATE ON iponz_client_addresses
  REFERENCING NEW TABLE AS changed_new OLD TABLE AS changed_old
  FOR EACH STATEMENT EXECUTE FUNCTION iponz_client_addresses_changed();
CREATE TRIGGER iponz_client_addresses_deleted AFTER DELETE ON iponz_client_addresses
  REFERENCING OLD TABLE AS changed_old FOR EACH STATEMENT EXECUTE FUNCTION iponz_client_addresses_changed();
